#!/usr/bin/env bash
# The README's first command: installs what is missing, builds Kiln, compiles
# the bundled example model (examples/models/tiny_classifier.onnx, a small
# CNN classifier) for this machine's CPU and runs it on a seeded random
# image, printing its outputs and the latency.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$repo_root"

"$repo_root/scripts/setup.sh"
bazel build "${bazel_flags[@]}" //tools/kilnc //tools/kiln

model="examples/models/tiny_classifier.onnx"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
echo "== kilnc $model -o tiny_classifier.kiln --cpu=native"
./bazel-bin/tools/kilnc/kilnc "$model" -o "$out/tiny_classifier.kiln" --time
echo "== kiln inspect"
./bazel-bin/tools/kiln/kiln inspect "$out/tiny_classifier.kiln"
echo "== kiln run (random image, seed 1)"
./bazel-bin/tools/kiln/kiln run "$out/tiny_classifier.kiln" --seed 1 \
  --output-dir "$out/outputs"
echo "== kiln bench"
./bazel-bin/tools/kiln/kiln bench "$out/tiny_classifier.kiln" --iterations 200 --warmup 20
