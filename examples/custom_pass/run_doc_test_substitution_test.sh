#!/usr/bin/env bash
# Bazel test //examples/custom_pass:doc_test_substitution_test (see
# doc_test_substitution_test.py).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/venv_python.sh"
exec "$python" examples/custom_pass/doc_test_substitution_test.py
