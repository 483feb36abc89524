"""glibc's malloc kept from growing the heap of a long crawl (``anyurl mirror``).

glibc serves an allocation of :data:`MMAP_THRESHOLD` (128 KiB) or more with its own
``mmap``, given back to the system when freed. But the threshold is dynamic: each time
such a block is freed, glibc raises the threshold to its size (up to 32 MiB), so that
from then on the 256 KiB pieces a page is read in, a big page's strings and lists and
libxml2's buffers come from the heap, where the small objects allocated between them
keep the freed space from being returned. A mirror of Debian's python3-doc (530
pages, 1,065 files; ``bench/README.md``) peaked at 47-49 MiB that way, and at 42 MiB
with the threshold held at its initial value (``MALLOC_MMAP_THRESHOLD_=131072``, which
``mallopt`` sets the same way as the environment variable does), at the same CPU.

It is a process-wide setting, so it is made by the command, never by the library. On a
system whose C library is not glibc (musl, macOS, Windows), nothing is done.
"""

from __future__ import annotations

import sys

__all__ = ["MMAP_THRESHOLD", "hold_mmap_threshold"]

#: glibc's initial ``M_MMAP_THRESHOLD``, held (``mallopt``'s parameter -3).
MMAP_THRESHOLD = 128 << 10
_M_MMAP_THRESHOLD = -3


def hold_mmap_threshold(threshold: int = MMAP_THRESHOLD) -> bool:
    """Hold glibc's mmap threshold at ``threshold`` bytes (which also stops its dynamic
    raising); whether it was set (False: not glibc, or ``mallopt`` refused)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None)  # the C library this process already runs on
    except OSError:
        return False
    # only glibc has gnu_get_libc_version (musl has a mallopt that does nothing)
    if not hasattr(libc, "gnu_get_libc_version") or not hasattr(libc, "mallopt"):
        return False
    mallopt = libc.mallopt
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, threshold))
