#!/usr/bin/env bash
# The README's first command: installs what is missing, builds Kiln and runs
# the bundled example. Until the ONNX frontend and the CPU back end land,
# the example is a Kiln graph (examples/graphs/attention_block.mlir) that
# kiln-opt verifies and cleans up; the optimized IR is printed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$repo_root"

"$repo_root/scripts/setup.sh"
bazel build "${bazel_flags[@]}" //tools/kiln-opt

example="examples/graphs/attention_block.mlir"
echo "== $example before: $(grep -c ' = kiln\.' "$example") Kiln ops"
optimized="$(./bazel-bin/tools/kiln-opt/kiln-opt --kiln-graph-cleanup "$example")"
echo "== after kiln-graph-cleanup: $(grep -c ' = kiln\.' <<<"$optimized") Kiln ops"
echo "$optimized"
