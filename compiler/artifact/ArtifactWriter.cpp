//===- ArtifactWriter.cpp - Serialize an ArtifactSpec to .kiln -----------===//
//
// Layout and checksum: runtime/schema/file_format.h. The FlatBuffer is
// built in one fixed order from the spec alone, so equal specs give equal
// bytes. The writer checks only what would make the file unreadable or
// inconsistent with itself; the loader re-checks everything anyway.
//
//===----------------------------------------------------------------------===//
#include "compiler/artifact/ArtifactSpec.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/schema/file_format.h"
#include "runtime/schema/kiln_generated.h"

namespace kiln::artifact {

size_t dtypeSize(DType dtype) {
  return format::DTypeSize(static_cast<unsigned>(dtype));
}

const char *dtypeName(DType dtype) {
  return format::DTypeName(static_cast<unsigned>(dtype));
}

const char *gemmEpilogueName(GemmEpilogue epilogue) {
  return fb::EnumNameGemmEpilogue(static_cast<fb::GemmEpilogue>(epilogue));
}

namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

fb::Binding toBinding(const BindingSpec &b) {
  return fb::Binding(static_cast<fb::BufferSpace>(b.space), b.index, b.offset,
                     b.length);
}

Offset<fb::TensorDesc> buildTensor(FlatBufferBuilder &fbb, const TensorSpec &t) {
  std::vector<Offset<flatbuffers::String>> dimNames;
  for (const std::string &n : t.dimNames)
    dimNames.push_back(fbb.CreateString(n));
  return fb::CreateTensorDesc(fbb, fbb.CreateString(t.name),
                              static_cast<fb::DType>(t.dtype),
                              fbb.CreateVector(t.dims),
                              fbb.CreateVector(dimNames));
}

Offset<fb::GpuExecutable> buildGpuExecutable(FlatBufferBuilder &fbb,
                                             const GpuExecutableSpec &g) {
  std::vector<Offset<flatbuffers::String>> archs;
  for (const std::string &a : g.archs)
    archs.push_back(fbb.CreateString(a));
  std::vector<Offset<fb::GpuModule>> modules;
  for (const GpuModuleSpec &m : g.modules) {
    std::vector<Offset<fb::GpuCubin>> cubins;
    for (const GpuCubinSpec &c : m.cubins) {
      fbb.ForceVectorAlignment(c.data.size(), 1, 16);
      auto data = fbb.CreateVector(c.data);
      cubins.push_back(
          fb::CreateGpuCubin(fbb, fbb.CreateString(c.arch), data));
    }
    auto ptx = fbb.CreateVector(
        reinterpret_cast<const uint8_t *>(m.ptx.data()), m.ptx.size());
    modules.push_back(
        fb::CreateGpuModule(fbb, ptx, fbb.CreateVector(cubins)));
  }
  std::vector<Offset<fb::GpuKernel>> kernels;
  for (const GpuKernelSpec &k : g.kernels) {
    std::vector<uint32_t> block(k.block, k.block + 3);
    kernels.push_back(fb::CreateGpuKernel(fbb, fbb.CreateString(k.entry),
                                          k.module, fbb.CreateVector(block),
                                          k.sharedMemoryBytes));
  }
  return fb::CreateGpuExecutable(
      fbb, fbb.CreateVector(archs), fbb.CreateString(g.ptxVersion),
      fbb.CreateString(g.ptxTarget), fbb.CreateVector(modules),
      fbb.CreateVector(kernels));
}

Offset<fb::Executable> buildExecutable(FlatBufferBuilder &fbb,
                                       const ExecutableSpec &e) {
  std::vector<Offset<flatbuffers::String>> features;
  for (const std::string &f : e.requiredFeatures)
    features.push_back(fbb.CreateString(f));
  std::vector<Offset<fb::Kernel>> kernels;
  for (const KernelSpec &k : e.kernels) {
    std::vector<fb::KernelBinding> bindings;
    for (const KernelBindingSpec &b : k.bindings)
      bindings.push_back(
          fb::KernelBinding(b.size, static_cast<fb::BindingAccess>(b.access)));
    std::vector<uint32_t> workgroups(k.workgroups, k.workgroups + 3);
    kernels.push_back(fb::CreateKernel(
        fbb, fbb.CreateString(k.name), k.bindingCount, k.pushConstantCount,
        fbb.CreateVectorOfStructs(bindings), fbb.CreateVector(workgroups)));
  }
  // The blob holds machine code; 16-byte alignment keeps it friendly to
  // anyone who reads it in place.
  fbb.ForceVectorAlignment(e.blob.size(), 1, 16);
  auto blob = fbb.CreateVector(e.blob);
  Offset<fb::GpuExecutable> gpu = 0;
  if (e.hasGpu)
    gpu = buildGpuExecutable(fbb, e.gpu);
  return fb::CreateExecutable(
      fbb, fbb.CreateString(e.target), fbb.CreateString(e.format),
      fbb.CreateString(e.cpu), fbb.CreateVector(features), blob,
      fbb.CreateVector(kernels), gpu);
}

Offset<fb::CustomCallStep> buildCustomCall(FlatBufferBuilder &fbb,
                                           const CustomCallSpec &c) {
  auto operands = [&](const std::vector<CustomOperandSpec> &list) {
    std::vector<Offset<fb::CustomOperand>> built;
    for (const CustomOperandSpec &o : list) {
      fb::Binding binding = toBinding(o.binding);
      built.push_back(fb::CreateCustomOperand(
          fbb, &binding, static_cast<fb::DType>(o.dtype), fbb.CreateVector(o.dims)));
    }
    return fbb.CreateVector(built);
  };
  auto inputs = operands(c.inputs);
  auto outputs = operands(c.outputs);
  std::vector<Offset<fb::CustomAttribute>> attributes;
  for (const CustomAttributeSpec &a : c.attributes)
    attributes.push_back(fb::CreateCustomAttribute(
        fbb, fbb.CreateString(a.name), static_cast<fb::AttributeKind>(a.kind),
        fbb.CreateVector(a.ints), fbb.CreateVector(a.floats),
        fbb.CreateString(a.string)));
  return fb::CreateCustomCallStep(fbb, fbb.CreateString(c.op),
                                  fbb.CreateString(c.node), inputs, outputs,
                                  fbb.CreateVector(attributes));
}

Offset<fb::LibraryCallStep> buildLibraryCall(FlatBufferBuilder &fbb,
                                             const LibraryCallSpec &l) {
  const GemmCallSpec &g = l.gemm;
  fb::Binding a = toBinding(g.a), b = toBinding(g.b), c = toBinding(g.c),
              d = toBinding(g.d), bias = toBinding(g.bias);
  auto gemm = fb::CreateGemmCall(
      fbb, static_cast<fb::DType>(g.dtype), static_cast<fb::DType>(g.compute),
      g.batch, g.m, g.n, g.k, g.transposeA, g.transposeB, g.lda, g.ldb, g.ldc,
      g.ldd, g.batchStrideA, g.batchStrideB, g.batchStrideC, g.batchStrideD,
      g.alpha, g.beta, static_cast<fb::GemmEpilogue>(g.epilogue), &a, &b, &c,
      &d, &bias);
  return fb::CreateLibraryCallStep(fbb, fbb.CreateString(l.library),
                                   fbb.CreateString(l.function),
                                   fbb.CreateString(l.node), gemm);
}

Offset<fb::Step> buildStep(FlatBufferBuilder &fbb, const StepSpec &s) {
  Offset<fb::DispatchStep> dispatch = 0;
  Offset<fb::CopyStep> copy = 0;
  Offset<fb::CustomCallStep> customCall = 0;
  Offset<fb::LibraryCallStep> libraryCall = 0;
  if (s.kind == StepSpec::Kind::CustomCall) {
    customCall = buildCustomCall(fbb, s.customCall);
  } else if (s.kind == StepSpec::Kind::LibraryCall) {
    libraryCall = buildLibraryCall(fbb, s.libraryCall);
  } else if (s.kind == StepSpec::Kind::Dispatch) {
    const DispatchSpec &d = s.dispatch;
    std::vector<fb::Binding> bindings;
    for (const BindingSpec &b : d.bindings) bindings.push_back(toBinding(b));
    std::vector<uint32_t> workgroups(d.workgroups, d.workgroups + 3);
    dispatch = fb::CreateDispatchStep(
        fbb, d.executable, d.kernel, fbb.CreateVector(workgroups),
        fbb.CreateVectorOfStructs(bindings), fbb.CreateVector(d.pushConstants));
  } else {
    fb::Binding source = toBinding(s.copy.source);
    fb::Binding target = toBinding(s.copy.target);
    copy = fb::CreateCopyStep(fbb, &source, &target);
  }
  return fb::CreateStep(fbb, static_cast<fb::StepKind>(s.kind), dispatch, copy,
                        fbb.CreateString(s.label), customCall, libraryCall);
}

// Catches specs that could never load; everything else is the loader's job.
bool checkSpec(const ArtifactSpec &spec, std::string &error) {
  for (const ExecutableSpec &e : spec.executables) {
    if (!e.hasGpu)
      continue;
    if (e.gpu.kernels.size() != e.kernels.size()) {
      error = "GPU executable describes " +
              std::to_string(e.gpu.kernels.size()) + " launches for " +
              std::to_string(e.kernels.size()) + " kernels";
      return false;
    }
    for (const GpuKernelSpec &k : e.gpu.kernels)
      if (k.module >= e.gpu.modules.size()) {
        error = "GPU kernel '" + k.entry + "' names module " +
                std::to_string(k.module) + " of " +
                std::to_string(e.gpu.modules.size());
        return false;
      }
    for (const GpuModuleSpec &m : e.gpu.modules)
      if (m.cubins.size() != e.gpu.archs.size()) {
        error = "a GPU module has " + std::to_string(m.cubins.size()) +
                " cubins for " + std::to_string(e.gpu.archs.size()) +
                " architectures";
        return false;
      }
  }
  for (const ExecutableSpec &e : spec.executables)
    for (const KernelSpec &k : e.kernels)
      if (k.bindings.size() != k.bindingCount) {
        error = "kernel '" + k.name + "' takes " +
                std::to_string(k.bindingCount) + " bindings but describes " +
                std::to_string(k.bindings.size());
        return false;
      }
  for (const PlanSpec &plan : spec.plans) {
    for (const StepSpec &step : plan.steps) {
      if (step.kind == StepSpec::Kind::Copy) {
        if (step.copy.source.length != step.copy.target.length) {
          error = "step '" + step.label + "': copy source is " +
                  std::to_string(step.copy.source.length) +
                  " bytes but target is " +
                  std::to_string(step.copy.target.length);
          return false;
        }
        continue;
      }
      if (step.kind == StepSpec::Kind::LibraryCall) {
        if (step.libraryCall.library.empty() ||
            step.libraryCall.function.empty()) {
          error = "step '" + step.label +
                  "': library call without a library or function name";
          return false;
        }
        continue;
      }
      if (step.kind == StepSpec::Kind::CustomCall) {
        if (step.customCall.op.empty()) {
          error = "step '" + step.label + "': custom call without an op name";
          return false;
        }
        continue;
      }
      const DispatchSpec &d = step.dispatch;
      if (d.executable >= spec.executables.size()) {
        error = "step '" + step.label + "': executable " +
                std::to_string(d.executable) + " of " +
                std::to_string(spec.executables.size());
        return false;
      }
      if (d.kernel >= spec.executables[d.executable].kernels.size()) {
        error = "step '" + step.label + "': kernel " +
                std::to_string(d.kernel) + " of " +
                std::to_string(spec.executables[d.executable].kernels.size());
        return false;
      }
    }
  }
  return true;
}

} // namespace

bool writeArtifact(const ArtifactSpec &spec, std::vector<uint8_t> &bytes,
                   std::string &error) {
  if (!checkSpec(spec, error)) return false;

  // Constants are laid out first so the FlatBuffer can record offsets.
  std::vector<uint64_t> constantOffsets;
  uint64_t constantsSize = 0;
  for (const ConstantSpec &c : spec.constants) {
    constantsSize = format::AlignUp(constantsSize, format::kAlignment);
    constantOffsets.push_back(constantsSize);
    constantsSize += c.data.size();
  }

  FlatBufferBuilder fbb(1 << 16);
  std::vector<Offset<fb::TensorDesc>> inputs, outputs;
  for (const TensorSpec &t : spec.inputs) inputs.push_back(buildTensor(fbb, t));
  for (const TensorSpec &t : spec.outputs) outputs.push_back(buildTensor(fbb, t));
  std::vector<Offset<fb::Constant>> constants;
  for (size_t i = 0; i < spec.constants.size(); ++i)
    constants.push_back(fb::CreateConstant(
        fbb, fbb.CreateString(spec.constants[i].name), constantOffsets[i],
        spec.constants[i].data.size()));
  std::vector<Offset<fb::Executable>> executables;
  for (const ExecutableSpec &e : spec.executables)
    executables.push_back(buildExecutable(fbb, e));
  std::vector<Offset<fb::Plan>> plans;
  for (const PlanSpec &p : spec.plans) {
    std::vector<Offset<fb::Step>> steps;
    for (const StepSpec &s : p.steps) steps.push_back(buildStep(fbb, s));
    plans.push_back(fb::CreatePlan(fbb, fbb.CreateString(p.target),
                                   fbb.CreateVector(steps), p.arenaSize,
                                   p.intermediateBytes));
  }
  auto model = fb::CreateModel(
      fbb, format::kFormatVersion, fbb.CreateString(spec.producer),
      fbb.CreateString(spec.sourceName), fbb.CreateVector(inputs),
      fbb.CreateVector(outputs), fbb.CreateVector(constants),
      fbb.CreateVector(executables), fbb.CreateVector(plans));
  fb::FinishModelBuffer(fbb, model);
  // FlatBuffers address with 32-bit offsets.
  if (fbb.GetSize() >= (1ull << 31)) {
    error = "the FlatBuffer part exceeds 2 GiB (executables too large)";
    return false;
  }

  format::Header header;
  header.flatbuffer_offset = format::kHeaderSize;
  header.flatbuffer_size = fbb.GetSize();
  header.constants_offset = format::AlignUp(
      header.flatbuffer_offset + header.flatbuffer_size, format::kAlignment);
  header.constants_size = constantsSize;
  header.file_size = header.constants_offset + constantsSize;

  bytes.assign(header.file_size, 0);
  std::memcpy(bytes.data() + header.flatbuffer_offset, fbb.GetBufferPointer(),
              fbb.GetSize());
  for (size_t i = 0; i < spec.constants.size(); ++i)
    if (!spec.constants[i].data.empty())
      std::memcpy(bytes.data() + header.constants_offset + constantOffsets[i],
                  spec.constants[i].data.data(), spec.constants[i].data.size());
  header.checksum = format::Checksum(bytes.data() + format::kHeaderSize,
                                     bytes.size() - format::kHeaderSize);
  format::EncodeHeader(header, bytes.data());
  return true;
}

bool writeArtifactFile(const ArtifactSpec &spec, const std::string &path,
                       std::string &error) {
  std::vector<uint8_t> bytes;
  if (!writeArtifact(spec, bytes, error)) return false;
  // Write a sibling temp file and rename it over `path`, so a reader never
  // sees a half-written artifact and a failed write leaves the old one.
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot create '" + temp + "': " + std::strerror(errno);
    return false;
  }
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = "cannot write '" + temp + "': " + std::strerror(errno);
      ::close(fd);
      ::unlink(temp.c_str());
      return false;
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    error = "cannot write '" + temp + "': " + std::strerror(errno);
    ::unlink(temp.c_str());
    return false;
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    error = "cannot rename '" + temp + "' to '" + path + "': " +
            std::strerror(errno);
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

} // namespace kiln::artifact
