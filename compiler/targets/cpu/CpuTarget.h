//===- CpuTarget.h - The x86-64 CPU a kernel is generated for ---*- C++ -*-===//
//
// `--cpu` resolves to an LLVM CPU name plus feature string (for code
// generation), the ISA features the runtime checks before loading, and the
// few numbers the lowering configurations are chosen from: vector width
// and vector register count.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_CPUTARGET_H
#define KILN_COMPILER_TARGETS_CPU_CPUTARGET_H

#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace llvm {
class Target;
} // namespace llvm

namespace mlir::kiln::cpu {

struct TargetChoice {
  std::string cpu;                       // resolved LLVM CPU name
  std::string features;                  // LLVM feature string (+a,-b)
  std::vector<std::string> required;     // runtime-checkable ISA features
  // What the kernels are shaped for: 512-bit vectors and 32 registers with
  // AVX-512, 256 and 16 with AVX2, 128 and 16 below.
  int64_t vectorBits = 128;
  int64_t vectorRegisters = 16;
  bool hasFma = false;
  // Native low-precision dot products the contraction kernels use:
  // vpdpbusd (u8 x s8 quads summed into i32 lanes) at the vector width
  // above (AVX512-VNNI for 512 bits, AVX-VNNI for 256), and vdpbf16ps
  // (bf16 pairs summed into f32 lanes; AVX512-BF16, 512-bit only here).
  bool hasVnni = false;
  bool hasBf16Dot = false;
  // Whether the backend chooses vdpbf16ps (packing bf16 weights and
  // computed panels in K pairs) where it has it; false where the
  // instruction is slower than widening to f32 and FMAs (CpuTarget.cpp).
  // A contraction whose B is already in pairs still runs it.
  bool prefersBf16Dot = false;
  // Native f16 arithmetic (AVX512-FP16: vaddph, vfmadd231ph, ...). Without
  // it, f16 values are only stored in 16 bits and computed in f32
  // (HalfArithmetic.h).
  bool hasFp16Arith = false;
  // Native f32 -> bf16 rounding (AVX512-BF16 with VL: vcvtneps2bf16 on
  // xmm/ymm/zmm, round to nearest even). Without it, every bf16 rounding
  // (contraction epilogues, casts, widened 16-bit chains) is an integer
  // emulation of about six vector instructions.
  bool hasBf16Convert = false;
  // AMX tile matrix multiplies (Sapphire Rapids and later): tdpbf16ps
  // (16x32 bf16 by 32x16 bf16 into a 16x16 f32 tile) and tdpbssd (s8 by
  // s8 quads into i32), eight 1 KiB tile registers (AmxKernel.h). The
  // runtime asks the OS for the tile state before running such kernels.
  bool hasAmxBf16 = false;
  bool hasAmxInt8 = false;

  int64_t f32Lanes() const { return vectorBits / 32; }
  // Rows of the default f32 register tile: 8 x 2 accumulators of 32 zmm,
  // 6 x 2 of 16 ymm (LoweringConfig; DataTiling's row panels match it).
  int64_t f32TileRows() const { return vectorRegisters >= 32 ? 8 : 6; }
  // "avx512", "avx2" or "sse" (for dumps and lit tests).
  std::string isaName() const;
};

// Resolves `--cpu`: "native" (this machine's CPU and features),
// "x86-64-v3", "x86-64-v4" or any CPU name LLVM's X86 target knows.
FailureOr<TargetChoice> resolveTarget(const std::string &cpu,
                                      std::string &error);

// LLVM's X86 target, initialized once.
const llvm::Target *x86Target(std::string &error);

inline constexpr const char *kX86Triple = "x86_64-unknown-linux-gnu";

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_CPUTARGET_H
