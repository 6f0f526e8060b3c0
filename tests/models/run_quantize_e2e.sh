#!/usr/bin/env bash
# Bazel test //tests/models:quantize_e2e: kilnc --quantize=int8 calibrated
# on 16 generated samples must reach cosine similarity >= 0.99 against the
# fp32 model in onnxruntime on other inputs, for the ResNet-18-style and
# MobileNetV2 CNNs and the BERT encoder (see quantize_e2e.py); the BERT
# encoder is compiled twice and must give a byte-identical artifact.
# Arguments: KILNC KILN SCRIPT.
set -euo pipefail
kilnc="$1" kiln="$2" script="$3"

source "$(dirname "${BASH_SOURCE[0]}")/../venv_python.sh"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/quantize"
exec "$python" "$script" --kilnc "$kilnc" --kiln "$kiln" --workdir "$workdir" \
  --check-determinism bert_encoder.onnx
