//===- CustomOpImportTest.cpp - ONNX nodes of registered custom ops -------===//
//
// The importer side of custom ops on ModelProtos built here: a standard op
// outside Kiln's list (ai.onnx::Det) and a custom-domain op become
// kiln.custom_call with their attributes and inferred types; a node of an
// op nobody registered still gets the importer's unsupported-op report; an
// attribute kind a custom call cannot carry is an error naming the node.
//
//===----------------------------------------------------------------------===//
#include "compiler/customops/CustomOpRegistry.h"
#include "compiler/onnx/OnnxImporter.h"
#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace mlir::kiln {
namespace {

// Det of [N, N] matrices: one scalar per matrix.
LogicalResult detTypes(Location loc, TypeRange operands, DictionaryAttr,
                       SmallVectorImpl<Type> &results) {
  auto type = dyn_cast<RankedTensorType>(operands[0]);
  if (!type || type.getRank() < 2)
    return emitError(loc) << "Det takes [..., N, N], got " << operands[0];
  results.push_back(RankedTensorType::get(type.getShape().drop_back(2),
                                          type.getElementType()));
  return success();
}

LogicalResult sameTypes(Location, TypeRange operands, DictionaryAttr,
                        SmallVectorImpl<Type> &results) {
  results.append(operands.begin(), operands.end());
  return success();
}

void registerOnce() {
  static bool once = [] {
    std::string error;
    EXPECT_TRUE(succeeded(registerCustomOp({"", "Det", "", detTypes, nullptr}, error))) << error;
    EXPECT_TRUE(succeeded(
        registerCustomOp({"com.example", "Scale", "example.scale", sameTypes, nullptr}, error)))
        << error;
    return true;
  }();
  (void)once;
}

onnx::ValueInfoProto tensorInfo(const std::string &name, std::vector<int64_t> dims) {
  onnx::ValueInfoProto info;
  info.set_name(name);
  auto *tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    tensor->mutable_shape()->add_dim()->set_dim_value(d);
  return info;
}

// x [2, 3, 3] -> OP -> y, one node named "n" of `domain`::`opType`.
onnx::ModelProto model(const std::string &domain, const std::string &opType,
                       std::vector<int64_t> outDims,
                       std::function<void(onnx::NodeProto &)> attributes = {}) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto *opset = m.add_opset_import();
  opset->set_version(17);
  if (!domain.empty()) {
    auto *custom = m.add_opset_import();
    custom->set_domain(domain);
    custom->set_version(1);
  }
  auto *g = m.mutable_graph();
  g->set_name("g");
  *g->add_input() = tensorInfo("x", {2, 3, 3});
  *g->add_output() = tensorInfo("y", outDims);
  auto *node = g->add_node();
  node->set_name("n");
  node->set_op_type(opType);
  node->set_domain(domain);
  node->add_input("x");
  node->add_output("y");
  if (attributes)
    attributes(*node);
  return m;
}

struct Imported {
  OwningOpRef<ModuleOp> module;
  std::string errors;
};

Imported import(MLIRContext &context, const onnx::ModelProto &m, const std::string &name) {
  const char *dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name + ".onnx";
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  Imported result;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
    result.errors += diag.str() + "\n";
    return success();
  });
  result.module = onnx_import::importOnnxFile(context, path, {});
  return result;
}

TEST(CustomOpImportTest, StandardAndCustomDomainOpsBecomeCustomCalls) {
  registerOnce();
  MLIRContext context;
  Imported det = import(context, model("", "Det", {2}), "det");
  ASSERT_TRUE(det.module) << det.errors;
  CustomCallOp call;
  det.module->walk([&](CustomCallOp c) { call = c; });
  ASSERT_TRUE(call);
  EXPECT_EQ(call.getCallTarget(), "ai.onnx.Det");
  EXPECT_EQ(call.getResult(0).getType(),
            RankedTensorType::get({2}, Float32Type::get(&context)));

  Imported scale = import(context, model("com.example", "Scale", {2, 3, 3}, [](onnx::NodeProto &n) {
    auto *alpha = n.add_attribute();
    alpha->set_name("alpha");
    alpha->set_type(onnx::AttributeProto::FLOAT);
    alpha->set_f(0.5f);
    auto *axes = n.add_attribute();
    axes->set_name("axes");
    axes->set_type(onnx::AttributeProto::INTS);
    axes->add_ints(1);
    axes->add_ints(2);
    auto *mode = n.add_attribute();
    mode->set_name("mode");
    mode->set_type(onnx::AttributeProto::STRING);
    mode->set_s("fast");
  }), "scale");
  ASSERT_TRUE(scale.module) << scale.errors;
  scale.module->walk([&](CustomCallOp c) { call = c; });
  EXPECT_EQ(call.getCallTarget(), "example.scale");
  ASSERT_TRUE(call.getConfig());
  DictionaryAttr config = *call.getConfig();
  EXPECT_EQ(cast<FloatAttr>(config.get("alpha")).getValueAsDouble(), 0.5);
  EXPECT_EQ(cast<DenseI64ArrayAttr>(config.get("axes")).asArrayRef(),
            ArrayRef<int64_t>({1, 2}));
  EXPECT_EQ(cast<StringAttr>(config.get("mode")).getValue(), "fast");
}

TEST(CustomOpImportTest, UnregisteredOpsGetTheUsualReport) {
  registerOnce();
  MLIRContext context;
  Imported imported = import(context, model("", "ReverseSequence", {2, 3, 3}), "unknown");
  EXPECT_FALSE(imported.module);
  EXPECT_NE(imported.errors.find("uses 1 ONNX operator type(s) Kiln does not support:\n"
                                 "  ai.onnx::ReverseSequence (opset 17), 1 node(s): 'n'"),
            std::string::npos)
      << imported.errors;
}

TEST(CustomOpImportTest, ErrorsNameTheNode) {
  registerOnce();
  MLIRContext context;
  Imported tensorAttr = import(context, model("com.example", "Scale", {2, 3, 3}, [](onnx::NodeProto &n) {
    auto *t = n.add_attribute();
    t->set_name("table");
    t->set_type(onnx::AttributeProto::TENSOR);
    t->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  }), "tensor_attr");
  EXPECT_FALSE(tensorAttr.module);
  EXPECT_NE(tensorAttr.errors.find("node 'n' (Scale): attribute 'table' is of ONNX type TENSOR"),
            std::string::npos)
      << tensorAttr.errors;

  // Det of a rank-1 tensor: the shape function's error, naming the node.
  onnx::ModelProto m = model("", "Det", {});
  auto *dims = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()
                   ->mutable_shape();
  dims->clear_dim();
  dims->add_dim()->set_dim_value(4);
  Imported bad = import(context, m, "bad_det");
  EXPECT_FALSE(bad.module);
  EXPECT_NE(bad.errors.find("node 'n' (Det): the shape function of custom op 'ai.onnx.Det' "
                            "failed: Det takes [..., N, N], got 'tensor<4xf32>'"),
            std::string::npos)
      << bad.errors;
}

} // namespace
} // namespace mlir::kiln
