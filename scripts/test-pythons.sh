#!/usr/bin/env bash
# The unit tests on every other Python the classifiers name (3.12, 3.13) that this machine
# has, each in its own venv with anyurl[test] installed from this tree:
#
#   bash scripts/test-pythons.sh                 # tests/unit on python3.12 and python3.13
#   bash scripts/test-pythons.sh tests/cli -x    # other pytest arguments
#
# A Python is looked for as python3.X on PATH, then under pyenv ($PYENV_ROOT/versions/3.X.*);
# one that is missing is named and skipped, and the script fails only on a failing test.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSIONS=(3.12 3.13)
WORK=${ANYURL_PYTHONS_DIR:-${TMPDIR:-/tmp}/anyurl-pythons}
ARGS=("$@")
[ ${#ARGS[@]} -eq 0 ] && ARGS=(tests/unit -q -p no:cacheprovider)

find_python() {
    local v=$1 candidate
    # a pyenv shim is on PATH for every version pyenv knows, runnable or not: run it
    if "python$v" -c "" >/dev/null 2>&1; then command -v "python$v"; return; fi
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/python"$v"; do
        [ -x "$candidate" ] && { echo "$candidate"; return; }
    done
    return 1
}

tested=0
for v in "${VERSIONS[@]}"; do
    if ! python=$(find_python "$v"); then
        echo "test-pythons: no Python $v on this machine; not tested" >&2
        continue
    fi
    venv="$WORK/venv$v"
    [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -e '.[test]'
    echo "== Python $v ($python)"
    HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-ci} "$venv/bin/python" -m pytest "${ARGS[@]}"
    tested=$((tested + 1))
done
echo "test-pythons: $tested of ${#VERSIONS[@]} other Pythons tested" >&2
