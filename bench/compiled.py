"""Make sure anyurl's modules are byte-compiled before anything is timed.

A user's installed anyurl has its ``.pyc`` files; a checkout run with
``PYTHONDONTWRITEBYTECODE=1`` (as on our machines) compiles every module from source
on every start, about 80 ms that curl never pays and a user would not either.
"""

from __future__ import annotations

import compileall
import importlib.util
from pathlib import Path


def compile_anyurl() -> None:
    spec = importlib.util.find_spec("anyurl")
    if spec is None or spec.origin is None:
        raise SystemExit("anyurl is not importable: pip install -e . first")
    compileall.compile_dir(str(Path(spec.origin).parent), quiet=1)
