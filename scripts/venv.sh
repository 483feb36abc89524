# Sourced by run-demo.sh, run-tests.sh and .ci/run: the project's own virtual environment.
#
# Everything anyurl and its tests install goes into .venv in the checkout (ANYURL_VENV to
# put it elsewhere), created from $PYTHON (default python3) when missing and reused after,
# so the README's two commands do all set-up and leave the system's packages alone. Its
# bin/ goes first on PATH (the tests run console scripts such as warcio), and PYTHON is
# its python from here on (scripts/install-peers.sh installs the peers' Python packages
# with it).
ANYURL_VENV=${ANYURL_VENV:-$PWD/.venv}
if [ ! -x "$ANYURL_VENV/bin/python" ]; then
    echo "anyurl: creating the virtual environment $ANYURL_VENV" >&2
    "${PYTHON:-python3}" -m venv "$ANYURL_VENV"
fi
export VIRTUAL_ENV="$ANYURL_VENV"
export PATH="$ANYURL_VENV/bin:$PATH"
export PYTHON="$ANYURL_VENV/bin/python"
