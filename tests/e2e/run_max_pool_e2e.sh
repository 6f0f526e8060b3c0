#!/usr/bin/env bash
# Bazel test //tests/e2e:max_pool_e2e: 1x1 conv -> max pool branches
# compiled for the depthwise kernel's "max" tiles (native, x86-64-v4,
# x86-64-v3; f32, bf16, fp16) must match onnxruntime fp32 (see
# max_pool_e2e.py). Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/max_pool_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
