#!/usr/bin/env bash
# Bazel test //tests/e2e:quantize_clamp_e2e: Relu/Clip -> QuantizeLinear
# models (alone and after ConvInteger / MatMulInteger epilogues) whose
# clamp kiln-fold-qdq folds into the quantize (or must keep) equal
# onnxruntime's (u)int8 outputs exactly on native and x86-64-v3 builds
# (see quantize_clamp_e2e.py). Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/quantize_clamp_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
