//===- KilnBase.td - Kiln dialect, types and enums ---------*- tablegen -*-===//
//
// The Kiln graph dialect: the dialect definition, the tensor type constraints
// shared by every op, the enum attributes, and the op base classes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_BASE_TD
#define KILN_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributes.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::mlir::kiln";
  let summary = "Kiln's graph-level dialect for deep-learning models";
  let description = [{
    The Kiln dialect holds a model as a graph of value-semantic operations on
    ranked tensors, close to the operator sets of ONNX and PaddlePaddle but
    normalized: attributes that frontends spread over inputs and attributes
    (axes, pads, shapes) are attributes here, negative indices are allowed
    only where documented, and every op infers its result type from its
    operands and attributes. Graph optimizations (canonicalization, constant
    folding, fusion, precision) run on this dialect before it is lowered to
    `linalg`.

    Dimensions may be dynamic (`?`); the element types are f32, f16, bf16,
    i8, i32, i64 and i1.
  }];
  let hasConstantMaterializer = 1;
  // Inherent attributes live in the attribute dictionary, not in properties:
  // result types are inferred while parsing, when only the dictionary is
  // populated.
  let usePropertiesForAttributes = 0;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Kiln_FloatElement : AnyTypeOf<[F32, F16, BF16, F64], "floating-point (f32, f16, bf16, f64)">;
def Kiln_IntElement : AnyTypeOf<[I8, I32, I64], "integer (i8, i32, i64)">;
def Kiln_IndexElement : AnyTypeOf<[I32, I64], "index (i32, i64)">;
def Kiln_NumericElement : AnyTypeOf<[F32, F16, BF16, F64, I8, I32, I64],
                                    "numeric (f32, f16, bf16, f64, i8, i32, i64)">;
def Kiln_Element : AnyTypeOf<[F32, F16, BF16, F64, I8, I32, I64, I1],
                             "Kiln element type (f32, f16, bf16, f64, i8, i32, i64, i1)">;

def Kiln_Tensor : RankedTensorOf<[Kiln_Element]>;
def Kiln_FloatTensor : RankedTensorOf<[Kiln_FloatElement]>;
def Kiln_NumericTensor : RankedTensorOf<[Kiln_NumericElement]>;
def Kiln_IndexTensor : RankedTensorOf<[Kiln_IndexElement]>;
def Kiln_BoolTensor : RankedTensorOf<[I1]>;
def Kiln_IntOrBoolTensor : RankedTensorOf<[I8, I32, I64, I1]>;
// Convolution operands: floats, or i8 for the integer convolution, whose
// result (and bias) is i32.
def Kiln_ConvOperandTensor : RankedTensorOf<[F32, F16, BF16, F64, I8]>;
def Kiln_ConvResultTensor : RankedTensorOf<[F32, F16, BF16, F64, I32]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Kiln_CompareDirection : I32EnumAttr<"CompareDirection",
    "comparison of two tensors, element by element", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>,
      I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>,
      I32EnumAttrCase<"prod", 4>, I32EnumAttrCase<"l1", 5>,
      I32EnumAttrCase<"l2", 6>, I32EnumAttrCase<"log_sum", 7>,
      I32EnumAttrCase<"log_sum_exp", 8>, I32EnumAttrCase<"sum_square", 9>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_PadMode : I32EnumAttr<"PadMode", "how padding values are chosen", [
      I32EnumAttrCase<"constant", 0>, I32EnumAttrCase<"reflect", 1>,
      I32EnumAttrCase<"edge", 2>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "formula used by gelu", [
      I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::mlir::kiln";
}

// Numbered as kiln.fbs GemmEpilogue. Gelu is the tanh approximation
// (cuBLASLt's), never the erf form.
def Kiln_GemmEpilogue : I32EnumAttr<"GemmEpilogue",
    "what a library GEMM applies to its result", [
      I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"bias", 1>,
      I32EnumAttrCase<"relu", 2>, I32EnumAttrCase<"bias_relu", 3>,
      I32EnumAttrCase<"gelu", 4>, I32EnumAttrCase<"bias_gelu", 5>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_RnnDirection : I32EnumAttr<"RnnDirection",
    "the direction(s) a recurrent op walks the sequence in", [
      I32EnumAttrCase<"forward", 0>, I32EnumAttrCase<"reverse", 1>,
      I32EnumAttrCase<"bidirectional", 2>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_ArgReduceKind : I32EnumAttr<"ArgReduceKind",
    "which extreme arg_reduce looks for", [
      I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"min", 1>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_ScatterReduction : I32EnumAttr<"ScatterReduction",
    "how a scatter combines an update with the element it lands on", [
      I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"add", 1>,
      I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"max", 3>,
      I32EnumAttrCase<"min", 4>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_ResizeMode : I32EnumAttr<"ResizeMode", "resize interpolation", [
      I32EnumAttrCase<"nearest", 0>, I32EnumAttrCase<"linear", 1>,
      I32EnumAttrCase<"cubic", 2>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_ResizeCoordinateMode : I32EnumAttr<"ResizeCoordinateMode",
    "how resize maps an output coordinate to an input coordinate", [
      I32EnumAttrCase<"half_pixel", 0>, I32EnumAttrCase<"half_pixel_symmetric", 1>,
      I32EnumAttrCase<"pytorch_half_pixel", 2>, I32EnumAttrCase<"align_corners", 3>,
      I32EnumAttrCase<"asymmetric", 4>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_ResizeNearestMode : I32EnumAttr<"ResizeNearestMode",
    "how nearest-mode resize rounds an input coordinate", [
      I32EnumAttrCase<"round_prefer_floor", 0>,
      I32EnumAttrCase<"round_prefer_ceil", 1>,
      I32EnumAttrCase<"floor", 2>, I32EnumAttrCase<"ceil", 3>]> {
  let cppNamespace = "::mlir::kiln";
}

//===----------------------------------------------------------------------===//
// Op base classes
//===----------------------------------------------------------------------===//

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

#endif // KILN_BASE_TD
