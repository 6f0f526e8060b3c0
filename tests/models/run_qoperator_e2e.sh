#!/usr/bin/env bash
# Bazel test //tests/models:qoperator_e2e: onnxruntime's QOperator format
# (com.microsoft QLinear ops and QGemm) on one graph per op and on the
# real-architecture test models, compiled by kilnc and compared with
# onnxruntime on the same quantized model (see qoperator_e2e.py).
# Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/qoperator"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
