#!/usr/bin/env bash
# Bazel test //tests/models:pretrained_accuracy: PaddleOCR's text-direction
# classifier and text recognizer (bundled by the pinned PyPI package
# rapidocr-onnxruntime) on rendered text: Kiln fp32 against onnxruntime,
# bf16/fp16 (and int8 when kilnc has --quantize) via kiln compare (see
# pretrained_accuracy.py). Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/pretrained"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir" \
  --json "${TEST_UNDECLARED_OUTPUTS_DIR:-$workdir}/pretrained_accuracy.json"
