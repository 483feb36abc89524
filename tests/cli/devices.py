"""A null device for tests that send a body nowhere, never the real ``/dev/null``.

The tests run as root: a regression in anyurl's device detection would replace the
machine's ``/dev/null`` with a regular file. A character device (1, 3) made with
``os.mknod`` in a temporary directory behaves the same and risks nothing.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import stat
import tempfile


@functools.cache
def null_device() -> str:
    """The path of a null device node of this test process (made on first use)."""
    directory = tempfile.mkdtemp(prefix="anyurl-null-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    node = os.path.join(directory, "null")
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return node
