#!/usr/bin/env bash
# Bazel test //examples/c_api:c_api_example_test (see c_api_example_test.py).
# Arguments: EXAMPLE MODEL.kiln MODEL.onnx SCRIPT.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/c_api_example"
exec "$python" "$4" --example "$1" --artifact "$2" --onnx "$3" --workdir "$workdir"
