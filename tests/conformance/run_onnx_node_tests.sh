#!/usr/bin/env bash
# Bazel test //tests/conformance:onnx_node_tests: runs the ONNX backend node
# tests shipped in the venv's onnx package through kilnc and kiln (numeric
# comparison with the expected outputs), and fails when a test listed in
# onnx_node_tests_passing.txt does not pass.
# Arguments: KILNC KILN RUNNER PASS_LIST.
set -euo pipefail
kilnc="$1" kiln="$2" runner="$3" pass_list="$4"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
node_dir="$("$python" -c 'import onnx, os; print(os.path.join(os.path.dirname(onnx.__file__), "backend/test/data/node"))')"
if [[ ! -d "$node_dir" ]]; then
  echo "onnx_node_tests: FAIL: no ONNX node test data at '$node_dir'" >&2
  exit 1
fi
report="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}/onnx_node_tests.tsv"
exec "$python" "$runner" "$node_dir" --kilnc "$kilnc" --kiln "$kiln" \
  --expect-pass "$pass_list" --jobs 2 --timeout 120 --report "$report"
