#!/usr/bin/env bash
# Bazel test //tests/onnx:fuzz_kilnc. Arguments: KILNC FUZZ_SCRIPT.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
failing_cases="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}/fuzz_cases"
exec "$python" "$2" --kilnc "$1" --cases 300 --keep "$failing_cases"
