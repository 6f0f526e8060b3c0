#!/usr/bin/env bash
# Bazel test //tests/paddle:models_e2e: gen_models.py writes the Paddle test
# models in both forms with Paddle Inference's outputs; models_e2e.py
# compiles each with kilnc, runs it with kiln and compares.
# Arguments: KILNC KILN GEN_MODELS MODELS_E2E
set -euo pipefail
kilnc="$1" kiln="$2" gen="$3" script="$4"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
source "$(dirname "${BASH_SOURCE[0]}")/paddle_available.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/paddle_models_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --gen "$gen" --workdir "$workdir"
