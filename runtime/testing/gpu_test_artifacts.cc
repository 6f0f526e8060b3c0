#include "runtime/testing/gpu_test_artifacts.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/schema/file_format.h"
#include "runtime/testing/test_artifacts.h"

namespace kiln::testing {

artifact::ArtifactSpec CudaAddScaleSpec() {
  artifact::ArtifactSpec spec = AddScaleSpec();
  artifact::ExecutableSpec& e = spec.executables[0];
  e.target = "cuda";
  e.format = "ptx+cubin";
  e.cpu.clear();
  e.requiredFeatures.clear();
  e.blob.clear();
  e.hasGpu = true;
  e.gpu.archs = {"sm_80", "sm_90"};
  e.gpu.ptxVersion = "7.0";
  e.gpu.ptxTarget = "sm_80";
  for (size_t k = 0; k < e.kernels.size(); ++k) {
    std::string entry = e.kernels[k].name + "_kernel";
    artifact::GpuModuleSpec module;
    module.ptx = "PTX " + entry;
    for (const std::string& arch : e.gpu.archs) {
      std::string text = "CUBIN " + arch + " " + entry;
      module.cubins.push_back({arch, std::vector<uint8_t>(text.begin(), text.end())});
      module.cubins.back().data.push_back(0);
    }
    e.gpu.modules.push_back(module);
    artifact::GpuKernelSpec kernel;
    kernel.entry = entry;
    kernel.module = static_cast<uint32_t>(k);
    kernel.block[0] = e.kernels[k].name == "scale" ? 256 : 128;
    kernel.sharedMemoryBytes = e.kernels[k].name == "scale" ? 1024 : 0;
    e.gpu.kernels.push_back(kernel);
  }
  spec.plans[0].target = "cuda";
  return spec;
}

artifact::ArtifactSpec CpuAndCudaAddScaleSpec() {
  artifact::ArtifactSpec spec = AddScaleSpec();
  artifact::ArtifactSpec cuda = CudaAddScaleSpec();
  spec.executables.push_back(cuda.executables[0]);
  artifact::PlanSpec plan = cuda.plans[0];
  for (artifact::StepSpec& step : plan.steps)
    if (step.kind == artifact::StepSpec::Kind::Dispatch) step.dispatch.executable = 1;
  spec.plans.push_back(plan);
  return spec;
}

std::vector<uint8_t> EditArtifact(const std::vector<uint8_t>& bytes,
                                  const std::function<void(fb::ModelT&)>& edit) {
  format::Header h = format::DecodeHeader(bytes.data());
  std::unique_ptr<fb::ModelT> model(fb::GetModel(bytes.data() + h.flatbuffer_offset)->UnPack());
  edit(*model);
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, model.get()));
  h.flatbuffer_offset = format::kHeaderSize;
  h.flatbuffer_size = fbb.GetSize();
  uint64_t old_constants = h.constants_offset;
  h.constants_offset = format::AlignUp(h.flatbuffer_offset + h.flatbuffer_size, format::kAlignment);
  h.file_size = h.constants_offset + h.constants_size;
  std::vector<uint8_t> out(h.file_size, 0);
  std::memcpy(out.data() + h.flatbuffer_offset, fbb.GetBufferPointer(), fbb.GetSize());
  if (h.constants_size > 0)
    std::memcpy(out.data() + h.constants_offset, bytes.data() + old_constants, h.constants_size);
  h.checksum = 0;
  format::EncodeHeader(h, out.data());
  if (!format::UpdateChecksum(out.data(), out.size())) {
    std::fprintf(stderr, "EditArtifact: cannot update the checksum\n");
    std::abort();
  }
  return out;
}

namespace {

std::vector<uint8_t> FloatBytes(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

}  // namespace

GemmModel MakeGemmModel(uint64_t batch, uint64_t m, uint64_t n, uint64_t k, bool transpose_a,
                        bool transpose_b, GemmInfo::Epilogue epilogue, float alpha, float beta,
                        bool broadcast_b) {
  GemmModel g;
  GemmInfo& info = g.gemm;
  info.batch = batch;
  info.m = m;
  info.n = n;
  info.k = k;
  info.transpose_a = transpose_a;
  info.transpose_b = transpose_b;
  info.lda = transpose_a ? m : k;
  info.ldb = transpose_b ? k : n;
  info.ldc = info.ldd = n;
  info.batch_stride_a = m * k;
  info.batch_stride_b = broadcast_b ? 0 : k * n;
  info.batch_stride_c = info.batch_stride_d = m * n;
  info.alpha = alpha;
  info.beta = beta;
  info.epilogue = epilogue;
  const uint64_t b_batches = broadcast_b ? 1 : batch;
  g.a = RandomFloats(batch * m * k, 1);
  g.b = RandomFloats(b_batches * k * n, 2);
  g.bias = RandomFloats(n, 3);
  if (info.has_c()) g.c = RandomFloats(batch * m * n, 4);

  using artifact::BufferSpace;
  using artifact::DType;
  const int64_t rows_a = transpose_a ? k : m, cols_a = transpose_a ? m : k;
  artifact::ArtifactSpec spec;
  spec.sourceName = "gemm.onnx";
  spec.inputs = {{"a", DType::F32, {static_cast<int64_t>(batch), rows_a, cols_a}, {}}};
  if (info.has_c())
    spec.inputs.push_back({"c", DType::F32,
                           {static_cast<int64_t>(batch), static_cast<int64_t>(m),
                            static_cast<int64_t>(n)},
                           {}});
  spec.outputs = {{"d", DType::F32,
                   {static_cast<int64_t>(batch), static_cast<int64_t>(m), static_cast<int64_t>(n)},
                   {}}};
  spec.constants = {{"b", FloatBytes(g.b)}, {"bias", FloatBytes(g.bias)}};
  // An unused cuda executable: EditArtifact's object-API round trip drops
  // empty vectors, and the loader requires the executables vector.
  artifact::ExecutableSpec unused = CudaAddScaleSpec().executables[0];
  unused.kernels.resize(1);
  unused.gpu.kernels.resize(1);
  unused.gpu.modules.resize(1);
  spec.executables = {unused};
  artifact::PlanSpec plan;
  plan.target = "cuda";
  artifact::StepSpec placeholder;
  placeholder.kind = artifact::StepSpec::Kind::Copy;
  placeholder.copy.source = {BufferSpace::Input, 0, 0, 4};
  placeholder.copy.target = {BufferSpace::Output, 0, 0, 4};
  plan.steps = {placeholder};
  spec.plans = {plan};
  std::vector<uint8_t> bytes = WriteOrDie(spec);

  g.bytes = EditArtifact(bytes, [&](fb::ModelT& model) {
    auto step = std::make_unique<fb::StepT>();
    step->kind = fb::StepKind::LibraryCall;
    step->label = "gemm_0: matmul";
    step->library_call = std::make_unique<fb::LibraryCallStepT>();
    fb::LibraryCallStepT& call = *step->library_call;
    call.library = "cublasLt";
    call.function = "matmul";
    call.node = "MatMul_0";
    call.gemm = std::make_unique<fb::GemmCallT>();
    fb::GemmCallT& c = *call.gemm;
    c.dtype = fb::DType::F32;
    c.compute = fb::DType::F32;
    c.batch = info.batch;
    c.m = m;
    c.n = n;
    c.k = k;
    c.transpose_a = transpose_a;
    c.transpose_b = transpose_b;
    c.lda = info.lda;
    c.ldb = info.ldb;
    c.ldc = info.ldc;
    c.ldd = info.ldd;
    c.batch_stride_a = info.batch_stride_a;
    c.batch_stride_b = info.batch_stride_b;
    c.batch_stride_c = info.batch_stride_c;
    c.batch_stride_d = info.batch_stride_d;
    c.alpha = alpha;
    c.beta = beta;
    c.epilogue = static_cast<fb::GemmEpilogue>(epilogue);
    c.a = std::make_unique<fb::Binding>(fb::BufferSpace::Input, 0, 0, g.a.size() * 4);
    c.b = std::make_unique<fb::Binding>(fb::BufferSpace::Constant, 0, 0, g.b.size() * 4);
    c.c = info.has_c()
              ? std::make_unique<fb::Binding>(fb::BufferSpace::Input, 1, 0, g.c.size() * 4)
              : std::make_unique<fb::Binding>(fb::BufferSpace::Arena, 0, 0, 0);
    c.d = std::make_unique<fb::Binding>(fb::BufferSpace::Output, 0, 0, batch * m * n * 4);
    c.bias = std::make_unique<fb::Binding>(fb::BufferSpace::Constant, 1, 0, n * 4);
    model.plans[0]->steps.clear();
    model.plans[0]->steps.push_back(std::move(step));
  });
  return g;
}

std::vector<float> ReferenceGemm(const GemmModel& g) {
  const GemmInfo& x = g.gemm;
  std::vector<float> d(x.batch * x.m * x.n);
  for (uint64_t b = 0; b < x.batch; ++b)
    for (uint64_t i = 0; i < x.m; ++i)
      for (uint64_t j = 0; j < x.n; ++j) {
        double sum = 0;
        for (uint64_t p = 0; p < x.k; ++p) {
          const float* a = g.a.data() + b * x.batch_stride_a;
          const float* bb = g.b.data() + b * x.batch_stride_b;
          float av = x.transpose_a ? a[p * x.lda + i] : a[i * x.lda + p];
          float bv = x.transpose_b ? bb[j * x.ldb + p] : bb[p * x.ldb + j];
          sum += static_cast<double>(av) * bv;
        }
        float v = x.alpha * static_cast<float>(sum);
        if (x.has_c()) v += x.beta * g.c[b * x.batch_stride_c + i * x.ldc + j];
        if (x.has_bias()) v += g.bias[j];
        if (x.epilogue == GemmInfo::Epilogue::kRelu || x.epilogue == GemmInfo::Epilogue::kBiasRelu)
          v = std::max(v, 0.0f);
        if (x.epilogue == GemmInfo::Epilogue::kGelu || x.epilogue == GemmInfo::Epilogue::kBiasGelu)
          v = 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
        d[b * x.batch_stride_d + i * x.ldd + j] = v;
      }
  return d;
}

}  // namespace kiln::testing
