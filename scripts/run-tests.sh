#!/usr/bin/env bash
# The test command of README.md: set up a fresh Debian 12 machine, then run the whole suite.
#
#   bash scripts/run-tests.sh            # everything: unit, CLI and integration tests
#   bash scripts/run-tests.sh -m 'not integration'   # extra arguments go to pytest
#
# Set-up is idempotent and quick on a second run: the real servers of tests/peers
# (scripts/install-peers.sh, needs root) and anyurl itself with its test dependencies,
# the Python ones into the checkout's .venv (scripts/venv.sh), never the system's.
# The pytest session starts the peers on 127.0.0.1 and stops them at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh  # .venv in the checkout: the system's packages are left alone

if [ "$(id -u)" -eq 0 ]; then
    bash scripts/install-peers.sh
else
    echo "run-tests: not root, so the peer servers are not installed; tests that need a" \
         "missing one fail and say how to install it" >&2
fi
"$PYTHON" -m pip install -q --disable-pip-version-check -e '.[dev]'
exec "$PYTHON" -m pytest "$@"
