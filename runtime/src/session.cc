// Session: validates once at Create (resolves every arena and constant
// binding to an address), then each Run checks only the caller's tensors,
// patches their addresses in and executes the plan step by step.
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "kiln/kernel_abi.h"
#include "kiln/runtime.h"
#include "runtime/src/checked_math.h"
#include "runtime/src/cuda/cuda_session.h"
#include "runtime/src/guard_exceptions.h"
#include "runtime/src/loaded_artifact.h"
#include "runtime/src/thread_pool.h"

namespace kiln {

// Binding slot whose address depends on the caller's tensors.
struct CallerSlot {
  size_t slot;
  bool output;  // else input
  uint32_t index;
  uint64_t offset;
};

struct PreparedStep {
  StepInfo::Kind kind = StepInfo::Kind::kDispatch;
  std::string label;
  // Dispatch.
  const kiln_kernel_info* kernel = nullptr;
  size_t first_slot = 0;  // into SessionState::slots / slot_sizes
  uint32_t binding_count = 0;
  const uint32_t* push_constants = nullptr;
  uint32_t push_constant_count = 0;
  uint32_t workgroups[3] = {1, 1, 1};
  // Copy: slots first_slot (source) and first_slot + 1 (target).
  uint64_t copy_bytes = 0;
  // Custom call: inputs then outputs in slots first_slot.., their tensors
  // (data patched in before each call) in SessionState::custom_tensors
  // from first_tensor.
  const CustomCallInfo* custom = nullptr;
  size_t first_tensor = 0;
};

class SessionState {
 public:
  ~SessionState() { std::free(arena); }
  void* arena = nullptr;
  size_t arena_size = 0;
  std::vector<void*> slots;
  std::vector<uint64_t> slot_sizes;
  std::vector<CallerSlot> caller_slots;
  std::vector<PreparedStep> steps;
  std::vector<kiln_custom_tensor_t> custom_tensors;
  // A model on a GPU runs here instead (and the fields above stay empty).
  std::unique_ptr<CudaSession> cuda;

  // Profiling (Session::EnableProfiling).
  bool profiling = false;
  bool profiled = false;  // enabled at least once
  uint64_t profile_runs = 0, profile_run_ns = 0;
  std::vector<uint64_t> step_total_ns;  // per step, over the profiled Runs
  std::vector<uint64_t> run_step_ns;    // per step, this Run (kept if it succeeds)
};

namespace {

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// Shared by the pool's threads for one dispatch.
struct DispatchJob {
  kiln_dispatch_state state;
  kiln_kernel_fn fn;
  std::atomic<int32_t> error{0};
  std::atomic<uint64_t> failed_workgroup{0};
};

void RunWorkgroups(void* context, uint64_t begin, uint64_t end) {
  auto* job = static_cast<DispatchJob*>(context);
  const uint32_t x_count = job->state.workgroup_count[0];
  const uint32_t y_count = job->state.workgroup_count[1];
  for (uint64_t id = begin; id < end; ++id) {
    if (job->error.load(std::memory_order_relaxed) != 0) return;
    uint32_t x = static_cast<uint32_t>(id % x_count);
    uint32_t y = static_cast<uint32_t>((id / x_count) % y_count);
    uint32_t z = static_cast<uint32_t>(id / (static_cast<uint64_t>(x_count) * y_count));
    int32_t rc = job->fn(&job->state, x, y, z);
    if (rc != 0) {
      int32_t expected = 0;
      if (job->error.compare_exchange_strong(expected, rc))
        job->failed_workgroup.store(id, std::memory_order_relaxed);
      return;
    }
  }
}

// The wrapper checks' codes (kernel_abi.h); other codes are the kernel's.
const char* KernelErrorName(int32_t rc) {
  switch (rc) {
    case KILN_KERNEL_BAD_BINDING_COUNT: return " (binding count mismatch)";
    case KILN_KERNEL_BAD_BINDING_SIZE: return " (binding size mismatch)";
    case KILN_KERNEL_BAD_WORKGROUP_COUNT: return " (workgroup count mismatch)";
    case KILN_KERNEL_BAD_WORKGROUP_ID: return " (workgroup id out of range)";
  }
  return "";
}

// Runs plan step `index`, a dispatch, over the pool.
Status RunDispatch(ThreadPool& pool, SessionState& st, const PreparedStep& step, size_t index) {
  DispatchJob job;
  job.fn = step.kernel->function;
  job.state.bindings = st.slots.data() + step.first_slot;
  job.state.binding_sizes = st.slot_sizes.data() + step.first_slot;
  job.state.push_constants = step.push_constants;
  job.state.workgroup_count[0] = step.workgroups[0];
  job.state.workgroup_count[1] = step.workgroups[1];
  job.state.workgroup_count[2] = step.workgroups[2];
  job.state.binding_count = step.binding_count;
  job.state.push_constant_count = step.push_constant_count;
  uint64_t total = static_cast<uint64_t>(step.workgroups[0]) * step.workgroups[1] * step.workgroups[2];
  // A few chunks per thread balance uneven workgroups without paying
  // one atomic per workgroup.
  uint64_t chunk = std::max<uint64_t>(1, total / (static_cast<uint64_t>(pool.num_threads()) * 4));
  pool.ParallelFor(total, chunk, RunWorkgroups, &job);
  if (int32_t rc = job.error.load()) {
    return Status(StatusCode::kInternal,
                  "step " + std::to_string(index) + " '" + step.label + "': kernel '" +
                      step.kernel->name + "' returned " + std::to_string(rc) +
                      KernelErrorName(rc) + " for workgroup " +
                      std::to_string(job.failed_workgroup.load()));
  }
  return Status::Ok();
}

// Runs plan step `index`, a custom call, on this thread.
Status RunCustomCall(SessionState& st, const PreparedStep& step, size_t index) {
  const CustomCallInfo& info = *step.custom;
  kiln_custom_tensor_t* tensors = st.custom_tensors.data() + step.first_tensor;
  const size_t count = info.inputs.size() + info.outputs.size();
  for (size_t i = 0; i < count; ++i) tensors[i].data = st.slots[step.first_slot + i];
  char message[512];
  message[0] = '\0';
  kiln_custom_call_t call;
  call.abi_version = KILN_CUSTOM_OP_ABI_VERSION;
  call.input_count = static_cast<uint32_t>(info.inputs.size());
  call.output_count = static_cast<uint32_t>(info.outputs.size());
  call.attr_count = static_cast<uint32_t>(info.attrs.size());
  call.op_name = info.op.c_str();
  call.node_name = info.node.c_str();
  call.inputs = tensors;
  call.outputs = tensors + info.inputs.size();
  call.attrs = info.attrs.data();
  call.error_message = message;
  call.error_capacity = sizeof message;
  int32_t rc = info.kernel.fn(&call, info.kernel.user_data);
  if (rc == 0) return Status::Ok();
  message[sizeof message - 1] = '\0';
  return Status(StatusCode::kInternal,
                "step " + std::to_string(index) + ": custom op '" + info.op + "'" +
                    (info.node.empty() ? std::string() : " (node '" + info.node + "')") +
                    " failed with code " + std::to_string(rc) +
                    (message[0] ? std::string(": ") + message : std::string()));
}

Status CheckTensor(const Tensor& t, const TensorInfo& info, const char* what, bool gpu) {
  if (t.on_device() && !gpu)
    return Status(StatusCode::kInvalidArgument,
                  std::string(what) + " '" + info.name + "' is in GPU memory (cuda:" +
                      std::to_string(t.device_index()) +
                      "), but this session runs on the CPU; pass host memory or load the model "
                      "on that GPU (device cuda:N)");
  if (t.dtype() != info.dtype || t.dims() != info.dims)
    return Status(StatusCode::kInvalidArgument,
                  std::string(what) + " '" + info.name + "': expected shape " +
                      DescribeShape(info.dims, info.dtype) + ", got " +
                      DescribeShape(t.dims(), t.dtype()));
  if (t.data() == nullptr && info.byte_size > 0)
    return Status(StatusCode::kInvalidArgument,
                  std::string(what) + " '" + info.name + "': data pointer is null");
  return Status::Ok();
}

// Caller output buffers are written while inputs are still being read and
// kernels take every binding as restrict, so an output sharing bytes with
// an input or with another output is refused rather than computed wrong.
// Inputs may alias each other (they are only read).
Status CheckOutputsDoNotAlias(const std::vector<Tensor>& inputs,
                              const std::vector<Tensor>& outputs,
                              const std::vector<TensorInfo>& input_infos,
                              const std::vector<TensorInfo>& output_infos) {
  auto address = [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data()); };
  for (size_t o = 0; o < outputs.size(); ++o) {
    uint64_t size = output_infos[o].byte_size;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (RangesOverlap(address(outputs[o]), size, address(inputs[i]), input_infos[i].byte_size))
        return Status(StatusCode::kInvalidArgument,
                      "output '" + output_infos[o].name + "' overlaps input '" +
                          input_infos[i].name + "'; output buffers must not alias inputs");
    for (size_t p = 0; p < o; ++p)
      if (RangesOverlap(address(outputs[o]), size, address(outputs[p]), output_infos[p].byte_size))
        return Status(StatusCode::kInvalidArgument,
                      "output '" + output_infos[o].name + "' overlaps output '" +
                          output_infos[p].name + "'; output buffers must not alias each other");
  }
  return Status::Ok();
}

std::string NameList(const std::vector<TensorInfo>& infos) {
  std::string s;
  for (const TensorInfo& i : infos) s += (s.empty() ? "" : ", ") + i.name;
  return s;
}

}  // namespace

Session::Session(std::shared_ptr<const Model> model, std::unique_ptr<SessionState> state)
    : model_(std::move(model)), state_(std::move(state)) {}
Session::~Session() = default;

size_t Session::arena_size() const {
  return state_->cuda ? state_->cuda->arena_size() : state_->arena_size;
}
const void* Session::arena_data() const {
  return state_->cuda ? state_->cuda->arena_data() : state_->arena;
}

Status Session::Create(std::shared_ptr<const Model> model, std::unique_ptr<Session>* out) {
  return GuardExceptions([&]() -> Status {
    if (model == nullptr || out == nullptr)
      return Status(StatusCode::kInvalidArgument, "Session::Create: model or out is null");
    const LoadedArtifact& artifact = model->artifact();
    const fb::Plan& plan = artifact.plan();
    auto state = std::make_unique<SessionState>();
    if (model->cuda() != nullptr) {
      Status s = CudaSession::Create(*model, &state->cuda);
      if (!s.ok()) return s;
      out->reset(new Session(std::move(model), std::move(state)));
      return Status::Ok();
    }
    state->arena_size = plan.arena_size();
    if (state->arena_size > 0) {
      uint64_t rounded = 0;
      // The loader bounds arena_size; checked again because a wrapped size
      // would allocate a few bytes and hand kernels a huge arena.
      if (!CheckedAlignUp(state->arena_size, 64, &rounded))
        return Status(StatusCode::kResourceExhausted,
                      "the " + std::to_string(state->arena_size) + "-byte arena is too large");
      state->arena = std::aligned_alloc(64, rounded);
      if (state->arena == nullptr)
        return Status(StatusCode::kResourceExhausted,
                      "cannot allocate the " + std::to_string(state->arena_size) + "-byte arena");
    }

    // Every binding was range-checked when the artifact was loaded.
    auto add_slot = [&](const fb::Binding& b) {
      size_t slot = state->slots.size();
      void* address = nullptr;
      switch (b.space()) {
        case fb::BufferSpace::Arena:
          address = static_cast<uint8_t*>(state->arena) + b.offset();
          break;
        case fb::BufferSpace::Constant:
          address = const_cast<uint8_t*>(artifact.constants() +
                                         artifact.constant(b.index()).offset() + b.offset());
          break;
        case fb::BufferSpace::Input:
        case fb::BufferSpace::Output:
          state->caller_slots.push_back(
              {slot, b.space() == fb::BufferSpace::Output, b.index(), b.offset()});
          break;
      }
      state->slots.push_back(address);
      state->slot_sizes.push_back(b.length());
    };

    const ModelDescription& description = model->description();
    size_t custom_index = 0;
    for (uint32_t i = 0; i < plan.steps()->size(); ++i) {
      const fb::Step& step = *plan.steps()->Get(i);
      PreparedStep prepared;
      prepared.kind = description.steps[i].kind;
      prepared.label = description.steps[i].label;
      prepared.first_slot = state->slots.size();
      if (step.kind() == fb::StepKind::CustomCall) {
        const CustomCallInfo& info = artifact.custom_calls()[custom_index++];
        const fb::CustomCallStep& c = *step.custom_call();
        prepared.custom = &info;
        prepared.first_tensor = state->custom_tensors.size();
        for (const fb::CustomOperand* o : *c.inputs()) add_slot(*o->binding());
        for (const fb::CustomOperand* o : *c.outputs()) add_slot(*o->binding());
        state->custom_tensors.insert(state->custom_tensors.end(), info.inputs.begin(),
                                     info.inputs.end());
        state->custom_tensors.insert(state->custom_tensors.end(), info.outputs.begin(),
                                     info.outputs.end());
      } else if (step.kind() == fb::StepKind::Copy) {
        prepared.copy_bytes = step.copy()->source()->length();
        add_slot(*step.copy()->source());
        add_slot(*step.copy()->target());
      } else {
        const fb::DispatchStep& d = *step.dispatch();
        prepared.kernel = &artifact.executable(d.executable()).kernel(d.kernel());
        prepared.binding_count = d.bindings()->size();
        for (const fb::Binding* b : *d.bindings()) add_slot(*b);
        prepared.push_constant_count = d.push_constants() ? d.push_constants()->size() : 0;
        prepared.push_constants = d.push_constants() ? d.push_constants()->data() : nullptr;
        for (int a = 0; a < 3; ++a) prepared.workgroups[a] = d.workgroups()->Get(a);
      }
      state->steps.push_back(std::move(prepared));
    }
    out->reset(new Session(std::move(model), std::move(state)));
    return Status::Ok();
  });
}

Status Session::EnableProfiling(bool enable) {
  SessionState& st = *state_;
  if (st.cuda != nullptr)
    return Status(StatusCode::kFailedPrecondition,
                  "per-step profiling is not available on a GPU: the plan runs as one CUDA graph "
                  "(time whole runs, e.g. kiln bench without --profile, or use Nsight Systems)");
  if (enable) {
    st.profiled = true;
    st.profile_runs = 0;
    st.profile_run_ns = 0;
    st.step_total_ns.assign(st.steps.size(), 0);
    st.run_step_ns.assign(st.steps.size(), 0);
  }
  st.profiling = enable;
  return Status::Ok();
}

bool Session::profiling_enabled() const { return state_->profiling; }

Status Session::GetProfile(SessionProfile* out) const {
  return GuardExceptions([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "GetProfile: out is null");
    const SessionState& st = *state_;
    if (!st.profiled)
      return Status(StatusCode::kFailedPrecondition,
                    "GetProfile: profiling was never enabled on this session");
    SessionProfile profile;
    profile.runs = st.profile_runs;
    profile.run_ns = st.profile_run_ns;
    profile.steps.resize(st.steps.size());
    for (size_t i = 0; i < st.steps.size(); ++i) {
      const PreparedStep& step = st.steps[i];
      StepProfile& p = profile.steps[i];
      p.kind = step.kind;
      p.label = step.label;
      size_t colon = step.label.find(": ");
      p.name = step.label.substr(0, colon);
      if (colon != std::string::npos) p.ops = step.label.substr(colon + 2);
      p.workgroups = step.kind != StepInfo::Kind::kDispatch
                         ? 0
                         : static_cast<uint64_t>(step.workgroups[0]) * step.workgroups[1] *
                               step.workgroups[2];
      p.calls = st.profile_runs;
      p.total_ns = st.step_total_ns[i];
    }
    *out = std::move(profile);
    return Status::Ok();
  });
}

Status Session::Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  return GuardExceptions([&]() -> Status {
    const bool profiling = state_->profiling;
    const uint64_t run_start = profiling ? NowNs() : 0;
    if (outputs == nullptr) return Status(StatusCode::kInvalidArgument, "outputs is null");
    const std::vector<TensorInfo>& input_infos = model_->inputs();
    const std::vector<TensorInfo>& output_infos = model_->outputs();
    if (inputs.size() != input_infos.size())
      return Status(StatusCode::kInvalidArgument,
                    "expected " + std::to_string(input_infos.size()) + " inputs (" +
                        NameList(input_infos) + "), got " + std::to_string(inputs.size()));
    SessionState& st = *state_;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Status s = CheckTensor(inputs[i], input_infos[i], "input", st.cuda != nullptr);
      if (!s.ok()) return s;
    }
    if (outputs->empty()) {
      std::vector<Tensor> allocated(output_infos.size());
      for (size_t i = 0; i < output_infos.size(); ++i) {
        Status s = Tensor::Allocate(output_infos[i].dtype, output_infos[i].dims, &allocated[i]);
        if (!s.ok()) return s;
      }
      *outputs = std::move(allocated);
    } else {
      if (outputs->size() != output_infos.size())
        return Status(StatusCode::kInvalidArgument,
                      "expected no output tensors (to allocate them) or " +
                          std::to_string(output_infos.size()) + " (" + NameList(output_infos) +
                          "), got " + std::to_string(outputs->size()));
      for (size_t i = 0; i < outputs->size(); ++i) {
        Status s = CheckTensor((*outputs)[i], output_infos[i], "output", st.cuda != nullptr);
        if (!s.ok()) return s;
      }
      Status s = CheckOutputsDoNotAlias(inputs, *outputs, input_infos, output_infos);
      if (!s.ok()) return s;
    }

    if (st.cuda != nullptr) {
      Status s = st.cuda->Run(inputs, *outputs);
      if (s.ok() && profiling) {
        ++st.profile_runs;
        st.profile_run_ns += NowNs() - run_start;
      }
      return s;
    }
    for (const CallerSlot& c : st.caller_slots) {
      uint8_t* base = static_cast<uint8_t*>(c.output ? (*outputs)[c.index].data()
                                                     : inputs[c.index].data());
      st.slots[c.slot] = base + c.offset;
    }

    ThreadPool& pool = model_->pool();
    uint64_t step_start = profiling ? NowNs() : 0;
    for (size_t i = 0; i < st.steps.size(); ++i) {
      const PreparedStep& step = st.steps[i];
      if (step.kind == StepInfo::Kind::kCopy) {
        if (step.copy_bytes > 0)
          std::memmove(st.slots[step.first_slot + 1], st.slots[step.first_slot], step.copy_bytes);
      } else if (step.kind == StepInfo::Kind::kCustomCall) {
        Status s = RunCustomCall(st, step, i);
        if (!s.ok()) return s;
      } else {
        Status s = RunDispatch(pool, st, step, i);
        if (!s.ok()) return s;
      }
      if (profiling) {
        uint64_t now = NowNs();
        st.run_step_ns[i] = now - step_start;
        step_start = now;
      }
    }
    if (profiling) {
      for (size_t i = 0; i < st.steps.size(); ++i) st.step_total_ns[i] += st.run_step_ns[i];
      ++st.profile_runs;
      st.profile_run_ns += NowNs() - run_start;
    }
    return Status::Ok();
  });
}

Status Session::Run(const std::vector<NamedTensor>& inputs, std::vector<NamedTensor>* outputs) {
  return GuardExceptions([&]() -> Status {
    if (outputs == nullptr) return Status(StatusCode::kInvalidArgument, "outputs is null");
    const std::vector<TensorInfo>& input_infos = model_->inputs();
    const std::vector<TensorInfo>& output_infos = model_->outputs();
    if (inputs.size() != input_infos.size())
      return Status(StatusCode::kInvalidArgument,
                    "expected " + std::to_string(input_infos.size()) + " inputs (" +
                        NameList(input_infos) + "), got " + std::to_string(inputs.size()));
    std::vector<Tensor> ordered(input_infos.size());
    std::vector<bool> seen(input_infos.size(), false);
    for (const NamedTensor& named : inputs) {
      int index = model_->FindInput(named.name);
      if (index < 0)
        return Status(StatusCode::kNotFound, "no input named '" + named.name + "' (inputs: " +
                                                 NameList(input_infos) + ")");
      if (seen[index])
        return Status(StatusCode::kInvalidArgument, "input '" + named.name + "' given twice");
      seen[index] = true;
      ordered[index] = named.tensor;
    }
    std::vector<Tensor> results;
    if (!outputs->empty()) {
      if (outputs->size() != output_infos.size())
        return Status(StatusCode::kInvalidArgument,
                      "expected no output tensors (to allocate them) or " +
                          std::to_string(output_infos.size()) + " (" + NameList(output_infos) +
                          "), got " + std::to_string(outputs->size()));
      results.resize(output_infos.size());
      std::vector<bool> seen_out(output_infos.size(), false);
      for (const NamedTensor& named : *outputs) {
        int index = model_->FindOutput(named.name);
        if (index < 0)
          return Status(StatusCode::kNotFound, "no output named '" + named.name + "' (outputs: " +
                                                   NameList(output_infos) + ")");
        if (seen_out[index])
          return Status(StatusCode::kInvalidArgument, "output '" + named.name + "' given twice");
        seen_out[index] = true;
        results[index] = named.tensor;
      }
    }
    Status s = Run(ordered, &results);
    if (!s.ok()) return s;
    if (outputs->empty())
      for (size_t i = 0; i < results.size(); ++i)
        outputs->push_back({output_infos[i].name, std::move(results[i])});
    return Status::Ok();
  });
}

}  // namespace kiln
