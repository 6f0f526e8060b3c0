#!/usr/bin/env bash
# Bazel test //tests/models:precision_e2e: every real-architecture model
# compiled with kilnc --precision=bf16 and --precision=fp16 must reach
# cosine similarity >= 0.999 against the fp32 model in onnxruntime (see
# precision_e2e.py). Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/precision"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
