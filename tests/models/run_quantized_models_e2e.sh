#!/usr/bin/env bash
# Bazel test //tests/models:quantized_models_e2e: small CNN and transformer
# models quantized by onnxruntime's quantization tool (QDQ, QOperator,
# dynamic) compile with kilnc and match onnxruntime on the same quantized
# model (see quantized_models_e2e.py for the bounds).
# Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/quantized_models"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
