// run_swish - a minimal service: registers the Swish kernel with the
// runtime by function pointer, loads a model compiled with the kernel
// plugin, runs it on a raw f32 input file and writes the raw f32 output.
//
//   run_swish MODEL.kiln INPUT.f32 OUTPUT.f32
//
// Exit status 0 on success; 1 with the runtime's message otherwise.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "examples/custom_op/swish_kernel.h"
#include "kiln/runtime.h"

namespace {

int Fail(const kiln::Status& s) {
  std::fprintf(stderr, "run_swish: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: run_swish MODEL.kiln INPUT.f32 OUTPUT.f32\n");
    return 2;
  }
  // doc-region: register
  std::shared_ptr<kiln::Runtime> runtime;
  kiln::Status s = kiln::Runtime::Create({}, &runtime);
  if (!s.ok()) return Fail(s);
  // Before LoadModel: loading checks that every custom op has a kernel.
  s = runtime->RegisterCustomOp("com.example.Swish", SwishKernel, /*user_data=*/nullptr);
  if (!s.ok()) return Fail(s);
  std::shared_ptr<const kiln::Model> model;
  s = runtime->LoadModel(argv[1], &model);
  if (!s.ok()) return Fail(s);
  // doc-end: register
  std::unique_ptr<kiln::Session> session;
  if (!(s = kiln::Session::Create(model, &session)).ok()) return Fail(s);

  const kiln::TensorInfo& info = model->inputs()[0];
  std::ifstream in(argv[2], std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() != info.byte_size) {
    std::fprintf(stderr, "run_swish: %s holds %zu bytes; input '%s' needs %zu\n", argv[2],
                 bytes.size(), info.name.c_str(), info.byte_size);
    return 1;
  }
  std::vector<kiln::Tensor> outputs;
  s = session->Run({kiln::Tensor::Borrow(info.dtype, info.dims, bytes.data())}, &outputs);
  if (!s.ok()) return Fail(s);
  std::ofstream out(argv[3], std::ios::binary);
  out.write(static_cast<const char*>(outputs[0].data()),
            static_cast<std::streamsize>(outputs[0].byte_size()));
  return out ? 0 : 1;
}
