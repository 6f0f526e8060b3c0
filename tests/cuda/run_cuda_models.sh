#!/usr/bin/env bash
# Bazel test //tests/cuda:cuda_models: check_cuda_models.py with the tools,
# the venv's Python (onnx, numpy: it writes the real and bench models) and
# the CUDA toolkit's ptxas. Without a toolkit there is nothing to check: the
# test says so and passes, as the lit tests that need ptxas are UNSUPPORTED.
# Arguments: KILNC KILN KILN_OPT CHECK_SCRIPT EXPECTATIONS
set -euo pipefail
kilnc="$1" kiln="$2" kiln_opt="$3" check="$4" expect="$5"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
ptxas=""
for candidate in "${CUDA_PATH:-/usr/local/cuda}/bin/ptxas" /usr/local/cuda/bin/ptxas \
                 "$(command -v ptxas || true)"; do
  if [[ -n "$candidate" && -x "$candidate" ]]; then ptxas="$candidate"; break; fi
done
if [[ -z "$ptxas" ]]; then
  echo "SKIPPED: no CUDA toolkit (ptxas): no model checked"
  exit 0
fi
# Bench models are cached where bench/run_bench.py keeps them (Bazel points
# HOME at a temporary directory).
export KILN_CACHE="${KILN_CACHE:-$(getent passwd "$(id -u)" | cut -d: -f6)/.cache/kiln}"
work="${TEST_TMPDIR:-$(mktemp -d)}/cuda_models"
mkdir -p "$work"
exec "$python" "$check" --kilnc "$kilnc" --kiln "$kiln" --kiln-opt "$kiln_opt" \
  --ptxas "$ptxas" --expect "$expect" --work "$work"
