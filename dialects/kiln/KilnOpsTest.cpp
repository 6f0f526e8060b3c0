//===- KilnOpsTest.cpp - Building Kiln ops from C++ -----------------------===//
//
// The C++ side of the dialect as frontends use it: ops built with
// OpTy::create and createChecked infer their result types, createCheckedOrFold
// evaluates constant operands while the graph is being built, and bad
// operands are reported through the diagnostic handler instead of aborting.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

#include <string>

namespace mlir::kiln {
namespace {

class KilnOpsTest : public ::testing::Test {
protected:
  KilnOpsTest() : builder(&context) {
    context.loadDialect<KilnDialect, func::FuncDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }
  RankedTensorType i64(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getI64Type());
  }

  /// Starts a function with arguments of the given types; the builder then
  /// inserts into its body.
  func::FuncOp makeFunction(TypeRange argumentTypes) {
    auto function = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                         builder.getFunctionType(argumentTypes, {}));
    builder.setInsertionPointToStart(function.addEntryBlock());
    return function;
  }

  Value constantI64(ArrayRef<int64_t> values) {
    auto type = i64({static_cast<int64_t>(values.size())});
    return ConstantOp::create(builder, builder.getUnknownLoc(),
                              DenseElementsAttr::get(type, values));
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(KilnOpsTest, MatmulInfersBroadcastBatchDims) {
  func::FuncOp function = makeFunction({f32({8, 1, 16, 64}), f32({4, 64, 32})});
  auto matmul = MatmulOp::create(builder, builder.getUnknownLoc(),
                                 function.getArgument(0), function.getArgument(1));
  EXPECT_EQ(matmul.getType(), f32({8, 4, 16, 32}));
}

TEST_F(KilnOpsTest, ConvInfersResNetStemShape) {
  func::FuncOp function = makeFunction({f32({1, 3, 224, 224}), f32({64, 3, 7, 7})});
  auto conv = ConvOp::create(builder, builder.getUnknownLoc(),
                             function.getArgument(0), function.getArgument(1),
                             /*bias=*/Value(), builder.getDenseI64ArrayAttr({2, 2}),
                             /*dilations=*/builder.getDenseI64ArrayAttr({}),
                             builder.getDenseI64ArrayAttr({3, 3, 3, 3}),
                             builder.getI64IntegerAttr(1));
  EXPECT_EQ(conv.getType(), f32({1, 64, 112, 112}));
  EXPECT_EQ(conv.getDilationsOrDefault(), (SmallVector<int64_t>{1, 1}));
  func::ReturnOp::create(builder, builder.getUnknownLoc());
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(KilnOpsTest, ShapeArithmeticFoldsWhileBuilding) {
  makeFunction({});
  Location loc = builder.getUnknownLoc();
  Value dims = constantI64({2, 3});
  Value more = constantI64({4});
  FailureOr<Value> joined = createCheckedOrFold<ConcatOp>(
      builder, loc, {dims, more},
      {builder.getNamedAttr("axis", builder.getI64IntegerAttr(0))});
  ASSERT_TRUE(succeeded(joined));
  FailureOr<Value> product = createCheckedOrFold<ReduceOp>(
      builder, loc, {*joined},
      {builder.getNamedAttr("kind", ReduceKindAttr::get(&context, ReduceKind::prod)),
       builder.getNamedAttr("keepdims", builder.getBoolAttr(false))});
  ASSERT_TRUE(succeeded(product));
  auto constant = product->getDefiningOp<ConstantOp>();
  ASSERT_TRUE(constant);
  auto value = llvm::cast<DenseElementsAttr>(constant.getValue());
  EXPECT_EQ(value.getType(), i64({}));
  EXPECT_EQ(value.getSplatValue<APInt>().getSExtValue(), 24);
}

TEST_F(KilnOpsTest, CreateCheckedReportsInsteadOfAborting) {
  func::FuncOp function = makeFunction({f32({2, 3}), f32({4})});
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  FailureOr<AddOp> add =
      createChecked<AddOp>(builder, NameLoc::get(builder.getStringAttr("add_0")),
                           {function.getArgument(0), function.getArgument(1)});
  EXPECT_TRUE(failed(add));
  EXPECT_NE(message.find("'kiln.add' op"), std::string::npos) << message;
  EXPECT_NE(message.find("not broadcast-compatible"), std::string::npos) << message;
}

TEST_F(KilnOpsTest, CreateCheckedReportsMissingAttributes) {
  func::FuncOp function = makeFunction({f32({2, 3})});
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  EXPECT_TRUE(failed(createChecked<TransposeOp>(builder, builder.getUnknownLoc(),
                                                {function.getArgument(0)})));
  EXPECT_NE(message.find("requires attribute 'perm'"), std::string::npos) << message;
}

} // namespace
} // namespace mlir::kiln
