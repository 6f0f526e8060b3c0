/* npy.h - reads a NumPy .npy file into a kiln_tensor_t, for the C example.
 *
 * Versions 1-3, C order, little-endian (or byte-sized) element types that
 * have a Kiln dtype: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 (NumPy has no
 * bfloat16). The file must hold exactly the bytes its shape needs.
 */
#ifndef KILN_EXAMPLES_C_API_NPY_H_
#define KILN_EXAMPLES_C_API_NPY_H_

#include <stddef.h>
#include <stdint.h>

#include <kiln/kiln.h>

/* The most dims a .npy file may have here. */
#define NPY_MAX_RANK 16

typedef struct npy_array_t {
  kiln_dtype_t dtype;
  size_t rank;
  int64_t dims[NPY_MAX_RANK];
  void* data; /* malloc'ed, owned by the array; NULL when empty */
  size_t byte_size;
} npy_array_t;

typedef enum npy_result_e {
  NPY_OK = 0,
  NPY_IO_ERROR,     /* the file could not be opened or read (see errno) */
  NPY_BAD_FORMAT,   /* not a .npy file Kiln can use; `error` says why */
  NPY_OUT_OF_MEMORY /* the data buffer could not be allocated */
} npy_result_t;

/* Reads `path` into `out` (which the caller releases with npy_free, also
 * on failure). On failure writes a one-line reason into `error`. */
npy_result_t npy_read(const char* path, npy_array_t* out, char* error, size_t error_size);
void npy_free(npy_array_t* array);

/* Bytes per element of `dtype`; 0 for an unknown value. */
size_t npy_dtype_size(kiln_dtype_t dtype);
/* "f32", "i64", ...; "?" for an unknown value. */
const char* npy_dtype_name(kiln_dtype_t dtype);

#endif /* KILN_EXAMPLES_C_API_NPY_H_ */
