// tensor_file_fuzzer.cc - libFuzzer targets for the tensor readers of
// `kiln run`: ParseNpy (built with -DKILN_FUZZ_NPY) and ParseTensorProto
// (-DKILN_FUZZ_TENSOR_PROTO). A reader either fails with a Status or
// returns a tensor whose buffer holds exactly its declared elements; the
// target reads every element back so ASan sees any short buffer.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kiln/runtime.h"
#include "tools/kiln/tensor_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  kiln::Tensor tensor;
#if defined(KILN_FUZZ_NPY)
  kiln::Status status = kiln::tools::ParseNpy(bytes, &tensor);
#elif defined(KILN_FUZZ_TENSOR_PROTO)
  std::string name;
  kiln::Status status = kiln::tools::ParseTensorProto(bytes, &tensor, &name);
#else
#error "define KILN_FUZZ_NPY or KILN_FUZZ_TENSOR_PROTO"
#endif
  if (!status.ok()) {
    if (status.message().empty()) std::abort();  // errors must say why
    return 0;
  }
  int64_t count = tensor.element_count();
  if (count < 0) std::abort();
  if (count > 0 && tensor.data() == nullptr) std::abort();
  double sum = 0;
  for (int64_t i = 0; i < count; ++i) sum += kiln::tools::ElementAsDouble(tensor, i);
  // What `kiln run --save` would write back.
  std::vector<uint8_t> encoded = kiln::tools::EncodeNpy(tensor);
  if (encoded.size() < tensor.byte_size()) std::abort();
  volatile double sink = sum;
  (void)sink;
  return 0;
}
