#!/usr/bin/env bash
# Bazel test //examples/custom_pass:custom_pass_test (see custom_pass_test.py).
# Arguments: KILNC KILN PLUGIN SCRIPT MAKE_MODEL COMPARE_WITH_ORT.
set -euo pipefail
kilnc="$1" kiln="$2" plugin="$3" script="$4" make_model="$5" compare="$6"

source "$(dirname "${BASH_SOURCE[0]}")/../../tests/venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/custom_pass"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --plugin "$plugin" \
  --make-model "$make_model" --compare-with-ort "$compare" --workdir "$workdir"
