#!/usr/bin/env bash
# Bazel test //tests/e2e:erf_tanh_e2e: Erf, an erf GELU after a MatMul and
# Tanh on the CPU kernels' rational approximations (native, x86-64-v4,
# x86-64-v3; f32, bf16, fp16) must match math.erf / numpy's tanh and
# onnxruntime fp32 (see erf_tanh_e2e.py).
# Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/erf_tanh_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
