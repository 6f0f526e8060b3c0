//===- PaddleImporterTest.cpp - Paddle Program -> Kiln, by hand -----------===//
//
// Programs built by hand in both forms (legacy slots, PIR positions) check
// the importer's plumbing: parameters as constants, --input-shape, value
// lists, result names, and the errors (one report of every unsupported op
// type, NMS named as unsupported, unknown values, bad parameters). Numeric
// checks against Paddle are in tests/paddle (conformance).
//
//===----------------------------------------------------------------------===//

#include "compiler/paddle/PaddleImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace mlir;
namespace pd = ::kiln::paddle;

namespace {

struct Imported {
  OwningOpRef<ModuleOp> module;
  std::string errors;
  std::string ir;
};

class PaddleImporterTest : public ::testing::Test {
protected:
  Imported import(const pd::Program &program,
                  const mlir::kiln::paddle_import::ImportOptions &options = {}) {
    Imported result;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      result.errors += diag.str() + "\n";
      return success();
    });
    result.module =
        mlir::kiln::paddle_import::importPaddleProgram(context, program, options);
    if (result.module) {
      llvm::raw_string_ostream os(result.ir);
      result.module->print(os);
    }
    return result;
  }

  MLIRContext context;
  std::vector<float> storage;
};

pd::Op makeOp(std::string type, std::vector<pd::Slot> inputs,
              std::vector<pd::Slot> outputs,
              std::map<std::string, pd::AttrValue> attrs = {}) {
  pd::Op op;
  op.where = "op #? (" + type + ")";
  op.type = std::move(type);
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  op.attrs = std::move(attrs);
  return op;
}

void addVar(pd::Program &p, std::string name, std::vector<int64_t> dims) {
  pd::Var var;
  var.name = name;
  var.dims = std::move(dims);
  p.vars[name] = var;
}

/// x [-1, 4] @ w [4, 3] + b [3], relu: legacy slots.
pd::Program legacyLinear(std::vector<float> &storage) {
  pd::Program p;
  p.format = pd::Format::ProgramDesc;
  p.modelPath = "linear.pdmodel";
  p.paramsPath = "linear.pdiparams";
  addVar(p, "x", {-1, 4});
  p.feeds = {"x"};
  p.fetches = {"out"};
  storage.assign(15, 0.5f);
  pd::Param w{"w", pd::DType::F32, {4, 3}, storage.data(), 48};
  pd::Param b{"b", pd::DType::F32, {3}, storage.data() + 12, 12};
  p.params["w"] = w;
  p.params["b"] = b;
  p.ops.push_back(makeOp("matmul_v2", {{"X", {"x"}}, {"Y", {"w"}}},
                         {{"Out", {"mm"}}},
                         {{"trans_x", false}, {"trans_y", false}}));
  p.ops.push_back(makeOp("elementwise_add", {{"X", {"mm"}}, {"Y", {"b"}}},
                         {{"Out", {"sum"}}}, {{"axis", int64_t(-1)}}));
  p.ops.push_back(makeOp("relu", {{"X", {"sum"}}}, {{"Out", {"out"}}}));
  return p;
}

TEST_F(PaddleImporterTest, LegacyLinearWithInputShape) {
  pd::Program p = legacyLinear(storage);
  mlir::kiln::paddle_import::ImportOptions options;
  options.inputShapes["x"] = {2, 4};
  Imported r = import(p, options);
  ASSERT_TRUE(r.module) << r.errors;
  EXPECT_NE(r.ir.find("kiln.matmul"), std::string::npos) << r.ir;
  EXPECT_NE(r.ir.find("kiln.relu"), std::string::npos) << r.ir;
  EXPECT_NE(r.ir.find("tensor<2x4xf32> {kiln.name = \"x\"}"),
            std::string::npos)
      << r.ir;
  EXPECT_NE(r.ir.find("kiln.name = \"out\""), std::string::npos) << r.ir;
  EXPECT_NE(r.ir.find("tensor<2x3xf32>"), std::string::npos) << r.ir;
}

TEST_F(PaddleImporterTest, DynamicBatchStaysDynamic) {
  Imported r = import(legacyLinear(storage));
  ASSERT_TRUE(r.module) << r.errors;
  EXPECT_NE(r.ir.find("tensor<?x4xf32>"), std::string::npos) << r.ir;
}

TEST_F(PaddleImporterTest, InputShapeMustFitAndNameAnInput) {
  pd::Program p = legacyLinear(storage);
  mlir::kiln::paddle_import::ImportOptions options;
  options.inputShapes["x"] = {2, 5};
  Imported r = import(p, options);
  EXPECT_FALSE(r.module);
  EXPECT_NE(r.errors.find("does not fit the declared shape [-1, 4]"),
            std::string::npos)
      << r.errors;
  options.inputShapes.clear();
  options.inputShapes["y"] = {2, 4};
  r = import(p, options);
  EXPECT_FALSE(r.module);
  EXPECT_NE(r.errors.find("--input-shape names 'y', which is not an input"),
            std::string::npos)
      << r.errors;
}

TEST_F(PaddleImporterTest, PirListsAndPositionalOperands) {
  // concat([x, x], axis) through builtin.combine, then split_with_num into
  // a list taken apart by builtin.split, as PIR writes them.
  pd::Program p;
  p.format = pd::Format::PirJson;
  p.modelPath = "m.json";
  addVar(p, "x", {2, 3});
  p.feeds = {"x"};
  p.fetches = {"%9"};
  p.ops.push_back(makeOp("pd_op.full", {}, {{"0", {"%1"}}},
                         {{"shape", std::vector<int64_t>{1}},
                          {"value", 1.0},
                          {"dtype", std::string("int32")}}));
  p.ops.push_back(makeOp("builtin.combine", {{"0", {"x"}}, {"1", {"x"}}},
                         {{"0", {"%2"}}}));
  p.ops.push_back(
      makeOp("pd_op.concat", {{"0", {"%2"}}, {"1", {"%1"}}}, {{"0", {"%3"}}}));
  p.ops.push_back(makeOp("pd_op.split_with_num",
                         {{"0", {"%3"}}, {"1", {"%1"}}}, {{"0", {"%4"}}},
                         {{"num", int64_t(3)}}));
  p.ops.push_back(makeOp("builtin.split", {{"0", {"%4"}}},
                         {{"0", {"%5"}}, {"1", {"%6"}}, {"2", {"%7"}}}));
  p.ops.push_back(
      makeOp("pd_op.multiply", {{"0", {"%5"}}, {"1", {"%7"}}}, {{"0", {"%9"}}}));
  Imported r = import(p);
  ASSERT_TRUE(r.module) << r.errors;
  EXPECT_NE(r.ir.find("kiln.concat"), std::string::npos) << r.ir;
  EXPECT_NE(r.ir.find("kiln.mul"), std::string::npos) << r.ir;
  // PIR values have no names; outputs are named as Paddle Inference does.
  EXPECT_NE(r.ir.find("kiln.name = \"fetch_name_0\""), std::string::npos)
      << r.ir;
  EXPECT_NE(r.ir.find("-> (tensor<2x2xf32>"), std::string::npos) << r.ir;
}

TEST_F(PaddleImporterTest, OneReportOfEveryUnsupportedOpType) {
  pd::Program p = legacyLinear(storage);
  p.ops.push_back(makeOp("roi_align", {{"X", {"out"}}}, {{"Out", {"r1"}}}));
  p.ops.push_back(makeOp("roi_align", {{"X", {"r1"}}}, {{"Out", {"r2"}}}));
  p.ops.push_back(
      makeOp("multiclass_nms3", {{"BBoxes", {"r2"}}}, {{"Out", {"nms"}}}));
  Imported r = import(p);
  EXPECT_FALSE(r.module);
  EXPECT_NE(r.errors.find("'linear.pdmodel' uses 2 Paddle op type(s) Kiln "
                          "does not support:"),
            std::string::npos)
      << r.errors;
  EXPECT_NE(r.errors.find("roi_align, 2 op(s): 'op #? (roi_align)', 'op #? "
                          "(roi_align)'"),
            std::string::npos)
      << r.errors;
  EXPECT_NE(r.errors.find("multiclass_nms3, 1 op(s)"), std::string::npos)
      << r.errors;
  EXPECT_NE(r.errors.find("(NMS) is not supported by Kiln"),
            std::string::npos)
      << r.errors;
}

TEST_F(PaddleImporterTest, UnknownValueNamesTheOpAndSlot) {
  pd::Program p = legacyLinear(storage);
  p.ops[1].inputs[1].values = {"nowhere"};
  Imported r = import(p);
  EXPECT_FALSE(r.module);
  EXPECT_NE(r.errors.find("op #? (elementwise_add): input slot 'Y' names "
                          "'nowhere', which is not a graph input, a "
                          "parameter in 'linear.pdiparams'"),
            std::string::npos)
      << r.errors;
}

TEST_F(PaddleImporterTest, ParameterSizeMismatchNamesTheParameter) {
  pd::Program p = legacyLinear(storage);
  p.params["w"].bytes = 40;
  Imported r = import(p);
  EXPECT_FALSE(r.module);
  EXPECT_NE(r.errors.find("parameter 'w' in 'linear.pdiparams' holds 40 "
                          "bytes, which does not match its dims"),
            std::string::npos)
      << r.errors;
}

TEST_F(PaddleImporterTest, ElementwiseAxisBroadcasting) {
  // Legacy elementwise_add with axis = 1: Y [3] lines up with X's dim 1.
  pd::Program p;
  p.format = pd::Format::ProgramDesc;
  p.modelPath = "axis.pdmodel";
  addVar(p, "x", {2, 3, 4});
  addVar(p, "y", {3});
  p.feeds = {"x", "y"};
  p.fetches = {"out"};
  p.ops.push_back(makeOp("elementwise_add", {{"X", {"x"}}, {"Y", {"y"}}},
                         {{"Out", {"out"}}}, {{"axis", int64_t(1)}}));
  Imported r = import(p);
  ASSERT_TRUE(r.module) << r.errors;
  EXPECT_NE(r.ir.find("kiln.reshape %arg1 {shape = array<i64: 1, 3, 1>}"),
            std::string::npos)
      << r.ir;
}

TEST_F(PaddleImporterTest, ConverterErrorsNameTheOp) {
  pd::Program p;
  p.format = pd::Format::ProgramDesc;
  p.modelPath = "bad.pdmodel";
  addVar(p, "x", {2, 3});
  p.feeds = {"x"};
  p.fetches = {"out"};
  p.ops.push_back(makeOp("softmax", {{"X", {"x"}}}, {{"Out", {"out"}}},
                         {{"axis", int64_t(5)}}));
  Imported r = import(p);
  EXPECT_FALSE(r.module);
  EXPECT_NE(r.errors.find("op #? (softmax): axis 5 is out of range for rank 2"),
            std::string::npos)
      << r.errors;
}

} // namespace
