#!/usr/bin/env bash
# Bazel test //tests/e2e:narrow_conv_e2e: narrow fp32 K x K conv chains
# (1-63 output channels, strides 1-3, dilation 2, asymmetric and no pads, a
# one-row plane, batch 2) built for the host, x86-64-v4 and x86-64-v3 (row
# gathers, gather_b = "rows", where worthGatheringRows says so) and for loop
# order must match onnxruntime (see narrow_conv_e2e.py). Arguments: KILNC
# KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/narrow_conv_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
