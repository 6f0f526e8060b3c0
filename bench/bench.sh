#!/usr/bin/env bash
# The benchmark in one command: creates the bench venv (bench/setup.sh),
# builds kilnc, kiln and libkilnrt.so, copies them out of bazel-bin (which
# changes under concurrent builds) and runs bench/run_bench.py on every model
# with Kiln, onnxruntime and OpenVINO at 1 and 2 threads. Arguments go to
# run_bench.py, e.g.
#
#   bench/bench.sh                       # everything (~8 min on 2 busy cores)
#   bench/bench.sh --quick               # fewer, shorter rounds
#   bench/bench.sh --models resnet50 bert_base
#
# Environment:
#   KILN_CACHE       venvs, Bazel disk cache, generated models (default ~/.cache/kiln)
#   KILN_BENCH_NO_BUILD=1  use the binaries already in bazel-bin
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kiln_cache="${KILN_CACHE:-$HOME/.cache/kiln}"
cd "$repo_root"

python="$(bench/setup.sh)"
if [[ "${KILN_BENCH_NO_BUILD:-0}" != 1 ]]; then
  bazel build --disk_cache="$kiln_cache/bazel-disk" //tools/kilnc //tools/kiln //runtime:libkilnrt.so
fi
bin="$(mktemp -d "${TMPDIR:-/tmp}/kiln-bench-bin.XXXXXX")"
trap 'rm -rf "$bin"' EXIT
cp bazel-bin/tools/kilnc/kilnc bazel-bin/tools/kiln/kiln bazel-bin/runtime/libkilnrt.so "$bin/"
"$python" bench/run_bench.py --kilnc "$bin/kilnc" --kiln "$bin/kiln" \
  --runtime-lib "$bin/libkilnrt.so" "$@"
