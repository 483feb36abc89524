"""anyurl.cli.memory: glibc's mmap threshold held for a mirror's run."""

from __future__ import annotations

import subprocess
import sys


def test_the_mmap_threshold_is_held_on_glibc_and_the_process_goes_on() -> None:
    """With glibc, mallopt takes the threshold (elsewhere nothing is done); big blocks
    are then allocated and freed as before. In a child: the setting is the process's."""
    code = ("import platform, sys; from anyurl.cli.memory import hold_mmap_threshold; "
            "held = hold_mmap_threshold(); blocks = [bytearray(1 << 20) for _ in range(8)]; "
            "del blocks; print(f'{held},{platform.libc_ver()[0]}')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    held, libc = done.stdout.strip().split(",")
    assert held == str(libc == "glibc")
