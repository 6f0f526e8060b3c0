#!/usr/bin/env bash
# Bazel test //tests/e2e:implicit_gemm_e2e: fp32 K x K conv chains (stride,
# dilation, asymmetric pads, the 7x7 stem, batch 2, odd channels and
# pixels) built as implicit GEMM for the host, x86-64-v4 and x86-64-v3
# (gather_b = "im2col", no pad or im2col dispatch) and for loop order must
# match onnxruntime (see implicit_gemm_e2e.py). Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/implicit_gemm_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
