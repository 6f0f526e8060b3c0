// quickstart.cc - the smallest complete use of the runtime: load an
// artifact, make a Session, run it once on an input filled with 0.5 and
// print every output. docs/embedding.md quotes it; //examples/embed_service
// runs it and compares its output with onnxruntime's.
//
//   quickstart model.kiln
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "kiln/runtime.h"

// [snippet quickstart]
int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: quickstart MODEL.kiln\n");
    return 2;
  }
  // Runtime: the thread pool. Model: the loaded artifact, immutable and
  // shared. Session: one caller's arena. Every call returns a Status.
  std::shared_ptr<kiln::Runtime> runtime;
  kiln::Status s = kiln::Runtime::Create({}, &runtime);
  std::shared_ptr<const kiln::Model> model;
  if (s.ok()) s = runtime->LoadModel(argv[1], &model);
  std::unique_ptr<kiln::Session> session;
  if (s.ok()) s = kiln::Session::Create(model, &session);
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], s.ToString().c_str());
    return 1;
  }

  // One tensor per input, in signature order, with the declared dtype and
  // shape. Allocate gives a zeroed buffer the Tensor owns.
  std::vector<kiln::Tensor> inputs;
  for (const kiln::TensorInfo& info : model->inputs()) {
    kiln::Tensor input;
    s = kiln::Tensor::Allocate(info.dtype, info.dims, &input);
    if (!s.ok()) {
      std::fprintf(stderr, "input '%s': %s\n", info.name.c_str(), s.ToString().c_str());
      return 1;
    }
    if (info.dtype == kiln::DType::F32)
      std::fill_n(input.data_as<float>(), input.element_count(), 0.5f);
    inputs.push_back(input);
  }

  // An empty output vector asks the Session to allocate the outputs.
  std::vector<kiln::Tensor> outputs;
  s = session->Run(inputs, &outputs);
  if (!s.ok()) {
    std::fprintf(stderr, "run: %s\n", s.ToString().c_str());
    return 1;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const kiln::TensorInfo& info = model->outputs()[i];
    std::printf("%s:", info.name.c_str());
    if (info.dtype == kiln::DType::F32)
      for (int64_t j = 0; j < outputs[i].element_count(); ++j)
        std::printf(" %.9g", outputs[i].data_as<float>()[j]);
    std::printf("  (%s)\n", kiln::DescribeShape(info.dims, info.dtype).c_str());
  }
  return 0;
}
// [end snippet quickstart]
