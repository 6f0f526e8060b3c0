#!/usr/bin/env bash
# Bazel test //tests/e2e:int8_kernels_e2e: MatMulInteger / ConvInteger
# models compiled for the VNNI, AVX-512 and AVX2 int8 kernel paths (and
# loop order) must equal onnxruntime's int32 outputs exactly (see
# int8_kernels_e2e.py). Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/int8_kernels_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
