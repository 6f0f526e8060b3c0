/* npy.c - the .npy reader of the C example (see npy.h). */
#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* const kDtypeNames[] = {"f32", "f16", "bf16", "f64", "i8",  "i16", "i32",
                                          "i64", "u8",  "u16",  "u32", "u64", "bool"};
static const size_t kDtypeSizes[] = {4, 2, 2, 8, 1, 2, 4, 8, 1, 2, 4, 8, 1};

size_t npy_dtype_size(kiln_dtype_t dtype) {
  return (unsigned)dtype <= KILN_BOOL ? kDtypeSizes[dtype] : 0;
}

const char* npy_dtype_name(kiln_dtype_t dtype) {
  return (unsigned)dtype <= KILN_BOOL ? kDtypeNames[dtype] : "?";
}

void npy_free(npy_array_t* array) {
  if (array == NULL) return;
  free(array->data);
  array->data = NULL;
}

static npy_result_t fail(char* error, size_t error_size, npy_result_t result, const char* format,
                         ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(error, error_size, format, args);
  va_end(args);
  return result;
}

/* NumPy's type string ('<f4', '|u1', ...) to a Kiln dtype. */
static int parse_descr(const char* descr, kiln_dtype_t* out) {
  static const struct {
    char kind;
    int size;
    kiln_dtype_t dtype;
  } kTypes[] = {{'f', 2, KILN_F16}, {'f', 4, KILN_F32}, {'f', 8, KILN_F64}, {'i', 1, KILN_I8},
                {'i', 2, KILN_I16}, {'i', 4, KILN_I32}, {'i', 8, KILN_I64}, {'u', 1, KILN_U8},
                {'u', 2, KILN_U16}, {'u', 4, KILN_U32}, {'u', 8, KILN_U64}, {'b', 1, KILN_BOOL}};
  char order = descr[0];
  if (order == '\0' || descr[1] == '\0' || !isdigit((unsigned char)descr[2]) || descr[3] != '\0')
    return 0;
  int size = descr[2] - '0';
  /* '>' (big-endian) is fine only for single bytes; '|' means "no order". */
  if (order != '<' && order != '=' && order != '|' && !(order == '>' && size == 1)) return 0;
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; ++i)
    if (kTypes[i].kind == descr[1] && kTypes[i].size == size) {
      *out = kTypes[i].dtype;
      return 1;
    }
  return 0;
}

/* Finds `'key':` in the header dict and returns what follows (spaces
 * skipped), or NULL. */
static const char* find_key(const char* header, const char* key) {
  char quoted[32];
  snprintf(quoted, sizeof quoted, "'%s'", key);
  const char* at = strstr(header, quoted);
  if (at == NULL) return NULL;
  at += strlen(quoted);
  while (*at == ' ') ++at;
  if (*at != ':') return NULL;
  ++at;
  while (*at == ' ') ++at;
  return at;
}

/* Parses the header dict: {'descr': '<f4', 'fortran_order': False,
 * 'shape': (1, 3), }. */
static npy_result_t parse_header(const char* header, npy_array_t* out, char* error,
                                 size_t error_size) {
  const char* descr = find_key(header, "descr");
  char descr_text[8] = {0};
  if (descr == NULL || *descr != '\'')
    return fail(error, error_size, NPY_BAD_FORMAT, "the header has no 'descr'");
  const char* end = strchr(descr + 1, '\'');
  size_t descr_length = end ? (size_t)(end - descr - 1) : 0;
  if (end == NULL || descr_length >= sizeof descr_text)
    return fail(error, error_size, NPY_BAD_FORMAT, "bad 'descr' in the header");
  memcpy(descr_text, descr + 1, descr_length);
  if (!parse_descr(descr_text, &out->dtype))
    return fail(error, error_size, NPY_BAD_FORMAT,
                "element type '%s' has no Kiln dtype (little-endian f2 f4 f8 i1-i8 u1-u8 b1)",
                descr_text);

  const char* fortran = find_key(header, "fortran_order");
  if (fortran == NULL)
    return fail(error, error_size, NPY_BAD_FORMAT, "the header has no 'fortran_order'");
  if (strncmp(fortran, "False", 5) != 0)
    return fail(error, error_size, NPY_BAD_FORMAT, "Fortran-order arrays are not supported");

  const char* shape = find_key(header, "shape");
  if (shape == NULL || *shape != '(')
    return fail(error, error_size, NPY_BAD_FORMAT, "the header has no 'shape' tuple");
  ++shape;
  out->rank = 0;
  for (;;) {
    while (*shape == ' ' || *shape == ',') ++shape;
    if (*shape == ')') break;
    if (!isdigit((unsigned char)*shape))
      return fail(error, error_size, NPY_BAD_FORMAT, "bad 'shape' in the header");
    if (out->rank == NPY_MAX_RANK)
      return fail(error, error_size, NPY_BAD_FORMAT, "more than %d dims", NPY_MAX_RANK);
    errno = 0;
    char* after = NULL;
    long long dim = strtoll(shape, &after, 10);
    if (errno != 0 || dim < 0)
      return fail(error, error_size, NPY_BAD_FORMAT, "dim %zu is out of range", out->rank);
    out->dims[out->rank++] = dim;
    shape = after;
  }
  return NPY_OK;
}

npy_result_t npy_read(const char* path, npy_array_t* out, char* error, size_t error_size) {
  memset(out, 0, sizeof *out);
  FILE* file = fopen(path, "rb");
  if (file == NULL)
    return fail(error, error_size, NPY_IO_ERROR, "cannot open: %s", strerror(errno));

  npy_result_t result = NPY_OK;
  char* header = NULL;
  unsigned char prefix[12];
  if (fread(prefix, 1, 10, file) != 10 || memcmp(prefix, "\x93NUMPY", 6) != 0) {
    result = fail(error, error_size, NPY_BAD_FORMAT, "not a .npy file (no \\x93NUMPY magic)");
    goto done;
  }
  uint32_t header_size;
  if (prefix[6] == 1) {
    header_size = (uint32_t)prefix[8] | (uint32_t)prefix[9] << 8;
  } else if (prefix[6] == 2 || prefix[6] == 3) {
    if (fread(prefix + 10, 1, 2, file) != 2) {
      result = fail(error, error_size, NPY_BAD_FORMAT, "truncated header");
      goto done;
    }
    header_size = (uint32_t)prefix[8] | (uint32_t)prefix[9] << 8 | (uint32_t)prefix[10] << 16 |
                  (uint32_t)prefix[11] << 24;
  } else {
    result = fail(error, error_size, NPY_BAD_FORMAT, ".npy version %d is not supported (1-3)",
                  prefix[6]);
    goto done;
  }
  if (header_size > (1u << 20)) {
    result = fail(error, error_size, NPY_BAD_FORMAT, "header of %u bytes is too long", header_size);
    goto done;
  }
  header = malloc((size_t)header_size + 1);
  if (header == NULL) {
    result = fail(error, error_size, NPY_OUT_OF_MEMORY, "out of memory for the header");
    goto done;
  }
  if (fread(header, 1, header_size, file) != header_size) {
    result = fail(error, error_size, NPY_BAD_FORMAT, "truncated header");
    goto done;
  }
  header[header_size] = '\0';
  result = parse_header(header, out, error, error_size);
  if (result != NPY_OK) goto done;

  /* Element count and byte size, refusing overflow. */
  size_t size = npy_dtype_size(out->dtype);
  for (size_t i = 0; i < out->rank; ++i) {
    uint64_t dim = (uint64_t)out->dims[i];
    if (dim != 0 && size > SIZE_MAX / dim) {
      result = fail(error, error_size, NPY_BAD_FORMAT, "the shape's byte size overflows");
      goto done;
    }
    size *= (size_t)dim;
  }
  out->byte_size = size;
  if (size > 0) {
    out->data = malloc(size);
    if (out->data == NULL) {
      result = fail(error, error_size, NPY_OUT_OF_MEMORY, "out of memory for %zu bytes of data",
                    size);
      goto done;
    }
    if (fread(out->data, 1, size, file) != size) {
      result = fail(error, error_size, NPY_BAD_FORMAT, "truncated: the shape needs %zu data bytes",
                    size);
      goto done;
    }
  }
  if (fgetc(file) != EOF) {
    result = fail(error, error_size, NPY_BAD_FORMAT, "%zu data bytes expected, the file has more",
                  size);
    goto done;
  }
  if (ferror(file)) {
    result = fail(error, error_size, NPY_IO_ERROR, "read error: %s", strerror(errno));
    goto done;
  }

done:
  free(header);
  fclose(file);
  return result;
}
