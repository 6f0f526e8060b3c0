#!/usr/bin/env bash
# Single-convolution figures at 1 thread (printed, never a test): Kiln
# fp32 / bf16 / int8 against onnxruntime fp32 / int8 on resnet50-shaped
# convs (bench/conv_kernels.py). Builds the tools first; arguments go to
# conv_kernels.py (--cases NAME..., --iterations N).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/common.sh
bazel build "${bazel_flags[@]}" //tools/kilnc //tools/kiln >&2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Copies: bazel-bin changes under concurrent builds.
for tool in kilnc kiln; do cp "bazel-bin/tools/$tool/$tool" "$work/"; done
"$kiln_python" bench/conv_kernels.py --kilnc "$work/kilnc" --kiln "$work/kiln" "$@"
