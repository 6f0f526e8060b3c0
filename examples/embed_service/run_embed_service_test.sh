#!/usr/bin/env bash
# Bazel test //examples/embed_service:embed_service_test: writes the
# reference (seeded inputs, onnxruntime's outputs) with the test venv, then
# runs the C++ test that starts kiln-embed-service and drives it.
# Arguments: SERVICE MODEL.kiln MODEL.onnx MAKE_REFERENCE.py TEST_BINARY QUICKSTART.
set -euo pipefail
service="$1" model="$2" onnx_model="$3" make_reference="$4" test_binary="$5" quickstart="$6"

source "$(dirname "${BASH_SOURCE[0]}")/../../tests/venv_python.sh"
reference="${TEST_TMPDIR:-$(mktemp -d)}/reference.json"
"$python" "$make_reference" "$onnx_model" "$reference"
exec "$test_binary" --service="$service" --model="$model" --reference="$reference" \
  --quickstart="$quickstart"
