#include "runtime/src/loaded_artifact.h"

#include <cstdint>
#include <cstring>
#include <functional>

#include "runtime/schema/file_format.h"
#include "runtime/src/checked_math.h"
#include "runtime/src/cpu_features.h"

namespace kiln {
namespace {

constexpr const char* kCpuTarget = "x86_64";
constexpr const char* kCpuFormat = "elf-shared-object";
// GPU executables: run by CudaModel/CudaSession (runtime/src/cuda/).
constexpr const char* kGpuTarget = "cuda";
constexpr const char* kGpuFormat = "ptx+cubin";

Status DataLoss(const std::string& message) {
  return Status(StatusCode::kDataLoss, "corrupted artifact: " + message);
}

// The FlatBuffers verifier (2.0) checks a vector's length word for
// alignment, not its elements; reading 8-byte scalars or structs at a
// misaligned address is UB (found by //tests/fuzz:artifact_loader_fuzzer).
// An empty vector has no elements and the builder does not align it.
template <typename Vector>
bool ElementsAligned(const Vector* v, size_t alignment) {
  return v == nullptr || v->size() == 0 ||
         reinterpret_cast<uintptr_t>(v->Data()) % alignment == 0;
}

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

Status CheckHeader(const uint8_t* data, size_t size, format::Header* out) {
  if (size < format::kHeaderSize)
    return DataLoss("file is " + std::to_string(size) +
                    " bytes, smaller than the 64-byte header (truncated?)");
  if (std::memcmp(data, format::kMagic, 4) != 0)
    return Status(StatusCode::kInvalidArgument, "not a .kiln file (no 'KILN' magic)");
  format::Header h = format::DecodeHeader(data);
  // Before the checksum: older files use another checksum, and "checksum
  // mismatch" would send the user looking for corruption.
  if (h.format_version < format::kFormatVersion)
    return Status(StatusCode::kUnimplemented,
                  "artifact format version " + std::to_string(h.format_version) +
                      " was built by an older kilnc; recompile the model (this runtime "
                      "reads version " + std::to_string(format::kFormatVersion) + ")");
  if (h.format_version > format::kFormatVersion)
    return Status(StatusCode::kUnimplemented,
                  "artifact format version " + std::to_string(h.format_version) +
                      " was built by a newer kilnc; this runtime reads version " +
                      std::to_string(format::kFormatVersion));
  if (h.header_size != format::kHeaderSize)
    return DataLoss("header size " + std::to_string(h.header_size) + ", expected 64");
  if (h.file_size != size)
    return DataLoss("header says the file is " + std::to_string(h.file_size) +
                    " bytes, but it is " + std::to_string(size) + " (truncated or extended)");
  if (h.flatbuffer_offset < format::kHeaderSize || h.flatbuffer_offset % 8 != 0 ||
      h.flatbuffer_size < 8 || h.flatbuffer_size >= (1ull << 31) ||
      !RangeInside(h.flatbuffer_offset, h.flatbuffer_size, size))
    return DataLoss("FlatBuffer range [" + std::to_string(h.flatbuffer_offset) + ", +" +
                    std::to_string(h.flatbuffer_size) + ") is not inside the " +
                    std::to_string(size) + "-byte file or misaligned");
  if (h.constants_offset % format::kAlignment != 0 ||
      h.constants_offset < h.flatbuffer_offset + h.flatbuffer_size ||
      !RangeInside(h.constants_offset, h.constants_size, size))
    return DataLoss("constants segment [" + std::to_string(h.constants_offset) + ", +" +
                    std::to_string(h.constants_size) + ") is misaligned or outside the file");
  uint64_t checksum = format::Checksum(data + format::kHeaderSize, size - format::kHeaderSize);
  if (checksum != h.checksum)
    return DataLoss("checksum mismatch (the file's bytes changed after it was written)");
  *out = h;
  return Status::Ok();
}

Status DescribeTensor(const fb::TensorDesc* t, const std::string& what, TensorInfo* out) {
  if (t == nullptr || t->name() == nullptr)
    return DataLoss(what + " has no name");
  out->name = t->name()->str();
  if (static_cast<uint8_t>(t->dtype()) > static_cast<uint8_t>(DType::Bool))
    return DataLoss(what + " '" + out->name + "' has unknown dtype " +
                    std::to_string(static_cast<int>(t->dtype())));
  out->dtype = static_cast<DType>(t->dtype());
  uint64_t bytes = DTypeSize(out->dtype);
  // Absent means corrupted; a scalar has an empty (present) vector.
  if (t->dims() == nullptr) return DataLoss(what + " '" + out->name + "' has no dims");
  if (!ElementsAligned(t->dims(), alignof(int64_t)))
    return DataLoss(what + " '" + out->name + "' has misaligned dims");
  for (int64_t d : *t->dims()) {
    if (d < 0)
      return Status(StatusCode::kUnimplemented,
                    what + " '" + out->name + "' has a dynamic or negative dimension; "
                    "this runtime runs static shapes only");
    // Bounded well below 2^64 so that offsets and sums of sizes cannot wrap.
    if (!CheckedMul(bytes, static_cast<uint64_t>(d), &bytes) || bytes > (1ull << 62))
      return DataLoss(what + " '" + out->name + "' is impossibly large");
    out->dims.push_back(d);
  }
  if (t->dim_names() != nullptr) {
    if (t->dim_names()->size() != 0 && t->dim_names()->size() != out->dims.size())
      return DataLoss(what + " '" + out->name + "' has " +
                      std::to_string(t->dim_names()->size()) + " dim names for " +
                      std::to_string(out->dims.size()) + " dims");
    for (const flatbuffers::String* n : *t->dim_names()) out->dim_names.push_back(Str(n));
  }
  out->byte_size = bytes;
  return Status::Ok();
}

std::string GridName(const uint32_t grid[3]) {
  return std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]);
}

// One entry of an executable's kernel table, with what the plan steps are
// checked against.
Status DescribeKernel(const fb::Kernel* k, const std::string& what, KernelInfo* out) {
  if (k == nullptr || k->name() == nullptr) return DataLoss(what + " has no name");
  out->name = k->name()->str();
  std::string where = what + " '" + out->name + "'";
  out->binding_count = k->binding_count();
  out->push_constant_count = k->push_constant_count();
  if (k->bindings() == nullptr || k->bindings()->size() != out->binding_count)
    return DataLoss(where + " takes " + std::to_string(out->binding_count) +
                    " bindings but describes " +
                    std::to_string(k->bindings() ? k->bindings()->size() : 0));
  if (!ElementsAligned(k->bindings(), alignof(fb::KernelBinding)))
    return DataLoss(where + " has misaligned binding descriptions");
  for (uint32_t b = 0; b < out->binding_count; ++b) {
    const fb::KernelBinding* binding = k->bindings()->Get(b);
    uint8_t access = static_cast<uint8_t>(binding->access());
    if (access > static_cast<uint8_t>(fb::BindingAccess::ReadWrite))
      return DataLoss(where + " binding " + std::to_string(b) + " has unknown access " +
                      std::to_string(access));
    out->bindings.push_back({binding->size(), static_cast<BindingAccess>(access)});
  }
  if (k->workgroups() == nullptr || k->workgroups()->size() != 3)
    return DataLoss(where + ": workgroup count is not 3 numbers");
  uint64_t total = 1;
  for (uint32_t a = 0; a < 3; ++a) {
    out->workgroups[a] = k->workgroups()->Get(a);
    if (out->workgroups[a] == 0) return DataLoss(where + ": zero workgroups");
    // The pool counts workgroups in 64 bits; three 32-bit counts can wrap.
    if (!CheckedMul(total, out->workgroups[a], &total))
      return DataLoss(where + ": " + GridName(out->workgroups) + " workgroups overflow");
  }
  return Status::Ok();
}

const char* SpaceName(fb::BufferSpace space) {
  switch (space) {
    case fb::BufferSpace::Input: return "input";
    case fb::BufferSpace::Output: return "output";
    case fb::BufferSpace::Arena: return "arena";
    case fb::BufferSpace::Constant: return "constant";
  }
  return "unknown";
}

}  // namespace

Status LoadedArtifact::Open(std::unique_ptr<FileBytes> bytes, const PlanRequest& request,
                            std::unique_ptr<LoadedArtifact>* out) {
  format::Header header;
  Status s = CheckHeader(bytes->data(), bytes->size(), &header);
  if (!s.ok()) return s;
  const uint8_t* fb_data = bytes->data() + header.flatbuffer_offset;
  flatbuffers::Verifier verifier(fb_data, header.flatbuffer_size, /*max_depth=*/64,
                                 /*max_tables=*/10000000);
  // The verifier checks the size before it reads the identifier.
  if (!fb::VerifyModelBuffer(verifier) || !fb::ModelBufferHasIdentifier(fb_data))
    return DataLoss("the FlatBuffer does not verify against kiln.fbs");

  std::unique_ptr<LoadedArtifact> artifact(new LoadedArtifact());
  artifact->model_ = fb::GetModel(fb_data);
  artifact->constants_ = bytes->data() + header.constants_offset;
  artifact->constants_size_ = header.constants_size;
  artifact->description_.file_size = header.file_size;
  artifact->bytes_ = std::move(bytes);
  s = artifact->CheckSemantics(request);
  if (!s.ok()) return s;
  if (request.for_running && !artifact->gpu_plan()) {
    s = artifact->LoadCode();
    if (!s.ok()) return s;
  }
  *out = std::move(artifact);
  return Status::Ok();
}

Status LoadedArtifact::DescribeGpu(const fb::Executable& e, const std::string& where,
                                   ExecutableInfo* info) {
  const fb::GpuExecutable* g = e.gpu();
  if (g == nullptr || g->archs() == nullptr || g->modules() == nullptr || g->kernels() == nullptr)
    return DataLoss(where + " is a cuda executable without its GPU table");
  if (info->format != kGpuFormat)
    return Status(StatusCode::kUnimplemented,
                  where + " has format '" + info->format + "'; expected '" + kGpuFormat + "'");
  for (const flatbuffers::String* a : *g->archs()) info->gpu_archs.push_back(Str(a));
  info->ptx_version = Str(g->ptx_version());
  info->ptx_target = Str(g->ptx_target());
  info->gpu_module_count = g->modules()->size();
  for (uint32_t m = 0; m < g->modules()->size(); ++m) {
    const fb::GpuModule* module = g->modules()->Get(m);
    if (module == nullptr || module->ptx() == nullptr || module->cubins() == nullptr ||
        module->cubins()->size() != info->gpu_archs.size())
      return DataLoss(where + " GPU module " + std::to_string(m) +
                      " lacks its PTX or a cubin per architecture");
    info->code_size += module->ptx()->size();
    for (const fb::GpuCubin* c : *module->cubins()) {
      if (c == nullptr || c->data() == nullptr)
        return DataLoss(where + " GPU module " + std::to_string(m) + " has an empty cubin");
      info->code_size += c->data()->size();
    }
  }
  if (g->kernels()->size() != info->kernels.size())
    return DataLoss(where + " describes " + std::to_string(g->kernels()->size()) +
                    " GPU launches for " + std::to_string(info->kernels.size()) + " kernels");
  for (uint32_t k = 0; k < g->kernels()->size(); ++k) {
    const fb::GpuKernel* gk = g->kernels()->Get(k);
    std::string kernel_name = where + " GPU kernel " + std::to_string(k);
    if (gk == nullptr || gk->entry() == nullptr || gk->block() == nullptr ||
        gk->block()->size() != 3)
      return DataLoss(kernel_name + " lacks its entry or a 3-D block size");
    if (gk->module_index() >= info->gpu_module_count)
      return DataLoss(kernel_name + " names module " + std::to_string(gk->module_index()) + " of " +
                      std::to_string(info->gpu_module_count));
    GpuKernelInfo launch;
    launch.entry = Str(gk->entry());
    launch.module = gk->module_index();
    for (uint32_t a = 0; a < 3; ++a) launch.block[a] = gk->block()->Get(a);
    launch.shared_memory_bytes = gk->shared_memory_bytes();
    info->gpu_kernels.push_back(std::move(launch));
  }
  return Status::Ok();
}

Status LoadedArtifact::CheckSemantics(const PlanRequest& request) {
  const bool for_running = request.for_running;
  const fb::Model& m = *model_;
  ModelDescription& d = description_;
  d.format_version = m.format_version();
  if (d.format_version != format::kFormatVersion)
    return DataLoss("FlatBuffer format version " + std::to_string(d.format_version) +
                    " differs from the header's");
  d.producer = Str(m.producer());
  d.source_name = Str(m.source_name());
  // kilnc writes every vector, empty or not: an absent one is corruption.
  if (m.inputs() == nullptr || m.outputs() == nullptr || m.constants() == nullptr ||
      m.executables() == nullptr || m.plans() == nullptr)
    return DataLoss(std::string("the model has no ") +
                    (m.inputs() == nullptr        ? "inputs"
                     : m.outputs() == nullptr     ? "outputs"
                     : m.constants() == nullptr   ? "constants"
                     : m.executables() == nullptr ? "executables"
                                                  : "plans") +
                    " vector");
  if (m.outputs()->size() == 0) return DataLoss("the model has no outputs");

  auto describe_all = [](const flatbuffers::Vector<flatbuffers::Offset<fb::TensorDesc>>* list,
                         const char* what, std::vector<TensorInfo>* infos) {
    for (uint32_t i = 0; i < list->size(); ++i) {
      TensorInfo info;
      Status s = DescribeTensor(list->Get(i), std::string(what) + " " + std::to_string(i), &info);
      if (!s.ok()) return s;
      for (const TensorInfo& other : *infos)
        if (other.name == info.name) return DataLoss(std::string(what) + " name '" + info.name + "' repeats");
      infos->push_back(std::move(info));
    }
    return Status::Ok();
  };
  Status s = describe_all(m.inputs(), "input", &d.inputs);
  if (!s.ok()) return s;
  s = describe_all(m.outputs(), "output", &d.outputs);
  if (!s.ok()) return s;

  uint32_t constant_count = m.constants()->size();
  for (uint32_t i = 0; i < constant_count; ++i) {
    const fb::Constant* c = m.constants()->Get(i);
    if (c == nullptr) return DataLoss("constant " + std::to_string(i) + " is missing");
    if (c->offset() % format::kAlignment != 0 ||
        !RangeInside(c->offset(), c->size(), constants_size_))
      return DataLoss("constant " + std::to_string(i) + " '" + Str(c->name()) + "' at [" +
                      std::to_string(c->offset()) + ", +" + std::to_string(c->size()) +
                      ") is misaligned or outside the " + std::to_string(constants_size_) +
                      "-byte constants segment");
    // Constants may share bytes, so the sum is not bounded by the segment.
    if (!CheckedAdd(d.constant_bytes, c->size(), &d.constant_bytes))
      return DataLoss("the constants' sizes add up past 2^64 bytes");
  }
  d.constant_count = constant_count;

  uint32_t executable_count = m.executables()->size();
  for (uint32_t i = 0; i < executable_count; ++i) {
    const fb::Executable* e = m.executables()->Get(i);
    std::string exe_name = "executable " + std::to_string(i);
    if (e == nullptr) return DataLoss(exe_name + " is missing");
    // A cuda executable keeps its code in `gpu`; its (empty) blob may be
    // absent.
    const bool gpu_target = e->target() != nullptr && e->target()->str() == kGpuTarget;
    if (e->target() == nullptr || e->format() == nullptr ||
        (e->blob() == nullptr && !gpu_target) || e->kernels() == nullptr)
      return DataLoss(exe_name + " has no " +
                      (e->target() == nullptr   ? "target"
                       : e->format() == nullptr ? "format"
                       : e->blob() == nullptr   ? "code blob"
                                                : "kernel table"));
    ExecutableInfo info;
    info.target = Str(e->target());
    info.format = Str(e->format());
    info.cpu = Str(e->cpu());
    info.code_size = e->blob() ? e->blob()->size() : 0;
    if (e->required_features())
      for (const flatbuffers::String* f : *e->required_features())
        info.required_features.push_back(Str(f));
    for (uint32_t k = 0; k < e->kernels()->size(); ++k) {
      KernelInfo kernel;
      Status ks = DescribeKernel(e->kernels()->Get(k), exe_name + " kernel " + std::to_string(k),
                                 &kernel);
      if (!ks.ok()) return ks;
      info.kernels.push_back(std::move(kernel));
    }
    if (info.target == kGpuTarget) {
      Status gs = DescribeGpu(*e, exe_name, &info);
      if (!gs.ok()) return gs;
    }
    if (info.target == kCpuTarget) {
      if (info.format != kCpuFormat)
        return Status(StatusCode::kUnimplemented, "executable " + std::to_string(i) +
                                                      " has format '" + info.format +
                                                      "'; expected '" + kCpuFormat + "'");
      // An empty (but present) kernel table is fine: a plan of copies only.
      if (info.code_size == 0) return DataLoss(exe_name + " has no code");
      for (const std::string& f : info.required_features) {
        FeatureSupport support = QueryCpuFeature(f);
        if (support == FeatureSupport::kUnknownName)
          return Status(StatusCode::kUnimplemented,
                        "executable " + std::to_string(i) + " needs CPU feature '" + f +
                            "', which this runtime does not know");
        if (support == FeatureSupport::kMissing) info.missing_features.push_back(f);
      }
    }
    d.executables.push_back(std::move(info));
  }

  // What the artifact was built for, for the refusals: "cuda (sm_80,
  // sm_90)", "x86_64".
  std::string built_for;
  const fb::Plan* cpu_plan = nullptr;
  const fb::Plan* gpu_plan = nullptr;
  const fb::Plan* first_plan = nullptr;
  for (const fb::Plan* p : *m.plans()) {
    if (p == nullptr) continue;
    std::string target = Str(p->target());
    if (first_plan == nullptr) first_plan = p;
    if (target == kCpuTarget && cpu_plan == nullptr) cpu_plan = p;
    if (target == kGpuTarget && gpu_plan == nullptr) gpu_plan = p;
    if (built_for.find(target) != std::string::npos) continue;
    std::string archs;
    for (const ExecutableInfo& e : d.executables)
      if (e.target == target)
        for (const std::string& a : e.gpu_archs) archs += (archs.empty() ? "" : ", ") + a;
    built_for += (built_for.empty() ? "" : ", ") + target + (archs.empty() ? "" : " (" + archs + ")");
  }
  if (first_plan == nullptr) return DataLoss("the artifact has no plans");
  if (request.gpu && gpu_plan != nullptr) {
    plan_ = gpu_plan;
  } else if (request.require_gpu && for_running) {
    return Status(StatusCode::kUnimplemented,
                  "this artifact has no cuda plan; built for " + built_for +
                      " (recompile with kilnc --target=cuda or --target=cpu,cuda, or run it on "
                      "the CPU with --device=cpu or auto)");
  } else if (cpu_plan != nullptr) {
    plan_ = cpu_plan;
  } else {
    // Describing (kiln inspect) shows the first plan; running says what
    // the artifact was built for and why it cannot run here.
    plan_ = first_plan;
    if (for_running)
      return Status(StatusCode::kUnimplemented,
                    "this artifact has no CPU plan; built for " + built_for +
                        (gpu_plan != nullptr
                             ? " (no CUDA GPU is available" +
                                   (request.no_gpu_reason.empty()
                                        ? std::string()
                                        : ": " + request.no_gpu_reason) +
                                   "; run it on a machine with an NVIDIA GPU and driver, or "
                                   "recompile with kilnc --target=cpu or --target=cpu,cuda)"
                             : std::string(" (recompile with kilnc --target=cpu)")));
  }
  d.plan_target = Str(plan_->target());
  if (plan_->steps() == nullptr || plan_->steps()->size() == 0)
    return DataLoss("the " + d.plan_target + " plan has no steps");
  d.arena_size = plan_->arena_size();
  // Sessions allocate it rounded up to 64 bytes; a size that cannot be
  // rounded (or addressed) is corruption, not a request for memory.
  uint64_t rounded_arena = 0;
  if (!CheckedAlignUp(d.arena_size, 64, &rounded_arena) || rounded_arena > (1ull << 62))
    return DataLoss("arena size " + std::to_string(d.arena_size) + " is impossibly large");
  d.intermediate_bytes = plan_->intermediate_bytes();

  auto buffer_size = [&](const fb::Binding& b, uint64_t* size) {
    switch (b.space()) {
      case fb::BufferSpace::Input:
        if (b.index() >= d.inputs.size()) return false;
        *size = d.inputs[b.index()].byte_size;
        return true;
      case fb::BufferSpace::Output:
        if (b.index() >= d.outputs.size()) return false;
        *size = d.outputs[b.index()].byte_size;
        return true;
      case fb::BufferSpace::Arena:
        *size = d.arena_size;
        return true;
      case fb::BufferSpace::Constant:
        if (b.index() >= constant_count) return false;
        *size = m.constants()->Get(b.index())->size();
        return true;
    }
    return false;
  };
  auto check_binding = [&](const fb::Binding* b, const std::string& where) {
    uint64_t size = 0;
    if (b == nullptr) return DataLoss(where + ": binding missing");
    if (!buffer_size(*b, &size))
      return DataLoss(where + ": no " + SpaceName(b->space()) + " " + std::to_string(b->index()));
    if (!RangeInside(b->offset(), b->length(), size))
      return DataLoss(where + ": range [" + std::to_string(b->offset()) + ", +" +
                      std::to_string(b->length()) + ") is outside " + SpaceName(b->space()) +
                      " " + std::to_string(b->index()) + " (" + std::to_string(size) + " bytes)");
    return Status::Ok();
  };

  uint32_t step_count = plan_->steps()->size();
  for (uint32_t i = 0; i < step_count; ++i) {
    const fb::Step* step = plan_->steps()->Get(i);
    if (step == nullptr) return DataLoss("step " + std::to_string(i) + " is missing");
    StepInfo info;
    info.label = Str(step->label());
    std::string where = "step " + std::to_string(i) + " '" + info.label + "'";
    if (step->kind() == fb::StepKind::Copy) {
      const fb::CopyStep* c = step->copy();
      if (c == nullptr) return DataLoss(where + ": copy step without copy");
      info.kind = StepInfo::Kind::kCopy;
      if ((s = check_binding(c->source(), where + " source")).ok())
        s = check_binding(c->target(), where + " target");
      if (!s.ok()) return s;
      if (c->source()->length() != c->target()->length())
        return DataLoss(where + ": copies " + std::to_string(c->source()->length()) +
                        " bytes into " + std::to_string(c->target()->length()));
      fb::BufferSpace t = c->target()->space();
      if (t == fb::BufferSpace::Input || t == fb::BufferSpace::Constant)
        return DataLoss(where + ": copies into read-only " + SpaceName(t) + " memory");
      info.copy_bytes = c->source()->length();
    } else if (step->kind() == fb::StepKind::Dispatch) {
      const fb::DispatchStep* ds = step->dispatch();
      if (ds == nullptr) return DataLoss(where + ": dispatch step without dispatch");
      if (ds->executable() >= executable_count)
        return DataLoss(where + ": executable " + std::to_string(ds->executable()) + " of " +
                        std::to_string(executable_count));
      const ExecutableInfo& exe = d.executables[ds->executable()];
      if (exe.target != d.plan_target)
        return DataLoss(where + ": " + d.plan_target + " plan dispatches a '" + exe.target +
                        "' executable");
      if (ds->kernel() >= exe.kernels.size())
        return DataLoss(where + ": kernel " + std::to_string(ds->kernel()) + " of " +
                        std::to_string(exe.kernels.size()));
      const KernelInfo& kernel = exe.kernels[ds->kernel()];
      if (ds->workgroups() == nullptr || ds->workgroups()->size() != 3)
        return DataLoss(where + ": workgroup count is not 3 numbers");
      for (uint32_t a = 0; a < 3; ++a) info.workgroups[a] = ds->workgroups()->Get(a);
      if (std::memcmp(info.workgroups, kernel.workgroups, sizeof info.workgroups) != 0)
        return DataLoss(where + ": dispatches " + GridName(info.workgroups) +
                        " workgroups, but kernel '" + kernel.name + "' was compiled for " +
                        GridName(kernel.workgroups));
      if (ds->bindings() == nullptr) return DataLoss(where + ": dispatch without bindings");
      if (!ElementsAligned(ds->bindings(), alignof(fb::Binding)))
        return DataLoss(where + ": misaligned bindings");
      uint32_t bindings = ds->bindings()->size();
      uint32_t pushes = ds->push_constants() ? ds->push_constants()->size() : 0;
      if (bindings != kernel.binding_count || pushes != kernel.push_constant_count)
        return DataLoss(where + ": kernel '" + kernel.name + "' takes " +
                        std::to_string(kernel.binding_count) + " bindings and " +
                        std::to_string(kernel.push_constant_count) + " push constants, step has " +
                        std::to_string(bindings) + " and " + std::to_string(pushes));
      for (uint32_t b = 0; b < bindings; ++b) {
        const fb::Binding* binding = ds->bindings()->Get(b);
        std::string what = where + " binding " + std::to_string(b);
        if (!(s = check_binding(binding, what)).ok()) return s;
        const KernelBindingInfo& expected = kernel.bindings[b];
        if (binding->length() != expected.size)
          return DataLoss(what + ": " + std::to_string(binding->length()) +
                          " bytes, but kernel '" + kernel.name + "' was compiled for " +
                          std::to_string(expected.size));
        if (expected.access == BindingAccess::kRead) continue;
        fb::BufferSpace space = binding->space();
        // Inputs are the caller's read-only tensors; constants are a
        // read-only mapping of the file (a write would fault).
        if (space == fb::BufferSpace::Input || space == fb::BufferSpace::Constant)
          return DataLoss(what + ": kernel '" + kernel.name + "' writes it, but it is in " +
                          "read-only " + SpaceName(space) + " memory");
        // Kernels take every binding as restrict (noalias): a write may not
        // share bytes with any other binding of the step. No kernel is
        // compiled to work in place, so the format has no in-place flag.
        for (uint32_t o = 0; o < bindings; ++o) {
          const fb::Binding* other = ds->bindings()->Get(o);
          if (o == b || other->space() != space ||
              (space != fb::BufferSpace::Arena && other->index() != binding->index()))
            continue;
          if (RangesOverlap(binding->offset(), binding->length(), other->offset(),
                            other->length()))
            return DataLoss(what + " (written) overlaps binding " + std::to_string(o) +
                            " in " + SpaceName(space) + " memory: [" +
                            std::to_string(binding->offset()) + ", +" +
                            std::to_string(binding->length()) + ") and [" +
                            std::to_string(other->offset()) + ", +" +
                            std::to_string(other->length()) + ")");
        }
      }
      info.executable = ds->executable();
      info.kernel = ds->kernel();
    } else if (step->kind() == fb::StepKind::CustomCall) {
      info.kind = StepInfo::Kind::kCustomCall;
      if (!(s = CheckCustomCall(*step, where, check_binding, &info)).ok()) return s;
      if (for_running && d.plan_target == kGpuTarget)
        return Status(StatusCode::kUnimplemented,
                      where + ": custom op '" + info.custom_op +
                          "' in a cuda plan; this runtime runs external custom ops on the CPU "
                          "only (recompile with kilnc --target=cpu, or run with --device=cpu on "
                          "a cpu,cuda artifact)");
    } else if (step->kind() == fb::StepKind::LibraryCall) {
      info.kind = StepInfo::Kind::kLibraryCall;
      if (!(s = CheckLibraryCall(*step, where, check_binding, &info)).ok()) return s;
      if (d.plan_target != kGpuTarget)
        return Status(StatusCode::kUnimplemented,
                      where + ": a " + d.plan_target + " plan calls library '" + info.library +
                          "'; library calls run in cuda plans only");
    } else {
      return Status(StatusCode::kUnimplemented,
                    where + ": unknown step kind " + std::to_string(static_cast<int>(step->kind())));
    }
    d.steps.push_back(std::move(info));
  }
  return Status::Ok();
}

Status LoadedArtifact::CheckCustomCall(
    const fb::Step& step, const std::string& where,
    const std::function<Status(const fb::Binding*, const std::string&)>& check_binding,
    StepInfo* info) {
  const fb::CustomCallStep* c = step.custom_call();
  if (c == nullptr) return DataLoss(where + ": custom-call step without custom_call");
  if (c->op() == nullptr || c->op()->size() == 0)
    return DataLoss(where + ": custom call without an op name");
  if (c->inputs() == nullptr || c->outputs() == nullptr || c->attributes() == nullptr)
    return DataLoss(where + ": custom call without " +
                    (c->inputs() == nullptr    ? "inputs"
                     : c->outputs() == nullptr ? "outputs"
                                               : "attributes"));
  CustomCallInfo call;
  call.op = c->op()->str();
  call.node = Str(c->node());
  info->custom_op = call.op;
  info->node = call.node;
  std::string op_where = where + " (custom op '" + call.op + "')";

  // Operands: binding inside its buffer, exactly dtype size x dims bytes.
  std::vector<const fb::Binding*> bindings;
  auto describe = [&](const flatbuffers::Vector<flatbuffers::Offset<fb::CustomOperand>>& list,
                      const char* what, std::vector<kiln_custom_tensor_t>* out) -> Status {
    for (uint32_t i = 0; i < list.size(); ++i) {
      const fb::CustomOperand* o = list.Get(i);
      std::string name = op_where + " " + what + " " + std::to_string(i);
      if (o == nullptr || o->binding() == nullptr || o->dims() == nullptr)
        return DataLoss(name + " is incomplete");
      Status s = check_binding(o->binding(), name);
      if (!s.ok()) return s;
      if (!ElementsAligned(o->dims(), alignof(int64_t))) return DataLoss(name + ": misaligned dims");
      uint8_t dtype = static_cast<uint8_t>(o->dtype());
      if (dtype > static_cast<uint8_t>(DType::Bool))
        return DataLoss(name + ": unknown dtype " + std::to_string(dtype));
      uint64_t bytes = DTypeSize(static_cast<DType>(dtype));
      for (int64_t d : *o->dims())
        if (d < 0 || !CheckedMul(bytes, static_cast<uint64_t>(d), &bytes) || bytes > (1ull << 62))
          return DataLoss(name + ": bad dimension " + std::to_string(d));
      if (bytes != o->binding()->length())
        return DataLoss(name + ": " + DescribeShape(std::vector<int64_t>(o->dims()->begin(),
                                                                          o->dims()->end()),
                                                    static_cast<DType>(dtype)) +
                        " is " + std::to_string(bytes) + " bytes, but its binding has " +
                        std::to_string(o->binding()->length()));
      kiln_custom_tensor_t tensor;
      tensor.dtype = dtype;
      tensor.rank = static_cast<int32_t>(o->dims()->size());
      tensor.dims = o->dims()->data();
      tensor.data = nullptr;
      tensor.byte_size = bytes;
      out->push_back(tensor);
      bindings.push_back(o->binding());
    }
    return Status::Ok();
  };
  Status s = describe(*c->inputs(), "input", &call.inputs);
  if (s.ok()) s = describe(*c->outputs(), "output", &call.outputs);
  if (!s.ok()) return s;

  // Outputs: writable memory, sharing no byte with any other operand (the
  // ABI promises the kernel as much).
  for (size_t b = call.inputs.size(); b < bindings.size(); ++b) {
    const fb::Binding* binding = bindings[b];
    std::string what = op_where + " output " + std::to_string(b - call.inputs.size());
    fb::BufferSpace space = binding->space();
    if (space == fb::BufferSpace::Input || space == fb::BufferSpace::Constant)
      return DataLoss(what + " is in read-only " + SpaceName(space) + " memory");
    for (size_t o = 0; o < bindings.size(); ++o) {
      const fb::Binding* other = bindings[o];
      if (o == b || other->space() != space ||
          (space != fb::BufferSpace::Arena && other->index() != binding->index()))
        continue;
      if (RangesOverlap(binding->offset(), binding->length(), other->offset(), other->length()))
        return DataLoss(what + " overlaps operand " + std::to_string(o) + " in " +
                        SpaceName(space) + " memory");
    }
  }

  for (uint32_t i = 0; i < c->attributes()->size(); ++i) {
    const fb::CustomAttribute* a = c->attributes()->Get(i);
    std::string what = op_where + " attribute " + std::to_string(i);
    if (a == nullptr || a->name() == nullptr) return DataLoss(what + " has no name");
    what += " '" + a->name()->str() + "'";
    kiln_custom_attr_t attr{};
    attr.name = a->name()->c_str();
    attr.kind = static_cast<int32_t>(a->kind());
    switch (a->kind()) {
      case fb::AttributeKind::Int:
      case fb::AttributeKind::Ints:
        if (a->ints() == nullptr || !ElementsAligned(a->ints(), alignof(int64_t)) ||
            (a->kind() == fb::AttributeKind::Int && a->ints()->size() != 1))
          return DataLoss(what + ": missing or misaligned integers");
        attr.count = a->ints()->size();
        attr.ints = a->ints()->data();
        break;
      case fb::AttributeKind::Float:
      case fb::AttributeKind::Floats:
        if (a->floats() == nullptr || !ElementsAligned(a->floats(), alignof(double)) ||
            (a->kind() == fb::AttributeKind::Float && a->floats()->size() != 1))
          return DataLoss(what + ": missing or misaligned floats");
        attr.count = a->floats()->size();
        attr.floats = a->floats()->data();
        break;
      case fb::AttributeKind::String:
        if (a->string() == nullptr) return DataLoss(what + ": missing string");
        attr.count = a->string()->size();
        attr.string = a->string()->c_str();
        break;
      default:
        return DataLoss(what + ": unknown kind " + std::to_string(attr.kind));
    }
    call.attrs.push_back(attr);
  }
  bool known = false;
  for (const std::string& op : description_.custom_ops) known |= op == call.op;
  if (!known) description_.custom_ops.push_back(call.op);
  custom_calls_.push_back(std::move(call));
  return Status::Ok();
}

Status LoadedArtifact::ResolveCustomOps(const CustomOpRegistry& registry) {
  std::string missing;
  for (const std::string& op : description_.custom_ops) {
    CustomKernel kernel;
    if (registry.Find(op, &kernel)) {
      for (CustomCallInfo& call : custom_calls_)
        if (call.op == op) call.kernel = kernel;
      continue;
    }
    std::string nodes;
    for (const CustomCallInfo& call : custom_calls_)
      if (call.op == op && !call.node.empty())
        nodes += std::string(nodes.empty() ? "" : ", ") + "'" + call.node + "'";
    missing += std::string(missing.empty() ? "" : ", ") + "'" + op + "'" +
               (nodes.empty() ? "" : " (node " + nodes + ")");
  }
  if (missing.empty()) return Status::Ok();
  return Status(StatusCode::kFailedPrecondition,
                "the model calls custom op(s) " + missing +
                    " that this Runtime has no kernel for; register them with "
                    "Runtime::RegisterCustomOp or RegisterCustomOpLibrary "
                    "(kiln_runtime_register_custom_op*) before loading the model");
}

Status LoadedArtifact::LoadCode() {
  executables_.resize(description_.executables.size());
  for (size_t i = 0; i < executables_.size(); ++i) {
    const ExecutableInfo& info = description_.executables[i];
    if (info.target != kCpuTarget) continue;
    if (!info.missing_features.empty()) {
      std::string names;
      for (const std::string& f : info.missing_features) names += (names.empty() ? "" : ", ") + f;
      return Status(StatusCode::kFailedPrecondition,
                    "artifact needs CPU features " + names + " (compiled for " +
                        (info.cpu.empty() ? std::string("an unnamed CPU") : info.cpu) +
                        "); this CPU lacks them");
    }
    Status s = CpuExecutable::Load(*model_->executables()->Get(i), info.kernels,
                                   "executable " + std::to_string(i), &executables_[i]);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace kiln
