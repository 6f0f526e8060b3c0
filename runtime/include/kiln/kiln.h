/* kiln.h - the Kiln runtime's C API (mirrors kiln/runtime.h).
 *
 *   kiln_runtime_options_t options;
 *   kiln_runtime_options_initialize(&options);
 *   kiln_runtime_t* runtime = NULL;
 *   kiln_status_t status = kiln_runtime_create(&options, &runtime);
 *   kiln_model_t* model = NULL;
 *   if (!status) status = kiln_model_load_file(runtime, "model.kiln", &model);
 *   kiln_session_t* session = NULL;
 *   if (!status) status = kiln_session_create(model, &session);
 *   if (!status) status = kiln_session_run(session, inputs, 2, outputs, 1);
 *   if (status) { fprintf(stderr, "%s\n", kiln_status_message(status));
 *                 kiln_status_free(status); }
 *   kiln_session_release(session); kiln_model_release(model);
 *   kiln_runtime_release(runtime);
 *
 * Status: every fallible call returns a kiln_status_t; NULL means success.
 * A non-NULL status is owned by the caller, who frees it with
 * kiln_status_free. Functions write their out_ parameters only on success.
 * No C++ exception ever leaves these functions: running out of memory is
 * KILN_RESOURCE_EXHAUSTED, a worker thread that cannot start is
 * KILN_RESOURCE_EXHAUSTED with the system's message, anything unexpected
 * KILN_INTERNAL.
 *
 * Trust: an artifact is native code that runs with this process's rights;
 * its checksum detects corruption, not tampering. Load only artifacts from
 * trusted sources.
 *
 * Ownership and lifetime: each *_create / *_load_* returns a handle the
 * caller owns and releases with the matching *_release (NULL is accepted).
 * Handles keep what they depend on alive: a model may outlive its runtime
 * and a session its model handle. Strings and dims returned by the
 * kiln_model_* getters live as long as the model.
 *
 * Thread safety: runtime and model functions are safe from any number of
 * threads. A session is used by one thread at a time; create one session
 * per concurrent caller (sessions over one model may run concurrently).
 */
#ifndef KILN_KILN_H_
#define KILN_KILN_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/custom_op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_status_s* kiln_status_t;
typedef struct kiln_runtime_s kiln_runtime_t;
typedef struct kiln_model_s kiln_model_t;
typedef struct kiln_session_s kiln_session_t;

/* Same values as kiln::StatusCode. */
typedef enum kiln_status_code_e {
  KILN_OK = 0,
  KILN_INVALID_ARGUMENT = 1,
  KILN_NOT_FOUND = 2,
  KILN_DATA_LOSS = 3,
  KILN_UNIMPLEMENTED = 4,
  KILN_FAILED_PRECONDITION = 5,
  KILN_RESOURCE_EXHAUSTED = 6,
  KILN_INTERNAL = 7
} kiln_status_code_t;

/* Same values as kiln::DType and the schema. */
typedef enum kiln_dtype_e {
  KILN_F32 = 0, KILN_F16, KILN_BF16, KILN_F64, KILN_I8, KILN_I16, KILN_I32,
  KILN_I64, KILN_U8, KILN_U16, KILN_U32, KILN_U64, KILN_BOOL
} kiln_dtype_t;

/* KILN_OK for NULL. */
kiln_status_code_t kiln_status_code(kiln_status_t status);
/* "" for NULL; valid until the status is freed. */
const char* kiln_status_message(kiln_status_t status);
void kiln_status_free(kiln_status_t status);

typedef struct kiln_runtime_options_t {
  /* Threads running workgroups, counting the caller; 0 = all cores. */
  int32_t num_threads;
} kiln_runtime_options_t;

void kiln_runtime_options_initialize(kiln_runtime_options_t* out_options);
/* Device "auto": a GPU when the NVIDIA driver finds one (models with a
 * cuda plan run there), else the CPU. */
kiln_status_t kiln_runtime_create(const kiln_runtime_options_t* options,
                                  kiln_runtime_t** out_runtime);
/* The same on a chosen device: "auto", "cpu", "cuda" (cuda:0) or "cuda:N"
 * (kiln::Device::Parse); NULL means "auto". "cuda..." fails
 * (KILN_FAILED_PRECONDITION, saying what to do) where there is no driver
 * or GPU. A separate function because kiln_runtime_options_t's layout is
 * part of the ABI. `device` is read during the call only. */
kiln_status_t kiln_runtime_create_on_device(const kiln_runtime_options_t* options,
                                            const char* device, kiln_runtime_t** out_runtime);
void kiln_runtime_release(kiln_runtime_t* runtime);

/* External custom-op kernels (kiln/custom_op.h has the kernel ABI; same
 * rules as kiln::Runtime::RegisterCustomOp). A model that calls custom ops
 * loads only when the runtime has a kernel for each
 * (KILN_FAILED_PRECONDITION naming the missing ones). A name registers
 * once. `kernel` and `user_data` must stay valid while any model using
 * them lives; `name` is copied. Safe from any thread. */
kiln_status_t kiln_runtime_register_custom_op(kiln_runtime_t* runtime, const char* name,
                                              kiln_custom_kernel_fn kernel, void* user_data);
/* dlopens the library at `path` and registers every op its
 * kiln_custom_op_library_query returns (all or none). */
kiln_status_t kiln_runtime_register_custom_op_library(kiln_runtime_t* runtime,
                                                      const char* path);

/* Maps and verifies the file; the weights are used in place. */
kiln_status_t kiln_model_load_file(kiln_runtime_t* runtime, const char* path,
                                   kiln_model_t** out_model);
/* Copies the bytes; the caller may free `data` afterwards. */
kiln_status_t kiln_model_load_memory(kiln_runtime_t* runtime, const void* data,
                                     size_t size, kiln_model_t** out_model);
void kiln_model_release(kiln_model_t* model);

/* A caller's tensor: borrowed memory, never freed by Kiln. `dims` has
 * `rank` entries and must stay valid during the call that reads it. */
typedef struct kiln_tensor_t {
  kiln_dtype_t dtype;
  size_t rank;
  const int64_t* dims;
  void* data;
} kiln_tensor_t;

size_t kiln_model_input_count(const kiln_model_t* model);
size_t kiln_model_output_count(const kiln_model_t* model);
/* Describes input/output `index`: name, dtype, rank and dims (data NULL). */
kiln_status_t kiln_model_input_info(const kiln_model_t* model, size_t index,
                                    const char** out_name, kiln_tensor_t* out_info);
kiln_status_t kiln_model_output_info(const kiln_model_t* model, size_t index,
                                     const char** out_name, kiln_tensor_t* out_info);
/* Signature index of a name; KILN_NOT_FOUND when there is none. */
kiln_status_t kiln_model_find_input(const kiln_model_t* model, const char* name,
                                    size_t* out_index);
kiln_status_t kiln_model_find_output(const kiln_model_t* model, const char* name,
                                     size_t* out_index);

/* Allocates the session's arena (reused by every run). */
kiln_status_t kiln_session_create(kiln_model_t* model, kiln_session_t** out_session);
void kiln_session_release(kiln_session_t* session);

/* Runs the model. `inputs` holds one tensor per input in signature order;
 * `outputs` one per output, whose caller-provided buffers receive the
 * results. Shapes and dtypes must match the signature exactly. Output
 * buffers that share a byte with an input or with each other are refused
 * (KILN_INVALID_ARGUMENT); inputs may alias each other. */
kiln_status_t kiln_session_run(kiln_session_t* session, const kiln_tensor_t* inputs,
                               size_t input_count, const kiln_tensor_t* outputs,
                               size_t output_count);

/* Where a tensor's data lives, for kiln_session_run_on_devices. */
#define KILN_HOST_MEMORY (-1)
/* kiln_session_run with tensors in host or GPU memory: input_devices[i]
 * (output_devices[i]) is KILN_HOST_MEMORY or N when inputs[i].data is a
 * CUdeviceptr on cuda:N; NULL arrays mean host memory throughout. A GPU
 * session copies host tensors in and out and device tensors (on its own
 * device) device to device; a CPU session refuses device tensors. The
 * memory stays the caller's: Kiln reads or writes it during the call only
 * and never frees it. */
kiln_status_t kiln_session_run_on_devices(kiln_session_t* session, const kiln_tensor_t* inputs,
                                          const int32_t* input_devices, size_t input_count,
                                          const kiln_tensor_t* outputs,
                                          const int32_t* output_devices, size_t output_count);

/* Per-step timing (kiln::Session::EnableProfiling): off by default; while
 * on, each run reads the clock once per step. Enabling clears what was
 * gathered; disabling keeps it. Same thread rule as kiln_session_run. */
kiln_status_t kiln_session_enable_profiling(kiln_session_t* session, int32_t enable);

typedef struct kiln_step_profile_t {
  const char* label;    /* "dispatch_3: linalg.matmul+linalg.generic"; lives
                           as long as the session */
  uint64_t workgroups;  /* x * y * z; 0 for a copy or custom call */
  uint64_t calls;       /* times the step ran in profiled runs */
  uint64_t total_ns;    /* its wall time summed over those calls */
} kiln_step_profile_t;

/* What the successful runs since profiling was enabled measured: the
 * first min(capacity, step count) steps in plan order into out_steps (NULL
 * when capacity is 0), the step count, and (each optional) the number of
 * runs and their total wall time. KILN_FAILED_PRECONDITION if profiling
 * was never enabled. */
kiln_status_t kiln_session_get_profile(const kiln_session_t* session,
                                       kiln_step_profile_t* out_steps, size_t capacity,
                                       size_t* out_step_count, uint64_t* out_runs,
                                       uint64_t* out_run_ns);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* KILN_KILN_H_ */
