//===- ObjectEmitter.cpp - LLVM dialect kernels to a shared object --------===//
//
// The object is linked by LLD as a library, not by spawning a linker: the
// compiler works on machines without binutils and stays deterministic
// (no build ids, no time stamps).
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cpu/ObjectEmitter.h"

#include "lld/Common/Driver.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

LLD_HAS_DRIVER(elf)

namespace mlir::kiln::cpu {

FailureOr<std::vector<uint8_t>> emitSharedObject(ModuleOp module,
                                                 const TargetChoice &choice,
                                                 std::string &error) {
  const llvm::Target *target = x86Target(error);
  if (!target)
    return failure();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "kiln_kernels");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return failure();
  }
  llvm::Triple triple(kX86Triple);
  llvm::TargetOptions options;
  // a * b + c may become one FMA (as onnxruntime's kernels do).
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, choice.cpu, choice.features, options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine) {
    error = "cannot create a target machine for " + choice.cpu;
    return failure();
  }
  // The runtime refuses a kernel library that exports anything but the
  // query (runtime/src/elf_inspect.h); helpers that conversions add (e.g.
  // integer powers) would otherwise be exported.
  for (llvm::GlobalValue &value : llvmModule->global_values())
    if (!value.isDeclaration() && value.getName() != "kiln_cpu_library_query")
      value.setLinkage(llvm::GlobalValue::InternalLinkage);
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  // The per-function subtarget must match the machine's, or the inliner and
  // the vectorizer fall back to the generic x86-64 feature set.
  for (llvm::Function &fn : *llvmModule) {
    if (fn.isDeclaration())
      continue;
    fn.addFnAttr("target-cpu", choice.cpu);
    if (!choice.features.empty())
      fn.addFnAttr("target-features", choice.features);
    // LLVM tunes the AVX-512 Xeons (Skylake-SP to Sapphire Rapids) to
    // vectorize with 256-bit vectors, for the frequency cost of zmm code
    // that these kernels pay anyway: every register-tiled contraction is
    // zmm FMAs. Loop-order code (softmax, layer norm, elementwise, the
    // LSTM's gates) then ran at half the width; with 512 bits the bench
    // models ran 0.84x (lstm) to 0.996x (resnet18_style) of their CPU
    // time, none slower (Sapphire Rapids, paired, 1 thread).
    if (choice.vectorBits >= 512)
      fn.addFnAttr("prefer-vector-width", "512");
  }
  auto optimize = makeOptimizingTransformer(3, 0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get())) {
    error = llvm::toString(std::move(err));
    return failure();
  }

  llvm::SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream stream(object);
    llvm::legacy::PassManager passes;
    if (machine->addPassesToEmitFile(passes, stream, nullptr,
                                     llvm::CodeGenFileType::ObjectFile)) {
      error = "the target cannot emit object files";
      return failure();
    }
    passes.run(*llvmModule);
  }

  // LLD reads and writes files; use a private temporary directory.
  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("kilnc-link", dir)) {
    error = "cannot create a temporary directory: " + ec.message();
    return failure();
  }
  std::string objectPath = (dir + "/kernels.o").str();
  std::string libraryPath = (dir + "/kernels.so").str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(objectPath, ec);
    if (ec) {
      error = "cannot write " + objectPath + ": " + ec.message();
      return failure();
    }
    out.write(object.data(), object.size());
  }
  std::string out, err;
  llvm::raw_string_ostream outStream(out), errStream(err);
  // No libraries: the runtime refuses kernel objects with dependencies
  // (DT_NEEDED). The few library calls LLVM emits (fmodf for scalar frem,
  // memcpy/memset) stay undefined and resolve against the C library the
  // process already has loaded.
  std::vector<const char *> args = {
      "ld.lld",   "-shared", "--hash-style=gnu", "-O2", "--gc-sections",
      "--build-id=none", "-soname=kiln_kernels.so", "-o",
      libraryPath.c_str(), objectPath.c_str()};
  lld::Result result = lld::lldMain(args, outStream, errStream,
                                    {{lld::Gnu, &lld::elf::link}});
  auto buffer = llvm::MemoryBuffer::getFile(libraryPath);
  llvm::sys::fs::remove(objectPath);
  llvm::sys::fs::remove(libraryPath);
  llvm::sys::fs::remove(dir);
  if (result.retCode != 0 || !buffer) {
    error = "linking the kernels failed: " + err;
    return failure();
  }
  std::vector<uint8_t> bytes((*buffer)->getBufferStart(),
                             (*buffer)->getBufferEnd());
  return bytes;
}

} // namespace mlir::kiln::cpu
