// The ONNX protobuf classes (Debian's libonnx_proto.so against the system
// Protobuf), FlatBuffers' builder and verifier, and the CUDA headers, as the
// frontend, the artifact writer and the GPU runtime will use them.

#include <cuda.h>
#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <string>

namespace {

TEST(SystemLibraries, OnnxModelProtoRoundTrips) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  onnx::OperatorSetIdProto *opset = model.add_opset_import();
  opset->set_version(17);
  onnx::NodeProto *node = model.mutable_graph()->add_node();
  node->set_op_type("Relu");
  node->set_name("relu_0");
  node->add_input("x");
  node->add_output("y");

  std::string bytes;
  ASSERT_TRUE(model.SerializeToString(&bytes));
  onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(parsed.opset_import(0).version(), 17);
  EXPECT_EQ(parsed.graph().node(0).op_type(), "Relu");
  EXPECT_EQ(parsed.graph().node(0).name(), "relu_0");
  // A truncated buffer must be rejected, not half-read.
  EXPECT_FALSE(parsed.ParseFromString(bytes.substr(0, bytes.size() - 3)));
}

TEST(SystemLibraries, FlatBufferBuildsAndVerifies) {
  flatbuffers::FlatBufferBuilder builder;
  auto name = builder.CreateString("kiln");
  builder.Finish(name);
  flatbuffers::Verifier verifier(builder.GetBufferPointer(), builder.GetSize());
  auto *root = flatbuffers::GetRoot<flatbuffers::String>(builder.GetBufferPointer());
  EXPECT_TRUE(verifier.VerifyString(root));
  EXPECT_EQ(root->str(), "kiln");
}

TEST(SystemLibraries, CudaHeadersAreCuda13) {
  // The runtime reaches the driver through dlopen; only the headers are
  // needed at build time.
  EXPECT_GE(CUDA_VERSION, 13000);
}

} // namespace
