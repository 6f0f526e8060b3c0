#!/usr/bin/env bash
# Bazel test //tests/models:lstm_large_e2e: a 2-layer LSTM (hidden 512)
# whose kernels need more scratch than the kernel stack budget compiles
# and matches onnxruntime (see lstm_large_e2e.py).
# Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/lstm_large"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
