//===- PtxEmitter.cpp - NVVM kernels to PTX and cubins --------------------===//
#include "compiler/targets/cuda/PtxEmitter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::kiln::cuda {

FailureOr<std::vector<PtxModule>> emitPtx(ModuleOp kernels,
                                          StringRef toolkitRoot) {
  MLIRContext &context = *kernels.getContext();
  // The serializer translates each gpu.module to LLVM IR first.
  registerBuiltinDialectTranslation(context);
  registerLLVMDialectTranslation(context);
  registerNVVMDialectTranslation(context);
  registerGPUDialectTranslation(context);
  PassManager pm(&context);
  GpuModuleToBinaryPassOptions options;
  options.toolkitPath = toolkitRoot.str();
  options.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(options));
  if (failed(pm.run(kernels)))
    return failure();
  std::vector<PtxModule> modules;
  for (auto binary : kernels.getOps<gpu::BinaryOp>()) {
    if (binary.getObjects().size() != 1)
      return binary.emitOpError("expected exactly one PTX object");
    auto object = cast<gpu::ObjectAttr>(binary.getObjects()[0]);
    modules.push_back({binary.getName().str(), object.getObject().str()});
  }
  return modules;
}

std::string ptxVersion(StringRef ptx) {
  size_t at = ptx.find("\n.version ");
  if (at == StringRef::npos)
    return "";
  return ptx.substr(at + 10).take_until([](char c) {
            return c == '\n' || c == ' ' || c == '\r';
          })
      .str();
}

bool assembleCubin(StringRef ptxas, StringRef ptx, StringRef arch,
                   std::vector<uint8_t> &cubin, std::string &error) {
  SmallString<128> ptxPath, cubinPath, logPath;
  int fd = -1;
  if (llvm::sys::fs::createTemporaryFile("kiln-kernel", "ptx", fd, ptxPath)) {
    error = "cannot create a temporary PTX file";
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::FileRemover removePtx(ptxPath);
  llvm::sys::fs::createTemporaryFile("kiln-kernel", "cubin", cubinPath);
  llvm::FileRemover removeCubin(cubinPath);
  llvm::sys::fs::createTemporaryFile("kiln-ptxas", "log", logPath);
  llvm::FileRemover removeLog(logPath);
  std::string archFlag = "--gpu-name=" + arch.str();
  StringRef args[] = {ptxas, archFlag, "-O3", ptxPath, "-o", cubinPath};
  std::optional<StringRef> redirects[] = {std::nullopt, logPath.str(),
                                          logPath.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/600, 0, &execError);
  if (rc != 0) {
    error = "ptxas (" + ptxas.str() + ") failed for " + arch.str();
    if (!execError.empty())
      error += ": " + execError;
    if (auto log = llvm::MemoryBuffer::getFile(logPath))
      error += ":\n" + (*log)->getBuffer().trim().str();
    return false;
  }
  auto file = llvm::MemoryBuffer::getFile(cubinPath, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    error = "ptxas wrote no cubin for " + arch.str();
    return false;
  }
  cubin.assign((*file)->getBufferStart(), (*file)->getBufferEnd());
  return true;
}

} // namespace mlir::kiln::cuda
