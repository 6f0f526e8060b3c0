#!/usr/bin/env bash
# Bazel test //tests/e2e:transpose_e2e: transposes that move the innermost
# dim as 16 x 16 register blocks (TransposeKernel.h), odd shapes and int32
# included, on the host, x86-64-v4 and x86-64-v3, exactly equal to numpy's
# transpose (see transpose_e2e.py).
# Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/transpose_e2e"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
