// Writer tests: layout, alignment, checksum coverage and determinism. The
// runtime tests read these files back; here only the bytes are checked.
#include <gtest/gtest.h>

#include <chrono>

#include "compiler/artifact/ArtifactSpec.h"
#include "runtime/schema/file_format.h"
#include "runtime/schema/kiln_generated.h"

namespace kiln::artifact {
namespace {

ArtifactSpec smallSpec() {
  ArtifactSpec spec;
  spec.sourceName = "small.onnx";
  spec.inputs.push_back({"x", DType::F32, {2, 3}, {"batch", ""}});
  spec.outputs.push_back({"y", DType::F32, {2, 3}, {}});
  spec.constants.push_back({"w", std::vector<uint8_t>(24, 7)});
  spec.constants.push_back({"b", std::vector<uint8_t>(5, 9)});
  ExecutableSpec exe;
  exe.cpu = "x86-64-v3";
  exe.requiredFeatures = {"avx2", "fma"};
  exe.blob = {0x7f, 'E', 'L', 'F'};
  exe.kernels.push_back({"add", 3, 0,
                         {{24, Access::Read}, {24, Access::Read}, {24, Access::Write}}});
  spec.executables.push_back(exe);
  PlanSpec plan;
  StepSpec step;
  step.label = "dispatch_0: add";
  step.dispatch.bindings = {{BufferSpace::Input, 0, 0, 24},
                            {BufferSpace::Constant, 0, 0, 24},
                            {BufferSpace::Output, 0, 0, 24}};
  plan.steps.push_back(step);
  plan.arenaSize = 128;
  plan.intermediateBytes = 256;
  spec.plans.push_back(plan);
  return spec;
}

TEST(ArtifactWriter, HeaderLayoutAndAlignment) {
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(writeArtifact(smallSpec(), bytes, error)) << error;
  ASSERT_GE(bytes.size(), 64u);
  EXPECT_EQ(0, std::memcmp(bytes.data(), "KILN", 4));
  format::Header h = format::DecodeHeader(bytes.data());
  EXPECT_EQ(h.format_version, 2u);
  EXPECT_EQ(h.header_size, 64u);
  EXPECT_EQ(h.flatbuffer_offset, 64u);
  EXPECT_EQ(h.constants_offset % 64, 0u);
  EXPECT_GE(h.constants_offset, h.flatbuffer_offset + h.flatbuffer_size);
  EXPECT_EQ(h.constants_size, 64u + 5u);  // w at 0, b at 64
  EXPECT_EQ(h.file_size, bytes.size());
  EXPECT_EQ(h.checksum, format::Checksum(bytes.data() + 64, bytes.size() - 64));
  EXPECT_EQ(bytes[h.constants_offset + 64], 9);

  const uint8_t* fbData = bytes.data() + h.flatbuffer_offset;
  flatbuffers::Verifier verifier(fbData, h.flatbuffer_size);
  ASSERT_TRUE(fb::VerifyModelBuffer(verifier));
  EXPECT_TRUE(fb::ModelBufferHasIdentifier(fbData));
  const fb::Model* model = fb::GetModel(fbData);
  EXPECT_EQ(model->format_version(), 2u);
  EXPECT_EQ(model->constants()->Get(1)->offset(), 64u);
  EXPECT_EQ(model->inputs()->Get(0)->dim_names()->Get(0)->str(), "batch");
  EXPECT_EQ(model->plans()->Get(0)->steps()->Get(0)->dispatch()->bindings()->Get(1)->space(),
            fb::BufferSpace::Constant);
}

TEST(ArtifactWriter, EqualSpecsGiveEqualBytes) {
  std::vector<uint8_t> a, b;
  std::string error;
  ASSERT_TRUE(writeArtifact(smallSpec(), a, error)) << error;
  ASSERT_TRUE(writeArtifact(smallSpec(), b, error)) << error;
  EXPECT_EQ(a, b);
  ArtifactSpec changed = smallSpec();
  changed.constants[0].data[3] = 1;
  ASSERT_TRUE(writeArtifact(changed, b, error)) << error;
  EXPECT_NE(a, b);
}

TEST(ArtifactWriter, RejectsInconsistentSpecs) {
  std::vector<uint8_t> bytes;
  std::string error;
  ArtifactSpec spec = smallSpec();
  spec.plans[0].steps[0].dispatch.kernel = 4;
  EXPECT_FALSE(writeArtifact(spec, bytes, error));
  EXPECT_NE(error.find("kernel 4 of 1"), std::string::npos) << error;
}

TEST(ArtifactWriter, WritesFileAtomically) {
  std::string path = std::string(getenv("TEST_TMPDIR")) + "/small.kiln";
  std::string error;
  ASSERT_TRUE(writeArtifactFile(smallSpec(), path, error)) << error;
  ASSERT_TRUE(writeArtifactFile(smallSpec(), path, error)) << error;  // over an old one
  FILE* f = fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::vector<uint8_t> onDisk(1 << 16);
  onDisk.resize(fread(onDisk.data(), 1, onDisk.size(), f));
  fclose(f);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(writeArtifact(smallSpec(), bytes, error));
  EXPECT_EQ(onDisk, bytes);
  EXPECT_FALSE(writeArtifactFile(smallSpec(), "/nonexistent-dir/x.kiln", error));
  EXPECT_NE(error.find("/nonexistent-dir"), std::string::npos) << error;
}

TEST(ArtifactWriter, KernelTableCarriesBindingsAndWorkgroups) {
  ArtifactSpec spec = smallSpec();
  spec.executables[0].kernels[0].workgroups[0] = 5;
  spec.executables[0].kernels[0].workgroups[2] = 2;
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(writeArtifact(spec, bytes, error)) << error;
  format::Header h = format::DecodeHeader(bytes.data());
  const fb::Kernel *k =
      fb::GetModel(bytes.data() + h.flatbuffer_offset)->executables()->Get(0)->kernels()->Get(0);
  ASSERT_NE(k->bindings(), nullptr);
  ASSERT_EQ(k->bindings()->size(), 3u);
  EXPECT_EQ(k->bindings()->Get(2)->size(), 24u);
  EXPECT_EQ(k->bindings()->Get(0)->access(), fb::BindingAccess::Read);
  EXPECT_EQ(k->bindings()->Get(2)->access(), fb::BindingAccess::Write);
  ASSERT_NE(k->workgroups(), nullptr);
  EXPECT_EQ(k->workgroups()->Get(0), 5u);
  EXPECT_EQ(k->workgroups()->Get(1), 1u);
  EXPECT_EQ(k->workgroups()->Get(2), 2u);

  // A table whose binding descriptions do not match its count is refused.
  spec.executables[0].kernels[0].bindings.pop_back();
  EXPECT_FALSE(writeArtifact(spec, bytes, error));
  EXPECT_NE(error.find("kernel 'add' takes 3 bindings but describes 2"), std::string::npos)
      << error;
}

// A "cuda" executable: the GPU table is written next to the kernel table
// (archs, PTX version and target, modules with PTX and a cubin per arch,
// per-kernel launch facts).
ArtifactSpec gpuSpec() {
  ArtifactSpec spec = smallSpec();
  ExecutableSpec &e = spec.executables[0];
  e.target = "cuda";
  e.format = "ptx+cubin";
  e.blob.clear();
  e.hasGpu = true;
  e.gpu.archs = {"sm_80", "sm_90"};
  e.gpu.ptxVersion = "7.0";
  e.gpu.ptxTarget = "sm_80";
  e.gpu.modules.push_back({".version 7.0\n", {{"sm_80", {1, 2}}, {"sm_90", {3}}}});
  GpuKernelSpec kernel;
  kernel.entry = "add_kernel";
  kernel.block[0] = 128;
  kernel.sharedMemoryBytes = 512;
  e.gpu.kernels.push_back(kernel);
  spec.plans[0].target = "cuda";
  return spec;
}

TEST(ArtifactWriter, GpuExecutableCarriesPtxCubinsAndLaunches) {
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(writeArtifact(gpuSpec(), bytes, error)) << error;
  format::Header h = format::DecodeHeader(bytes.data());
  const fb::Executable *e =
      fb::GetModel(bytes.data() + h.flatbuffer_offset)->executables()->Get(0);
  EXPECT_EQ(e->target()->str(), "cuda");
  const fb::GpuExecutable *g = e->gpu();
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->archs()->size(), 2u);
  EXPECT_EQ(g->archs()->Get(1)->str(), "sm_90");
  EXPECT_EQ(g->ptx_version()->str(), "7.0");
  EXPECT_EQ(g->ptx_target()->str(), "sm_80");
  ASSERT_EQ(g->modules()->size(), 1u);
  const fb::GpuModule *m = g->modules()->Get(0);
  EXPECT_EQ(std::string(m->ptx()->begin(), m->ptx()->end()), ".version 7.0\n");
  ASSERT_EQ(m->cubins()->size(), 2u);
  EXPECT_EQ(m->cubins()->Get(0)->arch()->str(), "sm_80");
  EXPECT_EQ(m->cubins()->Get(0)->data()->size(), 2u);
  ASSERT_EQ(g->kernels()->size(), 1u);
  const fb::GpuKernel *k = g->kernels()->Get(0);
  EXPECT_EQ(k->entry()->str(), "add_kernel");
  EXPECT_EQ(k->module_index(), 0u);
  EXPECT_EQ(k->block()->Get(0), 128u);
  EXPECT_EQ(k->block()->Get(2), 1u);
  EXPECT_EQ(k->shared_memory_bytes(), 512u);
  // A CPU executable has no GPU table.
  ASSERT_TRUE(writeArtifact(smallSpec(), bytes, error)) << error;
  h = format::DecodeHeader(bytes.data());
  EXPECT_EQ(fb::GetModel(bytes.data() + h.flatbuffer_offset)->executables()->Get(0)->gpu(),
            nullptr);
}

TEST(ArtifactWriter, RejectsInconsistentGpuSpecs) {
  std::vector<uint8_t> bytes;
  std::string error;
  ArtifactSpec spec = gpuSpec();
  spec.executables[0].gpu.kernels.clear();
  EXPECT_FALSE(writeArtifact(spec, bytes, error));
  EXPECT_NE(error.find("describes 0 launches for 1 kernels"), std::string::npos) << error;
  spec = gpuSpec();
  spec.executables[0].gpu.kernels[0].module = 1;
  EXPECT_FALSE(writeArtifact(spec, bytes, error));
  EXPECT_NE(error.find("GPU kernel 'add_kernel' names module 1 of 1"), std::string::npos)
      << error;
  spec = gpuSpec();
  spec.executables[0].gpu.modules[0].cubins.pop_back();
  EXPECT_FALSE(writeArtifact(spec, bytes, error));
  EXPECT_NE(error.find("a GPU module has 1 cubins for 2 architectures"), std::string::npos)
      << error;
}

TEST(ArtifactWriter, LibraryCallCarriesGemmCall) {
  ArtifactSpec spec = gpuSpec();
  StepSpec step;
  step.kind = StepSpec::Kind::LibraryCall;
  step.label = "cublasLt matmul fc";
  step.libraryCall.node = "fc,fc_relu";
  GemmCallSpec &g = step.libraryCall.gemm;
  g.batch = 3;
  g.m = 4;
  g.n = 6;
  g.k = 5;
  g.transposeA = true;
  g.lda = 4;
  g.ldb = 6;
  g.ldc = 6;
  g.ldd = 6;
  g.batchStrideB = 30;
  g.batchStrideC = 24;
  g.batchStrideD = 24;
  g.alpha = 2.0f;
  g.beta = 0.5f;
  g.epilogue = GemmEpilogue::BiasGelu;
  g.a = {BufferSpace::Input, 0, 0, 80};
  g.b = {BufferSpace::Constant, 1, 64, 360};
  g.c = {BufferSpace::Arena, 0, 128, 288};
  g.d = {BufferSpace::Output, 0, 0, 288};
  g.bias = {BufferSpace::Constant, 0, 0, 24};
  spec.plans[0].steps.push_back(step);
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(writeArtifact(spec, bytes, error)) << error;
  format::Header h = format::DecodeHeader(bytes.data());
  const fb::Plan *plan = fb::GetModel(bytes.data() + h.flatbuffer_offset)->plans()->Get(0);
  const fb::Step *s = plan->steps()->Get(plan->steps()->size() - 1);
  ASSERT_EQ(s->kind(), fb::StepKind::LibraryCall);
  EXPECT_EQ(s->label()->str(), "cublasLt matmul fc");
  const fb::LibraryCallStep *l = s->library_call();
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->library()->str(), "cublasLt");
  EXPECT_EQ(l->function()->str(), "matmul");
  EXPECT_EQ(l->node()->str(), "fc,fc_relu");
  const fb::GemmCall *c = l->gemm();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->dtype(), fb::DType::F32);
  EXPECT_EQ(c->compute(), fb::DType::F32);
  EXPECT_EQ(c->batch(), 3u);
  EXPECT_EQ(c->m(), 4u);
  EXPECT_EQ(c->n(), 6u);
  EXPECT_EQ(c->k(), 5u);
  EXPECT_TRUE(c->transpose_a());
  EXPECT_FALSE(c->transpose_b());
  EXPECT_EQ(c->lda(), 4u);
  EXPECT_EQ(c->ldb(), 6u);
  EXPECT_EQ(c->ldc(), 6u);
  EXPECT_EQ(c->ldd(), 6u);
  EXPECT_EQ(c->batch_stride_a(), 0u);
  EXPECT_EQ(c->batch_stride_b(), 30u);
  EXPECT_EQ(c->batch_stride_c(), 24u);
  EXPECT_EQ(c->batch_stride_d(), 24u);
  EXPECT_EQ(c->alpha(), 2.0f);
  EXPECT_EQ(c->beta(), 0.5f);
  EXPECT_EQ(c->epilogue(), fb::GemmEpilogue::BiasGelu);
  EXPECT_EQ(c->b()->space(), fb::BufferSpace::Constant);
  EXPECT_EQ(c->b()->index(), 1u);
  EXPECT_EQ(c->b()->offset(), 64u);
  EXPECT_EQ(c->b()->length(), 360u);
  EXPECT_EQ(c->c()->offset(), 128u);
  EXPECT_EQ(c->d()->space(), fb::BufferSpace::Output);
  EXPECT_EQ(c->bias()->length(), 24u);
  EXPECT_STREQ(gemmEpilogueName(GemmEpilogue::BiasRelu), "BiasRelu");
  // A library call names its library and function.
  spec.plans[0].steps.back().libraryCall.library.clear();
  EXPECT_FALSE(writeArtifact(spec, bytes, error));
  EXPECT_NE(error.find("library call without a library or function name"),
            std::string::npos)
      << error;
}

// XXH3-64 with seed 0; the empty input's hash is xxHash's published value.
TEST(Checksum, IsXxh3_64) {
  EXPECT_EQ(format::Checksum(nullptr, 0), 0x2D06800538D394C2ull);
  std::vector<uint8_t> file(200, 1);
  ASSERT_TRUE(format::UpdateChecksum(file.data(), file.size()));
  EXPECT_EQ(format::LoadU64(file.data() + 48), format::Checksum(file.data() + 64, 136));
  EXPECT_FALSE(format::UpdateChecksum(file.data(), 63));
}

TEST(Checksum, EveryWordMattersAndLengthMatters) {
  std::vector<uint8_t> data(1000, 0);
  uint64_t base = format::Checksum(data.data(), data.size());
  for (size_t i = 0; i < data.size(); i += 37) {
    data[i] ^= 0x10;
    EXPECT_NE(format::Checksum(data.data(), data.size()), base) << i;
    data[i] ^= 0x10;
  }
  EXPECT_NE(format::Checksum(data.data(), 999), base);
}

// Not a timing test (those are noise on shared machines); it only guards
// against a checksum so slow it would dominate load time.
TEST(Checksum, HashesAtLeastAFewHundredMegabytesPerSecond) {
  std::vector<uint8_t> data(64 << 20, 3);
  auto start = std::chrono::steady_clock::now();
  volatile uint64_t h = format::Checksum(data.data(), data.size());
  (void)h;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double gbPerSecond = data.size() / seconds / 1e9;
  std::printf("checksum: %.2f GB/s\n", gbPerSecond);
  EXPECT_GT(gbPerSecond, 0.3);
}

} // namespace
} // namespace kiln::artifact
