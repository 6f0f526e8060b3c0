#!/usr/bin/env bash
# Bazel tests //tests/conformance:onnx_node_tests and :onnx_model_tests: run
# the ONNX backend tests shipped in the venv's onnx package
# (onnx/backend/test/data/FOLDER) through kilnc and kiln (numeric comparison
# with the expected outputs), one runner call per folder, and fail when a
# test listed in that folder's pass list does not pass.
# Arguments: KILNC KILN RUNNER EXPECT_ORT_LIST FOLDER PASS_LIST [FOLDER PASS_LIST ...]
set -euo pipefail
kilnc="$1" kiln="$2" runner="$3" expect_ort="$4"
shift 4

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
data_dir="$("$python" -c 'import onnx, os; print(os.path.join(os.path.dirname(onnx.__file__), "backend/test/data"))')"
out_dir="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}"
status=0
while (($# >= 2)); do
  folder="$1" pass_list="$2"
  shift 2
  if [[ ! -d "$data_dir/$folder" ]]; then
    echo "onnx backend tests: FAIL: no ONNX test data at '$data_dir/$folder'" >&2
    exit 1
  fi
  echo "=== $folder ($pass_list)"
  "$python" "$runner" "$data_dir/$folder" --kilnc "$kilnc" --kiln "$kiln" \
    --expect-pass "$pass_list" --expect-ort "$expect_ort" --jobs 2 --timeout 120 \
    --report "$out_dir/onnx_${folder}_tests.tsv" || status=1
done
exit "$status"
