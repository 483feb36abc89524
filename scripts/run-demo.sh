#!/usr/bin/env bash
# The main command of README.md: install anyurl (with the demo's loopback servers) and run
# `anyurl demo`, which starts servers on 127.0.0.1 and fetches one URL of every scheme.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh  # .venv in the checkout: the system's packages are left alone
"$PYTHON" -m pip install -q --disable-pip-version-check -e '.[demo]'
exec "$PYTHON" -m anyurl demo "$@"
