#!/usr/bin/env bash
# Bazel test //tests/paddle:op_conformance: gen_op_models.py writes one small
# Paddle model per converter case in both forms (PIR JSON and legacy
# .pdmodel) with Paddle Inference's outputs; op_conformance.py compiles each
# with kilnc, runs it with kiln and compares (see op_conformance.py).
# Arguments: KILNC KILN OP_CONFORMANCE.PY
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
source "$(dirname "${BASH_SOURCE[0]}")/paddle_available.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/paddle_ops"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
