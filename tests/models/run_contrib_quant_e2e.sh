#!/usr/bin/env bash
# Bazel test //tests/models:contrib_quant_e2e: onnxruntime's QLinearWhere,
# QLinearReduceMean, QAttention and DynamicQuantizeLSTM on models built
# in-script, and what its quantization tool writes for the test models,
# compiled by kilnc and compared with onnxruntime (see contrib_quant_e2e.py).
# Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/contrib_quant"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
