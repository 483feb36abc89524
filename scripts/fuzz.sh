#!/usr/bin/env bash
# A long fuzzing campaign of the parser and the sans-I/O cores: the property tests of
# tests/unit (test_core_fuzz.py, test_url_roundtrip.py: the round trip over generated
# URLs and over the fuzz grammar) run again and again, each round with a new random
# seed and SCALE times CI's budget of examples, until MINUTES have passed or one fails
# (its seed is printed so the failure can be replayed with --hypothesis-seed=SEED and
# the same SCALE). CI runs the same properties once, with the ci profile's fixed seed.
#
#   bash scripts/fuzz.sh            # 10 minutes, 20 times CI's examples per round
#   MINUTES=120 SCALE=100 bash scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
MINUTES=${MINUTES:-10}
SCALE=${SCALE:-20}
end=$(( $(date +%s) + MINUTES * 60 ))
rounds=0
while [ "$(date +%s)" -lt "$end" ]; do
    seed=$RANDOM$RANDOM
    if ! PYTHONPATH=src HYPOTHESIS_PROFILE=default ANYURL_FUZZ_SCALE=$SCALE "$PYTHON" -m pytest -q -p no:cacheprovider \
            --hypothesis-seed="$seed" tests/unit/test_core_fuzz.py tests/unit/test_url_roundtrip.py \
            >/tmp/anyurl-fuzz.log 2>&1; then
        echo "fuzz: round $rounds failed with --hypothesis-seed=$seed SCALE=$SCALE" \
             "(log: /tmp/anyurl-fuzz.log)"
        exit 1
    fi
    rounds=$((rounds + 1))
done
echo "fuzz: $rounds rounds, no failure"
