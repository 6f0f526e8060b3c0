/* A custom-op library as a service would ship one: exports
 * kiln_custom_op_library_query with one op, "test.double" (y = 2 x on f32),
 * for the runtime's RegisterCustomOpLibrary tests. */
#include "kiln/custom_op.h"

static int32_t DoubleKernel(const kiln_custom_call_t* call, void* user_data) {
  (void)user_data;
  if (call->input_count != 1 || call->output_count != 1 || call->inputs[0].dtype != 0)
    return kiln_custom_call_set_error(call, 1, "test.double takes one f32 tensor");
  const float* x = (const float*)call->inputs[0].data;
  float* y = (float*)call->outputs[0].data;
  uint64_t n = call->inputs[0].byte_size / sizeof(float);
  for (uint64_t i = 0; i < n; ++i) y[i] = 2.0f * x[i];
  return 0;
}

static const kiln_custom_op_t kOps[] = {{"test.double", DoubleKernel, 0}};

__attribute__((visibility("default"))) const kiln_custom_op_t* kiln_custom_op_library_query(
    uint32_t abi_version, size_t* out_count) {
  if (abi_version != KILN_CUSTOM_OP_ABI_VERSION) return 0;
  *out_count = sizeof kOps / sizeof kOps[0];
  return kOps;
}
