// gpu_test_artifacts.h - "cuda" artifacts built by hand for the GPU
// runtime's tests (with the fake driver, fake_cuda_driver.h). The PTX and
// cubin bytes are placeholders that only the fake "loads".
#ifndef KILN_RUNTIME_TESTING_GPU_TEST_ARTIFACTS_H_
#define KILN_RUNTIME_TESTING_GPU_TEST_ARTIFACTS_H_

#include <functional>
#include <vector>

#include "compiler/artifact/ArtifactSpec.h"
#include "kiln/runtime.h"
#include "runtime/schema/kiln_generated.h"

namespace kiln::testing {

// The add/scale model (test_artifacts.h AddScaleSpec) as kilnc
// --target=cuda would describe it: a "cuda" executable with kernels
// "add_kernel" (block 128) and "scale_kernel" (block 256, 1024 bytes of
// shared memory), one PTX module each (ISA 7.0 for sm_80, text
// "PTX <entry>") and cubins for sm_80 and sm_90 ("CUBIN <arch> <entry>"),
// and a "cuda" plan with the same steps.
artifact::ArtifactSpec CudaAddScaleSpec();
// Both plans: the CPU add/scale executable and plan, then the cuda ones.
artifact::ArtifactSpec CpuAndCudaAddScaleSpec();

// Rewrites a written artifact's FlatBuffer through the object API (for
// what ArtifactSpec cannot express yet, e.g. LibraryCall steps) and fixes
// the header, layout and checksum.
std::vector<uint8_t> EditArtifact(const std::vector<uint8_t>& bytes,
                                  const std::function<void(fb::ModelT&)>& edit);

// A GEMM model: input "a" (row-major, stored transposed when transpose_a,
// with batches), constant "b" (same for B), constant "bias" [n], input "c"
// when beta != 0, output "d" [batch, m, n]; its cuda plan is one
// LibraryCall step "gemm_0: matmul" computing `gemm` (strides and leading
// dimensions as given, bindings covering exactly the tensors).
struct GemmModel {
  GemmInfo gemm;
  std::vector<float> a, b, bias;  // as stored
  std::vector<float> c;
  std::vector<uint8_t> bytes;
};
// Tight leading dimensions and strides unless `broadcast_b` (stride 0).
GemmModel MakeGemmModel(uint64_t batch, uint64_t m, uint64_t n, uint64_t k, bool transpose_a,
                        bool transpose_b, GemmInfo::Epilogue epilogue, float alpha, float beta,
                        bool broadcast_b);
// The model's expected D, row-major, computed directly from GemmCall's
// definition (GELU in its tanh form, as cuBLASLt's epilogue).
std::vector<float> ReferenceGemm(const GemmModel& model);

}  // namespace kiln::testing

#endif  // KILN_RUNTIME_TESTING_GPU_TEST_ARTIFACTS_H_
