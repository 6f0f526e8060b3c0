#!/usr/bin/env bash
# Bazel test //tests/e2e:depthwise_e2e: int8 depthwise convs from
# onnxruntime's quantize_static compiled for the vpdpbusd / vpmaddwd
# depthwise tiles (native, x86-64-v4, x86-64-v3) and loop order must stay
# within one unit of the output scale of onnxruntime on the same model
# (see depthwise_e2e.py). Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/depthwise_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
