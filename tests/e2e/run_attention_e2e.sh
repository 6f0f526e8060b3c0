#!/usr/bin/env bash
# Bazel test //tests/e2e:attention_e2e: attention chains of the TorchScript
# and dynamo exporters (padding, 2-D and causal masks, odd shapes, Sk = 1,
# a shared softmax that must not fuse) as one online-softmax kernel on the
# host, x86-64-v4 and x86-64-v3, and unfused, against onnxruntime (see
# attention_e2e.py).
# Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/attention_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
