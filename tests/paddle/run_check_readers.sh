#!/usr/bin/env bash
# Bazel test //tests/paddle:readers_models: gen_models.py writes the Paddle
# test models in both forms (PIR JSON and legacy .pdmodel) into the test's
# temporary directory, and check_readers.py requires Kiln's readers
# (paddle-dump) to see in each exactly what Paddle sees.
# Arguments: PADDLE_DUMP GEN_MODELS CHECK_READERS
set -euo pipefail
dump="$1" gen="$2" check="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
echo "readers_models: checking that $python imports paddle"
source "$(dirname "${BASH_SOURCE[0]}")/paddle_available.sh"

out="${TEST_TMPDIR:-$(mktemp -d)}/paddle_models"
"$python" "$gen" --out "$out" --timeout 360
exec "$python" "$check" --dump "$dump" --models-dir "$out"
