/* custom_op.h - the ABI of external custom-op kernels (C, stable).
 *
 * A model may contain operators that Kiln does not implement. A kilnc
 * plugin declares such an operator (its shape function) and says that its
 * kernel is external; the compiled artifact then holds one CustomCall plan
 * step per call, naming the operator (e.g. "com.example.Swish"). The
 * service that runs the model provides the kernel: a C function with the
 * signature below, registered with the Runtime before the model is loaded
 *
 *   kiln::Runtime::RegisterCustomOp("com.example.Swish", SwishKernel, NULL);
 *   kiln_runtime_register_custom_op(runtime, "com.example.Swish", SwishKernel, NULL);
 *
 * or exported by a shared library that the Runtime loads
 * (Runtime::RegisterCustomOpLibrary / kiln_runtime_register_custom_op_library):
 *
 *   static const kiln_custom_op_t kOps[] = {{"com.example.Swish", SwishKernel, NULL}};
 *   const kiln_custom_op_t* kiln_custom_op_library_query(uint32_t abi_version,
 *                                                         size_t* out_count) {
 *     if (abi_version != KILN_CUSTOM_OP_ABI_VERSION) return NULL;
 *     *out_count = 1;
 *     return kOps;
 *   }
 *
 * Loading a model checks that every custom op it calls is registered
 * (a missing one is KILN_FAILED_PRECONDITION naming the op), so a run never
 * discovers a missing kernel half way.
 *
 * A kernel library includes this header (or kiln/kiln.h, which includes it
 * and names the dtypes) and links against nothing of Kiln.
 *
 * The call (kiln_custom_call_t):
 *   - inputs and outputs in the order of the operator's ONNX inputs and
 *     outputs; every tensor is dense, row-major, with the dtype and dims the
 *     plugin's shape function gave at compile time (static shapes);
 *   - `data` of an input is read-only (it may be the caller's tensor or a
 *     read-only mapping of the model's weights) and may alias other inputs;
 *     `data` of an output is writable, `byte_size` bytes, shares no byte with
 *     any input or other output, and holds garbage on entry: the kernel
 *     writes every byte it promises. A tensor with no elements may have a
 *     NULL `data`.
 *   - alignment: outputs and intermediates are 64-byte aligned; inputs that
 *     are the caller's tensors have whatever alignment the caller gave.
 *   - attrs: the node's attributes, sorted by name, as the plugin's
 *     compile-time side kept them (ONNX INT -> KILN_ATTR_INT, FLOAT ->
 *     KILN_ATTR_FLOAT, STRING -> KILN_ATTR_STRING, INTS -> KILN_ATTR_INTS,
 *     FLOATS -> KILN_ATTR_FLOATS). Look one up with
 *     kiln_custom_call_find_attr.
 *   - Everything the call points to lives until the kernel returns; keep no
 *     pointer to it afterwards.
 *
 * Threads: the kernel runs on the thread that called Session::Run, once per
 * step, and may be called concurrently from several sessions (of one or
 * several models), so it must be reentrant. It may use threads of its own.
 *
 * Errors: return 0 on success. Any other value is an error: the run stops
 * and Session::Run returns KILN_INTERNAL with a message naming the op, the
 * model node, the code and whatever the kernel wrote into `error_message`
 * (kiln_custom_call_set_error does that). Outputs are then undefined.
 *
 * Versioning: KILN_CUSTOM_OP_ABI_VERSION changes when any struct here
 * changes layout; the runtime passes the version it speaks in
 * `abi_version` of every call and to the library query.
 */
#ifndef KILN_CUSTOM_OP_H_
#define KILN_CUSTOM_OP_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_CUSTOM_OP_ABI_VERSION 1u

/* Values of kiln_custom_attr_t::kind. */
typedef enum kiln_custom_attr_kind_e {
  KILN_ATTR_INT = 0,    /* ints[0] */
  KILN_ATTR_FLOAT = 1,  /* floats[0] */
  KILN_ATTR_STRING = 2, /* string, NUL-terminated; count = its length */
  KILN_ATTR_INTS = 3,   /* ints[0..count) */
  KILN_ATTR_FLOATS = 4  /* floats[0..count) */
} kiln_custom_attr_kind_t;

typedef struct kiln_custom_attr_t {
  const char* name;
  int32_t kind;          /* a kiln_custom_attr_kind_t */
  uint64_t count;        /* elements (1 for INT and FLOAT), or string length */
  const int64_t* ints;   /* INT, INTS; else NULL */
  const double* floats;  /* FLOAT, FLOATS; else NULL */
  const char* string;    /* STRING; else NULL */
} kiln_custom_attr_t;

typedef struct kiln_custom_tensor_t {
  int32_t dtype;         /* a kiln_dtype_t (kiln/kiln.h): KILN_F32 = 0, ... */
  int32_t rank;
  const int64_t* dims;   /* rank entries */
  void* data;            /* see "The call" above */
  uint64_t byte_size;    /* element size x product of dims */
} kiln_custom_tensor_t;

typedef struct kiln_custom_call_t {
  uint32_t abi_version;  /* KILN_CUSTOM_OP_ABI_VERSION of the runtime */
  uint32_t input_count;
  uint32_t output_count;
  uint32_t attr_count;
  const char* op_name;   /* "com.example.Swish" */
  const char* node_name; /* the model node this step computes, "" if none */
  const kiln_custom_tensor_t* inputs;
  const kiln_custom_tensor_t* outputs;
  const kiln_custom_attr_t* attrs;
  /* Where a failing kernel may write a NUL-terminated message (at most
   * error_capacity bytes, terminator included). */
  char* error_message;
  size_t error_capacity;
} kiln_custom_call_t;

/* The kernel. `user_data` is what was given at registration. Returns 0 on
 * success, anything else on failure (see "Errors" above). */
typedef int32_t (*kiln_custom_kernel_fn)(const kiln_custom_call_t* call, void* user_data);

/* One entry of a custom-op library's table. */
typedef struct kiln_custom_op_t {
  const char* name;             /* the op's registered name, "com.example.Swish" */
  kiln_custom_kernel_fn kernel;
  void* user_data;              /* passed to every call of this kernel */
} kiln_custom_op_t;

/* What a custom-op library exports under the name
 * KILN_CUSTOM_OP_LIBRARY_QUERY_SYMBOL: its table of ops for ABI
 * `abi_version`, or NULL when it does not speak that version. The table
 * (and the strings it points to) must live as long as the library is
 * loaded; the runtime keeps the library loaded while any model uses it. */
typedef const kiln_custom_op_t* (*kiln_custom_op_library_query_fn)(uint32_t abi_version,
                                                                   size_t* out_count);
#define KILN_CUSTOM_OP_LIBRARY_QUERY_SYMBOL "kiln_custom_op_library_query"

/* The attribute named `name`, or NULL. */
static inline const kiln_custom_attr_t* kiln_custom_call_find_attr(const kiln_custom_call_t* call,
                                                                   const char* name) {
  uint32_t i;
  for (i = 0; i < call->attr_count; ++i)
    if (strcmp(call->attrs[i].name, name) == 0) return &call->attrs[i];
  return NULL;
}

/* A FLOAT (or INT) attribute's value, or `fallback` when it is absent or of
 * another kind. */
static inline double kiln_custom_call_float_attr(const kiln_custom_call_t* call, const char* name,
                                                 double fallback) {
  const kiln_custom_attr_t* a = kiln_custom_call_find_attr(call, name);
  if (a == NULL) return fallback;
  if (a->kind == KILN_ATTR_FLOAT) return a->floats[0];
  if (a->kind == KILN_ATTR_INT) return (double)a->ints[0];
  return fallback;
}

/* Writes a printf-style message into the call's error buffer (truncated to
 * fit) and returns `code`, so a kernel can `return kiln_custom_call_set_error(
 * call, 2, "input has rank %d", rank);`. */
static inline int32_t kiln_custom_call_set_error(const kiln_custom_call_t* call, int32_t code,
                                                 const char* format, ...) {
  if (call->error_message != NULL && call->error_capacity > 0) {
    va_list args;
    va_start(args, format);
    vsnprintf(call->error_message, call->error_capacity, format, args);
    va_end(args);
  }
  return code;
}

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* KILN_CUSTOM_OP_H_ */
