// The C API: thin wrappers that turn handles into the C++ objects and
// Status into kiln_status_t. No exception crosses it: every entry that can
// fail runs inside GuardC, which turns std::bad_alloc and std::length_error
// into RESOURCE_EXHAUSTED, std::system_error (a worker thread that cannot start)
// into RESOURCE_EXHAUSTED with its message, and anything else into
// INTERNAL. Handles use nothrow new.
#include <exception>
#include <new>
#include <stdexcept>
#include <system_error>

#include "kiln/kiln.h"
#include "kiln/runtime.h"

struct kiln_status_s {
  kiln::StatusCode code;
  std::string message;
};
struct kiln_runtime_s {
  std::shared_ptr<kiln::Runtime> runtime;
};
struct kiln_model_s {
  std::shared_ptr<const kiln::Model> model;
};
struct kiln_session_s {
  std::unique_ptr<kiln::Session> session;
};

namespace {

// Returned when even the status cannot be allocated.
kiln_status_s out_of_memory_status{kiln::StatusCode::kResourceExhausted, "out of memory"};

// Returned when an unexpected exception's message cannot be allocated.
kiln_status_s internal_error_status{kiln::StatusCode::kInternal, "unexpected exception"};

bool IsStatic(kiln_status_t status) {
  return status == &out_of_memory_status || status == &internal_error_status;
}

kiln_status_t ToC(const kiln::Status& s) {
  if (s.ok()) return nullptr;
  auto* status = new (std::nothrow) kiln_status_s{s.code(), s.message()};
  return status ? status : &out_of_memory_status;
}

kiln_status_t Error(kiln::StatusCode code, const std::string& message) {
  return ToC(kiln::Status(code, message));
}

// Builds a status in a catch handler, where a second exception must not
// escape.
kiln_status_t FromException(kiln::StatusCode code, const char* prefix, const char* what) noexcept {
  try {
    auto* status = new (std::nothrow) kiln_status_s{code, std::string(prefix) + what};
    return status ? status : &out_of_memory_status;
  } catch (...) {
    return code == kiln::StatusCode::kResourceExhausted ? &out_of_memory_status
                                                        : &internal_error_status;
  }
}

template <typename Body>
kiln_status_t GuardC(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return &out_of_memory_status;
  } catch (const std::length_error&) {
    return &out_of_memory_status;
  } catch (const std::system_error& e) {
    return FromException(kiln::StatusCode::kResourceExhausted, "system error: ", e.what());
  } catch (const std::exception& e) {
    return FromException(kiln::StatusCode::kInternal, "unexpected exception: ", e.what());
  } catch (...) {
    return &internal_error_status;
  }
}

kiln::Tensor FromC(const kiln_tensor_t& t, int32_t device = KILN_HOST_MEMORY) {
  std::vector<int64_t> dims;
  if (t.dims != nullptr) dims.assign(t.dims, t.dims + t.rank);
  if (device >= 0)
    return kiln::Tensor::BorrowDevice(static_cast<kiln::DType>(t.dtype), std::move(dims), t.data,
                                      device);
  return kiln::Tensor::Borrow(static_cast<kiln::DType>(t.dtype), std::move(dims), t.data);
}

kiln_status_t Info(const std::vector<kiln::TensorInfo>& infos, size_t index, const char* what,
                   const char** out_name, kiln_tensor_t* out_info) {
  if (out_name == nullptr || out_info == nullptr)
    return Error(kiln::StatusCode::kInvalidArgument, "out_name or out_info is null");
  if (index >= infos.size())
    return Error(kiln::StatusCode::kInvalidArgument,
                 std::string(what) + " index " + std::to_string(index) + " of " +
                     std::to_string(infos.size()));
  const kiln::TensorInfo& info = infos[index];
  *out_name = info.name.c_str();
  out_info->dtype = static_cast<kiln_dtype_t>(info.dtype);
  out_info->rank = info.dims.size();
  out_info->dims = info.dims.data();
  out_info->data = nullptr;
  return nullptr;
}

}  // namespace

extern "C" {

kiln_status_code_t kiln_status_code(kiln_status_t status) {
  return status ? static_cast<kiln_status_code_t>(status->code) : KILN_OK;
}

const char* kiln_status_message(kiln_status_t status) {
  return status ? status->message.c_str() : "";
}

void kiln_status_free(kiln_status_t status) {
  if (!IsStatic(status)) delete status;
}

void kiln_runtime_options_initialize(kiln_runtime_options_t* out_options) {
  if (out_options) out_options->num_threads = 0;
}

kiln_status_t kiln_runtime_create(const kiln_runtime_options_t* options,
                                  kiln_runtime_t** out_runtime) {
  return kiln_runtime_create_on_device(options, "auto", out_runtime);
}

kiln_status_t kiln_runtime_create_on_device(const kiln_runtime_options_t* options,
                                            const char* device, kiln_runtime_t** out_runtime) {
  return GuardC([&]() -> kiln_status_t {
    if (options == nullptr || out_runtime == nullptr)
      return Error(kiln::StatusCode::kInvalidArgument, "options or out_runtime is null");
    kiln::RuntimeOptions cpp_options;
    cpp_options.num_threads = options->num_threads;
    kiln::Status parsed = kiln::Device::Parse(device ? device : "auto", &cpp_options.device);
    if (!parsed.ok()) return ToC(parsed);
    std::shared_ptr<kiln::Runtime> runtime;
    kiln::Status s = kiln::Runtime::Create(cpp_options, &runtime);
    if (!s.ok()) return ToC(s);
    auto* handle = new (std::nothrow) kiln_runtime_s{std::move(runtime)};
    if (handle == nullptr) return &out_of_memory_status;
    *out_runtime = handle;
    return nullptr;
  });
}

void kiln_runtime_release(kiln_runtime_t* runtime) { delete runtime; }

kiln_status_t kiln_runtime_register_custom_op(kiln_runtime_t* runtime, const char* name,
                                              kiln_custom_kernel_fn kernel, void* user_data) {
  return GuardC([&]() -> kiln_status_t {
    if (runtime == nullptr || name == nullptr)
      return Error(kiln::StatusCode::kInvalidArgument, "runtime or name is null");
    return ToC(runtime->runtime->RegisterCustomOp(name, kernel, user_data));
  });
}

kiln_status_t kiln_runtime_register_custom_op_library(kiln_runtime_t* runtime,
                                                      const char* path) {
  return GuardC([&]() -> kiln_status_t {
    if (runtime == nullptr || path == nullptr)
      return Error(kiln::StatusCode::kInvalidArgument, "runtime or path is null");
    return ToC(runtime->runtime->RegisterCustomOpLibrary(path));
  });
}

static kiln_status_t FinishModel(kiln::Status s, std::shared_ptr<const kiln::Model> model,
                                 kiln_model_t** out_model) {
  return GuardC([&]() -> kiln_status_t {
    if (!s.ok()) return ToC(s);
    auto* handle = new (std::nothrow) kiln_model_s{std::move(model)};
    if (handle == nullptr) return &out_of_memory_status;
    *out_model = handle;
    return nullptr;
  });
}

kiln_status_t kiln_model_load_file(kiln_runtime_t* runtime, const char* path,
                                   kiln_model_t** out_model) {
  return GuardC([&]() -> kiln_status_t {
    if (runtime == nullptr || path == nullptr || out_model == nullptr)
      return Error(kiln::StatusCode::kInvalidArgument, "runtime, path or out_model is null");
    std::shared_ptr<const kiln::Model> model;
    kiln::Status s = runtime->runtime->LoadModel(path, &model);
    return FinishModel(s, std::move(model), out_model);
  });
}

kiln_status_t kiln_model_load_memory(kiln_runtime_t* runtime, const void* data, size_t size,
                                     kiln_model_t** out_model) {
  return GuardC([&]() -> kiln_status_t {
    if (runtime == nullptr || out_model == nullptr)
      return Error(kiln::StatusCode::kInvalidArgument, "runtime or out_model is null");
    std::shared_ptr<const kiln::Model> model;
    kiln::Status s = runtime->runtime->LoadModelFromMemory(data, size, &model);
    return FinishModel(s, std::move(model), out_model);
  });
}

void kiln_model_release(kiln_model_t* model) { delete model; }

size_t kiln_model_input_count(const kiln_model_t* model) {
  return model ? model->model->inputs().size() : 0;
}

size_t kiln_model_output_count(const kiln_model_t* model) {
  return model ? model->model->outputs().size() : 0;
}

kiln_status_t kiln_model_input_info(const kiln_model_t* model, size_t index,
                                    const char** out_name, kiln_tensor_t* out_info) {
  return GuardC([&]() -> kiln_status_t {
    if (model == nullptr) return Error(kiln::StatusCode::kInvalidArgument, "model is null");
    return Info(model->model->inputs(), index, "input", out_name, out_info);
  });
}

kiln_status_t kiln_model_output_info(const kiln_model_t* model, size_t index,
                                     const char** out_name, kiln_tensor_t* out_info) {
  return GuardC([&]() -> kiln_status_t {
    if (model == nullptr) return Error(kiln::StatusCode::kInvalidArgument, "model is null");
    return Info(model->model->outputs(), index, "output", out_name, out_info);
  });
}

kiln_status_t kiln_model_find_input(const kiln_model_t* model, const char* name,
                                    size_t* out_index) {
  return GuardC([&]() -> kiln_status_t {
    if (model == nullptr || name == nullptr || out_index == nullptr)
      return Error(kiln::StatusCode::kInvalidArgument, "model, name or out_index is null");
    int index = model->model->FindInput(name);
    if (index < 0) return Error(kiln::StatusCode::kNotFound, std::string("no input named '") + name + "'");
    *out_index = static_cast<size_t>(index);
    return nullptr;
  });
}

kiln_status_t kiln_model_find_output(const kiln_model_t* model, const char* name,
                                     size_t* out_index) {
  return GuardC([&]() -> kiln_status_t {
    if (model == nullptr || name == nullptr || out_index == nullptr)
      return Error(kiln::StatusCode::kInvalidArgument, "model, name or out_index is null");
    int index = model->model->FindOutput(name);
    if (index < 0) return Error(kiln::StatusCode::kNotFound, std::string("no output named '") + name + "'");
    *out_index = static_cast<size_t>(index);
    return nullptr;
  });
}

kiln_status_t kiln_session_create(kiln_model_t* model, kiln_session_t** out_session) {
  return GuardC([&]() -> kiln_status_t {
    if (model == nullptr || out_session == nullptr)
      return Error(kiln::StatusCode::kInvalidArgument, "model or out_session is null");
    std::unique_ptr<kiln::Session> session;
    kiln::Status s = kiln::Session::Create(model->model, &session);
    if (!s.ok()) return ToC(s);
    auto* handle = new (std::nothrow) kiln_session_s{std::move(session)};
    if (handle == nullptr) return &out_of_memory_status;
    *out_session = handle;
    return nullptr;
  });
}

void kiln_session_release(kiln_session_t* session) { delete session; }

kiln_status_t kiln_session_run(kiln_session_t* session, const kiln_tensor_t* inputs,
                               size_t input_count, const kiln_tensor_t* outputs,
                               size_t output_count) {
  return kiln_session_run_on_devices(session, inputs, nullptr, input_count, outputs, nullptr,
                                     output_count);
}

kiln_status_t kiln_session_run_on_devices(kiln_session_t* session, const kiln_tensor_t* inputs,
                                          const int32_t* input_devices, size_t input_count,
                                          const kiln_tensor_t* outputs,
                                          const int32_t* output_devices, size_t output_count) {
  return GuardC([&]() -> kiln_status_t {
    if (session == nullptr) return Error(kiln::StatusCode::kInvalidArgument, "session is null");
    if ((inputs == nullptr && input_count > 0) || (outputs == nullptr && output_count > 0))
      return Error(kiln::StatusCode::kInvalidArgument, "inputs or outputs is null");
    size_t expected_outputs = session->session->model().outputs().size();
    if (output_count != expected_outputs)
      return Error(kiln::StatusCode::kInvalidArgument,
                   "expected " + std::to_string(expected_outputs) + " output buffers, got " +
                       std::to_string(output_count));
    std::vector<kiln::Tensor> cpp_inputs, cpp_outputs;
    for (size_t i = 0; i < input_count; ++i)
      cpp_inputs.push_back(FromC(inputs[i], input_devices ? input_devices[i] : KILN_HOST_MEMORY));
    for (size_t i = 0; i < output_count; ++i)
      cpp_outputs.push_back(
          FromC(outputs[i], output_devices ? output_devices[i] : KILN_HOST_MEMORY));
    if (output_count == 0) {
      // No outputs: nothing for Run to allocate and nothing to return.
      std::vector<kiln::Tensor> ignored;
      return ToC(session->session->Run(cpp_inputs, &ignored));
    }
    return ToC(session->session->Run(cpp_inputs, &cpp_outputs));
  });
}

kiln_status_t kiln_session_enable_profiling(kiln_session_t* session, int32_t enable) {
  return GuardC([&]() -> kiln_status_t {
    if (session == nullptr) return Error(kiln::StatusCode::kInvalidArgument, "session is null");
    return ToC(session->session->EnableProfiling(enable != 0));
  });
}

kiln_status_t kiln_session_get_profile(const kiln_session_t* session,
                                       kiln_step_profile_t* out_steps, size_t capacity,
                                       size_t* out_step_count, uint64_t* out_runs,
                                       uint64_t* out_run_ns) {
  return GuardC([&]() -> kiln_status_t {
    if (session == nullptr || out_step_count == nullptr || (out_steps == nullptr && capacity > 0))
      return Error(kiln::StatusCode::kInvalidArgument, "session, out_step_count or out_steps is null");
    kiln::SessionProfile profile;
    kiln::Status s = session->session->GetProfile(&profile);
    if (!s.ok()) return ToC(s);
    // The labels the model keeps, so they outlive this call.
    const std::vector<kiln::StepInfo>& steps = session->session->model().description().steps;
    for (size_t i = 0; i < capacity && i < profile.steps.size(); ++i) {
      const kiln::StepProfile& p = profile.steps[i];
      out_steps[i] = {steps[i].label.c_str(), p.workgroups, p.calls, p.total_ns};
    }
    *out_step_count = profile.steps.size();
    if (out_runs != nullptr) *out_runs = profile.runs;
    if (out_run_ns != nullptr) *out_run_ns = profile.run_ns;
    return nullptr;
  });
}

}  // extern "C"
