#!/usr/bin/env bash
# device_check.sh - issue #9's check on a machine with an NVIDIA GPU and no
# internet. Two phases:
#
#   tests/gpu/device_check.sh prepare   on a CPU machine with the Python venv
#       (~/.cache/kiln/venv: onnx, onnxruntime, numpy) and the CUDA toolkit's
#       ptxas: builds kilnc, kiln and cublas_gemm_bench (Bazel, offline),
#       writes the models, their seeded inputs and onnxruntime's outputs, and
#       compiles every model with kilnc --target=cuda into tests/gpu/data/
#       (git-ignored, tens of MB: carried to the GPU machine with the working
#       tree, never committed), with the kiln and cublas_gemm_bench binaries
#       in tests/gpu/data/bin (they need only libc and libstdc++).
#   tests/gpu/device_check.sh [run]     on the GPU machine:
#       0. "no GPU: ..." and exit 2 when there is no NVIDIA driver or GPU;
#       1. the tools: the carried binaries, or (when missing and Bazel with
#          its cache is there) built offline;
#       2. every model kilnc compiled: kiln run --device=cuda on the carried
#          inputs, outputs compared with onnxruntime's (|d| <= 1e-3 + 1e-3 |ref|);
#          models kilnc could not compile for cuda are listed with its error;
#       3. latency at batch 1 and 8: kiln bench --device=cuda (p50);
#       4. GEMM TFLOP/s: Kiln's plan (kiln bench on an N x N x N MatMul
#          artifact, 2 N^3 / p50) next to cuBLASLt called directly
#          (cublas_gemm_bench, same f32 compute, no TF32).
#
# Every step runs under `timeout`; nothing waits forever. Exit status: 0
# when every compiled model matches, 1 on a mismatch or a failed step, 2
# without a GPU or without prepared data.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
data=tests/gpu/data
phase="${1:-run}"

if [[ "$phase" == "prepare" ]]; then
  set -e
  source scripts/common.sh
  timeout 3000 bazel build "${bazel_flags[@]}" //tools/kilnc //tools/kiln //tests/gpu:cublas_gemm_bench
  timeout 1800 "$kiln_python" tests/gpu/prepare_device_check.py --kilnc bazel-bin/tools/kilnc/kilnc \
    --out "$data" ${KILN_CUDA_ARCH:+--cuda-arch "$KILN_CUDA_ARCH"}
  mkdir -p "$data/bin"
  cp bazel-bin/tools/kiln/kiln bazel-bin/tests/gpu/cublas_gemm_bench "$data/bin/"
  chmod u+w "$data/bin/"*
  du -sh "$data"
  exit 0
elif [[ "$phase" != "run" ]]; then
  echo "usage: tests/gpu/device_check.sh [prepare|run]" >&2
  exit 2
fi

# --- 0. A GPU? ---
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' && \
   ! ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 /usr/local/nvidia/lib64/libcuda.so.1 >/dev/null 2>&1; then
  echo "device_check: no GPU: the NVIDIA driver (libcuda.so.1) is not installed on this machine;" \
       "run this script on a machine with an NVIDIA GPU (the CPU-only tests are ./scripts/test.sh)"
  exit 2
fi
if command -v nvidia-smi >/dev/null; then
  timeout 30 nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader \
    || echo "device_check: nvidia-smi failed (continuing; the runtime reports what the driver says)"
fi

if [[ ! -f "$data/manifest.json" ]]; then
  echo "device_check: no prepared data in $data; run 'tests/gpu/device_check.sh prepare' on a CPU" \
       "machine with the venv first and carry $data"
  exit 2
fi

py="$(command -v python3 || true)"

# --- 1. Tools ---
kiln="$data/bin/kiln"
gemm_bench="$data/bin/cublas_gemm_bench"
if [[ ! -x "$kiln" || ! -x "$gemm_bench" ]]; then
  if command -v bazel >/dev/null; then
    source scripts/common.sh
    timeout 1800 bazel build "${bazel_flags[@]}" //tools/kiln //tests/gpu:cublas_gemm_bench || exit 1
    kiln=bazel-bin/tools/kiln/kiln
    gemm_bench=bazel-bin/tests/gpu/cublas_gemm_bench
  else
    echo "device_check: no kiln binary in $data/bin and no bazel to build one"
    exit 2
  fi
fi
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The runtime's view of the GPU (and a first clear error if it has none).
if ! timeout 60 "$gemm_bench" 256 3 >/tmp/device_check_probe.txt 2>&1; then
  echo "device_check: $(cat /tmp/device_check_probe.txt)"
  if grep -q "no CUDA GPU\|no CUDA driver" /tmp/device_check_probe.txt; then exit 2; fi
  fail "cuBLASLt probe"
fi

if [[ -z "$py" ]]; then
  echo "device_check: python3 is needed to read $data/manifest.json and compare outputs"
  exit 2
fi
# One line per model: name, group, batch, check, artifact ("-" when kilnc
# failed) and kilnc's error ("-" when none), tab-separated.
models=$("$py" -c 'import json,sys; [print("\t".join([m["name"], m["group"], str(m["batch"]), str(int(m["check"])), m.get("artifact") or "-", m.get("compile_error") or "-"])) for m in json.load(open(sys.argv[1]))["models"]]' "$data/manifest.json")

# --- 2. Correctness ---
echo "== outputs against onnxruntime (kiln run --device=cuda)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
while IFS=$'\t' read -r name group batch check artifact compile_error; do
  if [[ "$artifact" == "-" ]]; then
    echo "  $name: not compiled for cuda (kilnc: $compile_error)"
    continue
  fi
  [[ "$check" == 1 ]] || continue
  args=()
  while read -r input file; do args+=(--input "$input=$data/$file"); done < <(
    "$py" -c 'import json,sys; m=next(x for x in json.load(open(sys.argv[1]))["models"] if x["name"]==sys.argv[2]); [print(k, v) for k, v in m["inputs"].items()]' "$data/manifest.json" "$name")
  if ! timeout 300 "$kiln" run "$data/$artifact" --device=cuda "${args[@]}" --output-dir "$out/$name" \
       >"$out/$name.log" 2>&1; then
    fail "$name: kiln run --device=cuda: $(tail -1 "$out/$name.log")"
    continue
  fi
  timeout 300 "$py" tests/gpu/compare_outputs.py "$data" "$name" "$out/$name" || fail "$name: outputs differ"
done <<<"$models"

# --- 3. Latency at batch 1 and 8 ---
echo "== latency (kiln bench --device=cuda, p50 ms)"
while IFS=$'\t' read -r name group batch check artifact compile_error; do
  [[ "$artifact" != "-" ]] || continue
  [[ "$group" == gemm_* ]] && continue
  if timeout 300 "$kiln" bench "$data/$artifact" --device=cuda --iterations 100 --warmup 10 \
       >"$out/$name.bench" 2>&1; then
    p50=$(sed -n 's/^latency ms: p50 \([0-9.]*\).*/\1/p' "$out/$name.bench")
    echo "  $group batch $batch: p50 $p50 ms ($(sed -n 's/^device: //p' "$out/$name.bench"))"
  else
    fail "$name: kiln bench --device=cuda: $(tail -1 "$out/$name.bench")"
  fi
done <<<"$models"

# --- 4. GEMM TFLOP/s: Kiln's plan vs cuBLASLt ---
echo "== GEMM f32 TFLOP/s (2 N^3 / p50)"
while IFS=$'\t' read -r name group batch check artifact compile_error; do
  [[ "$group" == gemm_* ]] || continue
  n="${group#gemm_}"
  if [[ "$artifact" != "-" ]]; then
    if timeout 300 "$kiln" bench "$data/$artifact" --device=cuda --iterations 30 --warmup 5 \
         >"$out/$name.bench" 2>&1; then
      p50=$(sed -n 's/^latency ms: p50 \([0-9.]*\).*/\1/p' "$out/$name.bench")
      tflops=$(awk -v n="$n" -v ms="$p50" 'BEGIN { printf "%.2f", 2 * n * n * n / (ms * 1e-3) / 1e12 }')
      echo "  Kiln plan N=$n: $p50 ms, $tflops TFLOP/s (includes copying A and B in and D out)"
    else
      fail "$name: kiln bench --device=cuda: $(tail -1 "$out/$name.bench")"
    fi
  else
    echo "  Kiln plan N=$n: not compiled for cuda (kilnc: $compile_error)"
  fi
  timeout 300 "$gemm_bench" "$n" 30 | sed 's/^/  /' || fail "cublas_gemm_bench $n"
done <<<"$models"

if ((failures > 0)); then
  echo "device_check: $failures failure(s)"
  exit 1
fi
echo "device_check: all compiled models match onnxruntime"
