#!/usr/bin/env bash
# Bazel test //examples/custom_op:doc_test (see custom_op_doc_test.py): runs
# from the runfiles root, where the sources and built files the page uses are.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/venv_python.sh"
exec "$python" examples/custom_op/custom_op_doc_test.py --doc docs/custom-ops.md --root .
