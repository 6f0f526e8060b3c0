//===- CudaArch.cpp - --cuda-arch values and the CUDA toolkit -------------===//
#include "compiler/targets/cuda/CudaArch.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Process.h"

namespace mlir::kiln::cuda {

namespace {

// sm_75 (Turing) is the oldest architecture CUDA 13's ptxas still builds
// for; the "a" variants are the arch-specific feature sets of Hopper and
// Blackwell.
constexpr const char *kKnownArchs[] = {
    "sm_75",  "sm_80",   "sm_86",  "sm_87",   "sm_89",  "sm_90",
    "sm_90a", "sm_100",  "sm_100a", "sm_103", "sm_110", "sm_120",
    "sm_121"};

unsigned archNumber(StringRef arch) {
  unsigned number = 0;
  arch.drop_front(3).take_while(llvm::isDigit).getAsInteger(10, number);
  return number;
}

} // namespace

std::optional<std::vector<std::string>> parseArchList(StringRef list,
                                                      std::string &error) {
  std::vector<std::string> archs;
  SmallVector<StringRef> parts;
  list.split(parts, ',');
  for (StringRef part : parts) {
    StringRef arch = part.trim();
    if (!llvm::is_contained(kKnownArchs, arch)) {
      error = "unknown --cuda-arch '" + arch.str() + "' (expected one or more of";
      for (const char *known : kKnownArchs)
        error += std::string(" ") + known;
      error += ", comma-separated)";
      return std::nullopt;
    }
    if (!llvm::is_contained(archs, arch))
      archs.push_back(arch.str());
  }
  return archs;
}

std::string ptxChip(const std::vector<std::string> &archs) {
  std::string lowest = archs.front();
  for (const std::string &arch : archs)
    if (archNumber(arch) < archNumber(lowest))
      lowest = arch;
  return lowest;
}

std::optional<CudaToolkit> findCudaToolkit(std::string &error) {
  const std::string need = "--target=cuda needs ptxas from the CUDA toolkit "
                           "(12 or newer) to build cubins; ";
  auto ptxasUnder = [](StringRef root) {
    SmallString<256> ptxas(root);
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    return std::string(ptxas);
  };
  // An explicit CUDA_PATH is the only place looked at.
  if (std::optional<std::string> env =
          llvm::sys::Process::GetEnv("CUDA_PATH")) {
    std::string ptxas = ptxasUnder(*env);
    if (llvm::sys::fs::can_execute(ptxas))
      return CudaToolkit{*env, ptxas};
    error = need + "CUDA_PATH is '" + *env + "' but " + ptxas +
            " is missing or not executable";
    return std::nullopt;
  }
  const std::string defaultRoot = "/usr/local/cuda";
  std::string ptxas = ptxasUnder(defaultRoot);
  if (llvm::sys::fs::can_execute(ptxas))
    return CudaToolkit{defaultRoot, ptxas};
  if (llvm::ErrorOr<std::string> onPath =
          llvm::sys::findProgramByName("ptxas")) {
    // <root>/bin/ptxas
    StringRef root =
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(*onPath));
    return CudaToolkit{root.str(), *onPath};
  }
  error = need + "not found at " + ptxas +
          " nor on PATH (install the toolkit or set CUDA_PATH to its root)";
  return std::nullopt;
}

} // namespace mlir::kiln::cuda
