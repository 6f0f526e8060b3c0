/* swish_kernel.c - com.example.Swish as an external kernel (kind b). */
#include "examples/custom_op/swish_kernel.h"

#include <math.h>

// doc-region: kernel
int32_t SwishKernel(const kiln_custom_call_t* call, void* user_data) {
  (void)user_data;
  if (call->input_count != 1 || call->output_count != 1)
    return kiln_custom_call_set_error(call, 1, "Swish takes 1 input and 1 output, got %u and %u",
                                      call->input_count, call->output_count);
  const kiln_custom_tensor_t* x = &call->inputs[0];
  const kiln_custom_tensor_t* y = &call->outputs[0];
  if (x->dtype != KILN_F32 || y->dtype != KILN_F32 || x->byte_size != y->byte_size)
    return kiln_custom_call_set_error(call, 2, "Swish computes f32 to f32 of one shape");
  double beta = kiln_custom_call_float_attr(call, "beta", 1.0);
  if (!(beta > 0.0))
    return kiln_custom_call_set_error(call, 3, "beta must be positive, got %g", beta);
  const float* in = (const float*)x->data;
  float* out = (float*)y->data;
  uint64_t n = x->byte_size / sizeof(float);
  for (uint64_t i = 0; i < n; ++i)
    out[i] = in[i] / (1.0f + expf(-(float)beta * in[i]));
  return 0;
}
// doc-end: kernel
