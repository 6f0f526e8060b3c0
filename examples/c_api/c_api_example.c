/* c_api_example.c - loads a .kiln artifact, runs it once on inputs read
 * from .npy files and prints every output, through the runtime's C API
 * (kiln/kiln.h) only.
 *
 *   c_api_example MODEL.kiln NAME=FILE.npy... [--threads N]
 *
 * Prints, per output in signature order, a line "output NAME: DTYPE [DIMS]"
 * and a line of its values. Exit status: 0 success; 1 a Kiln call failed
 * (the runtime's status code and message are printed); 2 a bad command
 * line or input file; 3 this program ran out of memory. Every path releases
 * what it acquired (one clean-up block at the end of main).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kiln/kiln.h>

#include "npy.h"

enum {
  EXIT_OK = 0,
  EXIT_KILN_ERROR = 1,
  EXIT_USAGE = 2,
  EXIT_OUT_OF_MEMORY = 3
};

static const char* status_code_name(kiln_status_code_t code) {
  switch (code) {
    case KILN_OK: return "KILN_OK";
    case KILN_INVALID_ARGUMENT: return "KILN_INVALID_ARGUMENT";
    case KILN_NOT_FOUND: return "KILN_NOT_FOUND";
    case KILN_DATA_LOSS: return "KILN_DATA_LOSS";
    case KILN_UNIMPLEMENTED: return "KILN_UNIMPLEMENTED";
    case KILN_FAILED_PRECONDITION: return "KILN_FAILED_PRECONDITION";
    case KILN_RESOURCE_EXHAUSTED: return "KILN_RESOURCE_EXHAUSTED";
    case KILN_INTERNAL: return "KILN_INTERNAL";
  }
  return "KILN_UNKNOWN";
}

/* Prints a failed call's status and frees it; returns the exit status. */
static int report(kiln_status_t status, const char* what) {
  fprintf(stderr, "c_api_example: %s: %s: %s\n", what, status_code_name(kiln_status_code(status)),
          kiln_status_message(status));
  kiln_status_free(status);
  return EXIT_KILN_ERROR;
}

static int usage(void) {
  fprintf(stderr, "usage: c_api_example MODEL.kiln NAME=FILE.npy... [--threads N]\n");
  return EXIT_USAGE;
}

/* "f32 [1,3,32,32]" into `out`. */
static void describe(const kiln_tensor_t* tensor, char* out, size_t out_size) {
  size_t used = (size_t)snprintf(out, out_size, "%s [", npy_dtype_name(tensor->dtype));
  for (size_t i = 0; i < tensor->rank && used < out_size; ++i)
    used += (size_t)snprintf(out + used, out_size - used, "%s%" PRId64, i ? "," : "",
                             tensor->dims[i]);
  if (used < out_size) snprintf(out + used, out_size - used, "]");
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  float value;
  if (exponent == 0) {
    value = (float)mantissa / 16777216.0f; /* subnormal: mantissa * 2^-24 */
  } else if (exponent == 31) {
    uint32_t bits = 0x7f800000u | mantissa << 13;
    memcpy(&value, &bits, sizeof value);
  } else {
    uint32_t bits = (exponent + 112) << 23 | mantissa << 13;
    memcpy(&value, &bits, sizeof value);
  }
  return sign ? -value : value;
}

static void print_values(const kiln_tensor_t* tensor, size_t count) {
  const unsigned char* data = tensor->data;
  for (size_t i = 0; i < count; ++i) {
    if (i) putchar(' ');
    switch (tensor->dtype) {
      case KILN_F32: printf("%.9g", (double)((const float*)tensor->data)[i]); break;
      case KILN_F64: printf("%.17g", ((const double*)tensor->data)[i]); break;
      case KILN_F16: {
        uint16_t h;
        memcpy(&h, data + 2 * i, 2);
        printf("%.9g", (double)half_to_float(h));
        break;
      }
      case KILN_BF16: {
        uint32_t bits = (uint32_t)((const uint16_t*)tensor->data)[i] << 16;
        float value;
        memcpy(&value, &bits, sizeof value);
        printf("%.9g", (double)value);
        break;
      }
      case KILN_I8: printf("%d", ((const int8_t*)tensor->data)[i]); break;
      case KILN_I16: printf("%d", ((const int16_t*)tensor->data)[i]); break;
      case KILN_I32: printf("%" PRId32, ((const int32_t*)tensor->data)[i]); break;
      case KILN_I64: printf("%" PRId64, ((const int64_t*)tensor->data)[i]); break;
      case KILN_U8: printf("%u", ((const uint8_t*)tensor->data)[i]); break;
      case KILN_U16: printf("%u", ((const uint16_t*)tensor->data)[i]); break;
      case KILN_U32: printf("%" PRIu32, ((const uint32_t*)tensor->data)[i]); break;
      case KILN_U64: printf("%" PRIu64, ((const uint64_t*)tensor->data)[i]); break;
      case KILN_BOOL: printf("%d", data[i] != 0); break;
    }
  }
  putchar('\n');
}

int main(int argc, char** argv) {
  int exit_code = EXIT_OK;
  kiln_status_t status = NULL;
  kiln_runtime_t* runtime = NULL;
  kiln_model_t* model = NULL;
  kiln_session_t* session = NULL;
  npy_array_t* arrays = NULL;      /* one per model input, read from files */
  kiln_tensor_t* inputs = NULL;    /* views of `arrays` */
  kiln_tensor_t* outputs = NULL;   /* buffers this program allocates */
  size_t* output_counts = NULL;    /* elements per output */
  size_t input_count = 0, output_count = 0;
  const char* model_path = NULL;
  int threads = 0;
  char text[256];

  /* The command line: the model, then NAME=FILE pairs and --threads. */
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--threads") == 0) {
      char* end = NULL;
      errno = 0;
      long value = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : -1;
      if (i + 1 >= argc || *end != '\0' || errno != 0 || value < 0 || value > 4096) {
        fprintf(stderr, "c_api_example: --threads needs a count in [0, 4096]\n");
        exit_code = EXIT_USAGE;
        goto cleanup;
      }
      threads = (int)value;
      ++i;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage();
      goto cleanup;
    } else if (strncmp(argv[i], "--", 2) == 0) {
      fprintf(stderr, "c_api_example: unknown option '%s'\n", argv[i]);
      exit_code = usage();
      goto cleanup;
    } else if (model_path == NULL && strchr(argv[i], '=') == NULL) {
      model_path = argv[i];
    } else if (strchr(argv[i], '=') == NULL || argv[i][0] == '=') {
      fprintf(stderr, "c_api_example: '%s' is not NAME=FILE.npy\n", argv[i]);
      exit_code = usage();
      goto cleanup;
    }
  }
  if (model_path == NULL) {
    exit_code = usage();
    goto cleanup;
  }

  kiln_runtime_options_t options;
  kiln_runtime_options_initialize(&options);
  options.num_threads = threads;
  status = kiln_runtime_create(&options, &runtime);
  if (status) {
    exit_code = report(status, "creating the runtime");
    goto cleanup;
  }
  status = kiln_model_load_file(runtime, model_path, &model);
  if (status) {
    snprintf(text, sizeof text, "loading '%s'", model_path);
    exit_code = report(status, text);
    goto cleanup;
  }

  input_count = kiln_model_input_count(model);
  output_count = kiln_model_output_count(model);
  /* calloc(0) may return NULL; ask for at least one element. */
  arrays = calloc(input_count + 1, sizeof *arrays);
  inputs = calloc(input_count + 1, sizeof *inputs);
  outputs = calloc(output_count + 1, sizeof *outputs);
  output_counts = calloc(output_count + 1, sizeof *output_counts);
  if (!arrays || !inputs || !outputs || !output_counts) {
    fprintf(stderr, "c_api_example: out of memory\n");
    exit_code = EXIT_OUT_OF_MEMORY;
    goto cleanup;
  }

  /* Each NAME=FILE: the runtime finds the input by name; the file says the
   * dtype and shape, which the runtime checks when it runs. */
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--threads") == 0) {
      ++i;
      continue;
    }
    char* equals = strchr(argv[i], '=');
    if (equals == NULL) continue; /* the model path */
    *equals = '\0';
    const char* name = argv[i];
    const char* file = equals + 1;
    size_t index = 0;
    status = kiln_model_find_input(model, name, &index);
    if (status) {
      fprintf(stderr, "c_api_example: the model's inputs are:");
      for (size_t k = 0; k < input_count; ++k) {
        const char* input_name = NULL;
        kiln_tensor_t info;
        kiln_status_t info_status = kiln_model_input_info(model, k, &input_name, &info);
        if (info_status) {
          exit_code = report(info_status, "reading the signature");
          kiln_status_free(status);
          goto cleanup;
        }
        describe(&info, text, sizeof text);
        fprintf(stderr, " %s (%s)", input_name, text);
      }
      fprintf(stderr, "\n");
      snprintf(text, sizeof text, "input '%s'", name);
      exit_code = report(status, text);
      goto cleanup;
    }
    if (inputs[index].data != NULL) {
      fprintf(stderr, "c_api_example: input '%s' is given twice\n", name);
      exit_code = EXIT_USAGE;
      goto cleanup;
    }
    char error[256];
    npy_result_t read = npy_read(file, &arrays[index], error, sizeof error);
    if (read != NPY_OK) {
      fprintf(stderr, "c_api_example: input '%s': %s: %s\n", name, file, error);
      exit_code = read == NPY_OUT_OF_MEMORY ? EXIT_OUT_OF_MEMORY : EXIT_USAGE;
      goto cleanup;
    }
    inputs[index].dtype = arrays[index].dtype;
    inputs[index].rank = arrays[index].rank;
    inputs[index].dims = arrays[index].dims;
    /* A zero-size array has no buffer; any non-NULL pointer will do. */
    inputs[index].data = arrays[index].data ? arrays[index].data : (void*)&arrays[index];
  }
  for (size_t k = 0; k < input_count; ++k) {
    if (inputs[k].data != NULL) continue;
    const char* input_name = NULL;
    kiln_tensor_t info;
    status = kiln_model_input_info(model, k, &input_name, &info);
    if (status) {
      exit_code = report(status, "reading the signature");
      goto cleanup;
    }
    describe(&info, text, sizeof text);
    fprintf(stderr, "c_api_example: input '%s' (%s) is not given; pass %s=FILE.npy\n",
            input_name, text, input_name);
    exit_code = EXIT_USAGE;
    goto cleanup;
  }

  /* Output buffers, sized from the signature. */
  for (size_t k = 0; k < output_count; ++k) {
    const char* output_name = NULL;
    status = kiln_model_output_info(model, k, &output_name, &outputs[k]);
    if (status) {
      exit_code = report(status, "reading the signature");
      goto cleanup;
    }
    size_t count = 1;
    for (size_t d = 0; d < outputs[k].rank; ++d) count *= (size_t)outputs[k].dims[d];
    output_counts[k] = count;
    outputs[k].data = malloc(count * npy_dtype_size(outputs[k].dtype) + 1);
    if (outputs[k].data == NULL) {
      fprintf(stderr, "c_api_example: out of memory for output '%s'\n", output_name);
      exit_code = EXIT_OUT_OF_MEMORY;
      goto cleanup;
    }
  }

  status = kiln_session_create(model, &session);
  if (status) {
    exit_code = report(status, "creating a session");
    goto cleanup;
  }
  status = kiln_session_run(session, inputs, input_count, outputs, output_count);
  if (status) {
    exit_code = report(status, "running");
    goto cleanup;
  }

  for (size_t k = 0; k < output_count; ++k) {
    const char* output_name = NULL;
    kiln_tensor_t info;
    status = kiln_model_output_info(model, k, &output_name, &info);
    if (status) {
      exit_code = report(status, "reading the signature");
      goto cleanup;
    }
    describe(&outputs[k], text, sizeof text);
    printf("output %s: %s\n", output_name, text);
    print_values(&outputs[k], output_counts[k]);
  }
  if (fflush(stdout) != 0) {
    fprintf(stderr, "c_api_example: writing the outputs: %s\n", strerror(errno));
    exit_code = EXIT_USAGE;
  }

cleanup:
  /* Releasing in any order is safe (handles keep what they need alive);
   * every release accepts NULL. */
  kiln_session_release(session);
  kiln_model_release(model);
  kiln_runtime_release(runtime);
  if (outputs != NULL)
    for (size_t k = 0; k < output_count; ++k) free(outputs[k].data);
  if (arrays != NULL)
    for (size_t k = 0; k < input_count; ++k) npy_free(&arrays[k]);
  free(output_counts);
  free(outputs);
  free(inputs);
  free(arrays);
  return exit_code;
}
