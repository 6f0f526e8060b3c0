//===- CpuTarget.cpp - Resolving --cpu ------------------------------------===//
#include "compiler/targets/cpu/CpuTarget.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

namespace mlir::kiln::cpu {

namespace {

// Features the runtime can check on the host (runtime/src/cpu_features).
const char *kCheckable[] = {"sse4.2", "avx",      "avx2",     "fma",
                            "f16c",   "bmi2",     "avx512f",  "avx512bw",
                            "avx512vl", "avx512dq", "avx512vnni",
                            "avxvnni",  "avx512bf16", "avx512fp16",
                            "amx-tile", "amx-bf16", "amx-int8"};

} // namespace

std::string TargetChoice::isaName() const {
  return vectorBits >= 512 ? "avx512" : vectorBits >= 256 ? "avx2" : "sse";
}

const llvm::Target *x86Target(std::string &error) {
  static bool initialized = [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    return true;
  }();
  (void)initialized;
  return llvm::TargetRegistry::lookupTarget(llvm::Triple(kX86Triple), error);
}

FailureOr<TargetChoice> resolveTarget(const std::string &cpu,
                                      std::string &error) {
  const llvm::Target *target = x86Target(error);
  if (!target)
    return failure();
  TargetChoice choice;
  if (cpu == "native") {
    choice.cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    std::vector<std::string> names;
    for (auto &entry : host)
      names.push_back((entry.second ? "+" : "-") + entry.first().str());
    llvm::sort(names);
    for (const std::string &name : names)
      choice.features += (choice.features.empty() ? "" : ",") + name;
  } else {
    choice.cpu = cpu;
  }
  llvm::Triple triple(kX86Triple);
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, choice.cpu, choice.features));
  if (!info || !info->isCPUStringValid(choice.cpu)) {
    error = "unknown CPU '" + cpu +
            "' (use native, x86-64-v3, x86-64-v4 or an LLVM x86 CPU name "
            "such as skylake-avx512 or znver4)";
    return failure();
  }
  for (const char *feature : kCheckable)
    if (info->checkFeatures(std::string("+") + feature))
      choice.required.push_back(feature);
  if (info->checkFeatures("+avx512f")) {
    choice.vectorBits = 512;
    choice.vectorRegisters = 32;
  } else if (info->checkFeatures("+avx2")) {
    choice.vectorBits = 256;
  }
  choice.hasFma = info->checkFeatures("+fma");
  // vpdpbusd: EVEX with AVX-512 (zmm), VEX with AVX-VNNI (ymm).
  choice.hasVnni = choice.vectorBits >= 512
                       ? info->checkFeatures("+avx512vnni")
                       : info->checkFeatures("+avxvnni");
  choice.hasBf16Dot =
      choice.vectorBits >= 512 && info->checkFeatures("+avx512bf16");
  // The AMX Xeons (Sapphire Rapids class) run vdpbf16ps at well under the
  // FMA's rate: 16 independent zmm chains measured 1.68 G instructions/s
  // against vfmadd231ps's 6.71 (54 against 107 G multiply-adds/s; its
  // vpdpbusd ran at the FMA's 6.72), so
  // the bf16 contractions the tile unit does not take are faster widened
  // to f32 on load. Zen 4 and 5 (AVX512-BF16 without AMX) keep it.
  choice.prefersBf16Dot =
      choice.hasBf16Dot && !info->checkFeatures("+amx-bf16");
  choice.hasFp16Arith = info->checkFeatures("+avx512fp16");
  choice.hasBf16Convert = info->checkFeatures("+avx512bf16,+avx512vl");
  // The AMX kernels' epilogues and edges use AVX-512 code.
  choice.hasAmxBf16 = choice.vectorBits >= 512 &&
                      info->checkFeatures("+amx-tile,+amx-bf16");
  choice.hasAmxInt8 = choice.vectorBits >= 512 &&
                      info->checkFeatures("+amx-tile,+amx-int8");
  return choice;
}

} // namespace mlir::kiln::cpu
