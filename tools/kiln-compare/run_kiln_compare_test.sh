#!/usr/bin/env bash
# Bazel test //tools/kiln-compare:kiln_compare_test (see kiln_compare_test.py).
# Arguments: TOOL TEST MODEL KILNC KILN.
set -euo pipefail
tool="$1" test="$2" model="$3" kilnc="$4" kiln="$5"
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/kiln_compare"
exec "$python" "$test" "$tool" "$model" "$kilnc" "$kiln" "$workdir"
