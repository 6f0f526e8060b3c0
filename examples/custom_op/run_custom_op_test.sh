#!/usr/bin/env bash
# Bazel test //examples/custom_op:custom_op_test (see custom_op_test.py).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/venv_python.sh"
exec "$python" examples/custom_op/custom_op_test.py "$@"
