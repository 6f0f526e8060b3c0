//===- DebugPerturb.cpp - kilnc --debug-perturb-node ----------------------===//
//
// A known fault on purpose, for the tests of kiln-compare: after lowering,
// the float result of the last op that one ONNX node produced gets a
// constant added, through an elementwise linalg.generic at the node's
// location (so it fuses into the node's dispatch like any epilogue). The
// tool must then name that node, and the dispatch that computes it.
//
//===----------------------------------------------------------------------===//
#include "compiler/pipeline/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kiln {
namespace {

struct PerturbNodePass
    : public PassWrapper<PerturbNodePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PerturbNodePass)

  PerturbNodePass(std::string node, float delta)
      : node(std::move(node)), delta(delta) {}
  StringRef getArgument() const final { return "kiln-debug-perturb-node"; }
  StringRef getDescription() const final {
    return "Adds a constant to one ONNX node's result (kiln-compare tests)";
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Operation *target = nullptr;
    Value result;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func->hasAttr("kiln.dispatch") || func.isExternal())
        continue;
      for (Operation &op : func.getBody().front()) {
        if (isa<arith::ConstantOp, tensor::EmptyOp>(op))
          continue;
        SmallVector<std::string> names;
        collectLocationNames(op.getLoc(), names);
        if (!llvm::is_contained(names, node))
          continue;
        for (Value value : op.getResults()) {
          auto type = dyn_cast<RankedTensorType>(value.getType());
          if (type && type.hasStaticShape() &&
              isa<FloatType>(type.getElementType())) {
            target = &op;
            result = value;
          }
        }
      }
    }
    if (!target) {
      module.emitError() << "--debug-perturb-node: no op of node '" << node
                         << "' computes a static-shaped float tensor";
      return signalPassFailure();
    }
    OpBuilder b(target->getContext());
    b.setInsertionPointAfter(target);
    Location loc = target->getLoc();
    auto type = cast<RankedTensorType>(result.getType());
    Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                         type.getElementType());
    SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(type.getRank()));
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto perturbed = linalg::GenericOp::create(
        b, loc, TypeRange{type}, ValueRange{result}, ValueRange{init}, maps,
        iterators, [&](OpBuilder &nested, Location at, ValueRange args) {
          Value c = arith::ConstantOp::create(
              nested, at, nested.getFloatAttr(type.getElementType(), delta));
          Value sum = arith::AddFOp::create(nested, at, args[0], c);
          linalg::YieldOp::create(nested, at, sum);
        });
    result.replaceAllUsesExcept(perturbed.getResult(0), perturbed);
  }

  std::string node;
  float delta;
};

} // namespace

void addPerturbNodeHook(Pipeline &pipeline, std::string node, float delta) {
  pipeline.addPassesAfter(Stage::Lowering, [node, delta](OpPassManager &pm) {
    pm.addPass(std::make_unique<PerturbNodePass>(node, delta));
    return success();
  });
}

} // namespace mlir::kiln
