/* swish_kernel.h - the external Swish kernel (kind b), for services that
 * register it by function pointer (run_swish.cc). */
#ifndef KILN_EXAMPLES_CUSTOM_OP_SWISH_KERNEL_H_
#define KILN_EXAMPLES_CUSTOM_OP_SWISH_KERNEL_H_

#include "kiln/kiln.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = x * sigmoid(beta * x) on f32 tensors; beta from the node's "beta"
 * attribute (1 when absent), which must be positive. */
int32_t SwishKernel(const kiln_custom_call_t* call, void* user_data);

#ifdef __cplusplus
}
#endif

#endif /* KILN_EXAMPLES_CUSTOM_OP_SWISH_KERNEL_H_ */
