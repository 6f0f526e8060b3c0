#!/usr/bin/env bash
# Bazel test //tests/models:real_models_e2e: every real-architecture model
# compiled by kilnc and run by kiln must match onnxruntime within
# atol 1e-3 + rtol 1e-2 (see real_models_e2e.py).
# Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/real_models"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir"
