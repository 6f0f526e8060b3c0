#!/usr/bin/env bash
# Bazel test //tests/e2e:channels_last_e2e: fp32 conv chains run channels
# last (kiln-channels-last; odd channels and planes, stride 2 with
# dilation, asymmetric pads, residual adds, batch 2) for the host,
# x86-64-v4, x86-64-v3 and loop order, and channels first as a control,
# must match onnxruntime (see channels_last_e2e.py). Arguments: KILNC KILN
# SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/channels_last_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
