#!/usr/bin/env bash
# GEMM figures at 1 thread (printed, never a test): an N^3 matmul with
# constant weights in fp32 and bf16 (kilnc + `kiln bench`, whole artifact)
# and the int8 register-tile kernels (kiln-opt --kiln-cpu-codegen, linked
# into a shared object and timed through the kernel ABI by
# tests/lit/codegen's run_int8_kernels, which also checks the result):
# vpdpbusd (VNNI), vpmaddwd on AVX-512 and on AVX2, the convert path, and
# B packed in panels by the kernel (a computed B, as in a convolution).
#
#   bench/gemm_kernels.sh [N]        (default 1024; builds the tools first)
#
# GFLOP/s and GOPS are 2 N^3 / time. Compare with the machine's FMA peak
# (f32: 2 x 16 lanes x 2 FMA pipes x GHz on AVX-512; vpdpbusd does 4x the
# operations of an FMA per instruction, vdpbf16ps 2x).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/common.sh
n="${1:-1024}"
bazel build "${bazel_flags[@]}" //tools/kilnc //tools/kiln //tools/kiln-opt \
  //tests/lit/codegen:run_int8_kernels >&2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for tool in kilnc kiln kiln-opt; do cp "bazel-bin/tools/$tool/$tool" "$work/"; done
cp bazel-bin/tests/lit/codegen/run_int8_kernels "$work/"
llvm=/usr/lib/llvm-22/bin
"$kiln_python" bench/make_gemm_kernels.py "$work" --size "$n"
echo "ISA: $(grep -o -w -E 'avx512f|avx512_vnni|avx_vnni|avx512_bf16|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (figures on a shared machine are low and noisy)"
flops=$((2 * n * n * n))
bench() { # name, kilnc flags...
  local name="$1"; shift
  "$work/kilnc" "$work/gemm_f32.onnx" -o "$work/$name.kiln" "$@"
  local ms
  ms=$("$work/kiln" bench "$work/$name.kiln" --threads 1 --iterations 20 --warmup 3 |
       sed -n 's/.*p50 \([0-9.]*\).*/\1/p')
  echo "$name: p50 $ms ms, $(awk -v f=$flops -v ms="$ms" 'BEGIN{printf "%.1f", f / ms * 1e-6}') GFLOP/s (1 thread)"
}
bench fp32
bench bf16-native --precision=bf16
# The convert path is AVX-512 code (x86-64-v4), which only such a CPU runs.
if grep -q -w avx512f /proc/cpuinfo; then
  bench bf16-convert --precision=bf16 --cpu=x86-64-v4
fi
int8() { # file, cpu, kernels...
  local file="$1" cpu="$2"; shift 2
  local llc_cpu="$cpu"
  [[ "$cpu" == native ]] && llc_cpu="$("$llvm/llc" --version | sed -n 's/.*Host CPU: //p')"
  "$work/kiln-opt" --kiln-cpu-codegen=cpu="$cpu" "$work/$file" |
    "$llvm/mlir-translate" --mlir-to-llvmir -o "$work/int8.$cpu.ll"
  "$llvm/llc" -O3 -mcpu="$llc_cpu" -relocation-model=pic -filetype=obj \
    "$work/int8.$cpu.ll" -o "$work/int8.$cpu.o"
  "$llvm/ld.lld" -shared "$work/int8.$cpu.o" -o "$work/int8.$cpu.so"
  local specs=()
  # `panel` takes `plain`'s operands (B unpacked).
  for kernel in "$@"; do specs+=("$kernel:${kernel/panel/plain}:$n:$n:$n"); done
  "$work/run_int8_kernels" --repeat 20 "$work/int8.$cpu.so" "${specs[@]}" |
    sed -n "s/^\([a-z]*\): \(.*GOPS.*\)/int8 \1 ($cpu): \2/p"
}
if grep -q -E 'avx512_vnni|avx_vnni' /proc/cpuinfo; then
  int8 gemm_int8.mlir native quad pair plain panel
fi
int8 gemm_int8_avx2.mlir x86-64-v3 pair plain panel
