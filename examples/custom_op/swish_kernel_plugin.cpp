//===- swish_kernel_plugin.cpp - com.example::Swish, kind (b) -------------===//
//
// A kilnc plugin that declares com.example::Swish with an external kernel:
// the artifact gets a CustomCall step named "com.example.Swish", and the
// service that runs it registers the kernel (swish_kernel.c) with the
// runtime before loading the model.
//
//   kilnc swish.onnx --load-pass-plugin=libSwishKernelPlugin.so -o swish.kiln
//   kiln run swish.kiln --custom-op-library libswish_kernels.so
//
//===----------------------------------------------------------------------===//
#include "compiler/customops/CustomOpDefinition.h"
#include "compiler/plugin/KilnPlugin.h"
#include "examples/custom_op/swish_shape.h"

namespace {

// doc-region: external
void registerSwish(mlir::kiln::PluginRegistrar &registrar) {
  mlir::kiln::CustomOpDefinition swish;
  swish.domain = "com.example";
  swish.opType = "Swish"; // the runtime resolves "com.example.Swish"
  swish.inferTypes = swish_example::inferSwishTypes;
  // No `lower`: kind (b), an external kernel.
  registrar.addCustomOp(std::move(swish));
}
// doc-end: external

} // namespace

extern "C" KILN_PLUGIN_EXPORT const KilnPluginInfo *kilnGetPluginInfo() {
  static const KilnPluginInfo info = {KILN_PLUGIN_API_VERSION, KILN_VERSION_STRING,
                                      "swish-kernel", registerSwish};
  return &info;
}
