#!/usr/bin/env bash
# Bazel test //tests/e2e:conv_native_e2e: a QDQ conv chain (onnxruntime's
# quantize_static; KxK with stride, pads and dilation, 1x1, odd channels)
# compiled for vpdpbusd / vpmaddwd B panels and loop order must stay
# within one unit of the output scale of onnxruntime on the same model,
# and bf16 on vdpbf16ps panels close to onnxruntime fp32 (see
# conv_native_e2e.py). Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/conv_native_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
