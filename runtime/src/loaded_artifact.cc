#include "runtime/src/loaded_artifact.h"

#include <cstring>

#include "runtime/schema/file_format.h"
#include "runtime/src/cpu_features.h"

namespace kiln {
namespace {

constexpr const char* kCpuTarget = "x86_64";
constexpr const char* kCpuFormat = "elf-shared-object";

Status DataLoss(const std::string& message) {
  return Status(StatusCode::kDataLoss, "corrupted artifact: " + message);
}

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

// a + b <= limit without overflow.
bool RangeInside(uint64_t offset, uint64_t length, uint64_t limit) {
  return offset <= limit && length <= limit - offset;
}

Status CheckHeader(const uint8_t* data, size_t size, format::Header* out) {
  if (size < format::kHeaderSize)
    return DataLoss("file is " + std::to_string(size) +
                    " bytes, smaller than the 64-byte header (truncated?)");
  if (std::memcmp(data, format::kMagic, 4) != 0)
    return Status(StatusCode::kInvalidArgument, "not a .kiln file (no 'KILN' magic)");
  format::Header h = format::DecodeHeader(data);
  if (h.format_version != format::kFormatVersion)
    return Status(StatusCode::kUnimplemented,
                  "artifact format version " + std::to_string(h.format_version) +
                      " is not supported; this runtime reads version " +
                      std::to_string(format::kFormatVersion));
  if (h.header_size != format::kHeaderSize)
    return DataLoss("header size " + std::to_string(h.header_size) + ", expected 64");
  if (h.file_size != size)
    return DataLoss("header says the file is " + std::to_string(h.file_size) +
                    " bytes, but it is " + std::to_string(size) + " (truncated or extended)");
  if (h.flatbuffer_offset < format::kHeaderSize || h.flatbuffer_offset % 8 != 0 ||
      h.flatbuffer_size == 0 || h.flatbuffer_size >= (1ull << 31) ||
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
  if (t->dims() != nullptr) {
    for (int64_t d : *t->dims()) {
      if (d < 0)
        return Status(StatusCode::kUnimplemented,
                      what + " '" + out->name + "' has a dynamic or negative dimension; "
                      "this runtime runs static shapes only");
      if (d > 0 && bytes > (1ull << 62) / static_cast<uint64_t>(d))
        return DataLoss(what + " '" + out->name + "' is impossibly large");
      out->dims.push_back(d);
      bytes *= static_cast<uint64_t>(d);
    }
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

Status LoadedArtifact::Open(std::unique_ptr<FileBytes> bytes, bool load_code,
                            std::unique_ptr<LoadedArtifact>* out) {
  format::Header header;
  Status s = CheckHeader(bytes->data(), bytes->size(), &header);
  if (!s.ok()) return s;
  const uint8_t* fb_data = bytes->data() + header.flatbuffer_offset;
  flatbuffers::Verifier verifier(fb_data, header.flatbuffer_size, /*max_depth=*/64,
                                 /*max_tables=*/10000000);
  if (!fb::ModelBufferHasIdentifier(fb_data) || !fb::VerifyModelBuffer(verifier))
    return DataLoss("the FlatBuffer does not verify against kiln.fbs");

  std::unique_ptr<LoadedArtifact> artifact(new LoadedArtifact());
  artifact->model_ = fb::GetModel(fb_data);
  artifact->constants_ = bytes->data() + header.constants_offset;
  artifact->constants_size_ = header.constants_size;
  artifact->description_.file_size = header.file_size;
  artifact->bytes_ = std::move(bytes);
  s = artifact->CheckSemantics();
  if (!s.ok()) return s;
  if (load_code) {
    s = artifact->LoadCode();
    if (!s.ok()) return s;
  }
  *out = std::move(artifact);
  return Status::Ok();
}

Status LoadedArtifact::CheckSemantics() {
  const fb::Model& m = *model_;
  ModelDescription& d = description_;
  d.format_version = m.format_version();
  if (d.format_version != format::kFormatVersion)
    return DataLoss("FlatBuffer format version " + std::to_string(d.format_version) +
                    " differs from the header's");
  d.producer = Str(m.producer());
  d.source_name = Str(m.source_name());

  auto describe_all = [](const flatbuffers::Vector<flatbuffers::Offset<fb::TensorDesc>>* list,
                         const char* what, std::vector<TensorInfo>* infos) {
    if (list == nullptr) return Status::Ok();
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

  uint32_t constant_count = m.constants() ? m.constants()->size() : 0;
  for (uint32_t i = 0; i < constant_count; ++i) {
    const fb::Constant* c = m.constants()->Get(i);
    if (c->offset() % format::kAlignment != 0 ||
        !RangeInside(c->offset(), c->size(), constants_size_))
      return DataLoss("constant " + std::to_string(i) + " '" + Str(c->name()) + "' at [" +
                      std::to_string(c->offset()) + ", +" + std::to_string(c->size()) +
                      ") is misaligned or outside the " + std::to_string(constants_size_) +
                      "-byte constants segment");
    d.constant_bytes += c->size();
  }
  d.constant_count = constant_count;

  uint32_t executable_count = m.executables() ? m.executables()->size() : 0;
  for (uint32_t i = 0; i < executable_count; ++i) {
    const fb::Executable* e = m.executables()->Get(i);
    ExecutableInfo info;
    info.target = Str(e->target());
    info.format = Str(e->format());
    info.cpu = Str(e->cpu());
    info.code_size = e->blob() ? e->blob()->size() : 0;
    if (e->required_features())
      for (const flatbuffers::String* f : *e->required_features())
        info.required_features.push_back(Str(f));
    if (e->kernels())
      for (const fb::Kernel* k : *e->kernels()) {
        if (k->name() == nullptr) return DataLoss("executable " + std::to_string(i) + " has an unnamed kernel");
        info.kernels.push_back({k->name()->str(), k->binding_count(), k->push_constant_count()});
      }
    if (info.target == kCpuTarget) {
      if (info.format != kCpuFormat)
        return Status(StatusCode::kUnimplemented, "executable " + std::to_string(i) +
                                                      " has format '" + info.format +
                                                      "'; expected '" + kCpuFormat + "'");
      if (info.code_size == 0) return DataLoss("executable " + std::to_string(i) + " has no code");
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

  if (m.plans())
    for (const fb::Plan* p : *m.plans())
      if (Str(p->target()) == kCpuTarget) plan_ = p;
  if (plan_ == nullptr) return Status(StatusCode::kUnimplemented, "artifact has no x86_64 plan");
  d.plan_target = kCpuTarget;
  d.arena_size = plan_->arena_size();
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

  uint32_t step_count = plan_->steps() ? plan_->steps()->size() : 0;
  for (uint32_t i = 0; i < step_count; ++i) {
    const fb::Step* step = plan_->steps()->Get(i);
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
      if (exe.target != kCpuTarget)
        return DataLoss(where + ": x86_64 plan dispatches a '" + exe.target + "' executable");
      if (ds->kernel() >= exe.kernels.size())
        return DataLoss(where + ": kernel " + std::to_string(ds->kernel()) + " of " +
                        std::to_string(exe.kernels.size()));
      const KernelInfo& kernel = exe.kernels[ds->kernel()];
      if (ds->workgroups() == nullptr || ds->workgroups()->size() != 3)
        return DataLoss(where + ": workgroup count is not 3 numbers");
      uint64_t total = 1;
      for (uint32_t a = 0; a < 3; ++a) {
        info.workgroups[a] = ds->workgroups()->Get(a);
        if (info.workgroups[a] == 0) return DataLoss(where + ": zero workgroups");
        total *= info.workgroups[a];
      }
      uint32_t bindings = ds->bindings() ? ds->bindings()->size() : 0;
      uint32_t pushes = ds->push_constants() ? ds->push_constants()->size() : 0;
      if (bindings != kernel.binding_count || pushes != kernel.push_constant_count)
        return DataLoss(where + ": kernel '" + kernel.name + "' takes " +
                        std::to_string(kernel.binding_count) + " bindings and " +
                        std::to_string(kernel.push_constant_count) + " push constants, step has " +
                        std::to_string(bindings) + " and " + std::to_string(pushes));
      for (uint32_t b = 0; b < bindings; ++b)
        if (!(s = check_binding(ds->bindings()->Get(b), where + " binding " + std::to_string(b))).ok())
          return s;
      info.executable = ds->executable();
      info.kernel = ds->kernel();
    } else {
      return Status(StatusCode::kUnimplemented,
                    where + ": unknown step kind " + std::to_string(static_cast<int>(step->kind())));
    }
    d.steps.push_back(std::move(info));
  }
  return Status::Ok();
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
    Status s = CpuExecutable::Load(*model_->executables()->Get(i),
                                   "executable " + std::to_string(i), &executables_[i]);
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace kiln
