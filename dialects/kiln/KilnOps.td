//===- KilnOps.td - Kiln dialect operations ----------------*- tablegen -*-===//
//
// Every Kiln op: its operands, attributes, result, assembly format and the
// hooks (verifier, type inference, folder, canonicalizer) it implements. The
// C++ side of each family lives in a file named after the family:
// ElementwiseOps.cpp, ContractionOps.cpp, NormalizationOps.cpp (reduce as
// well), DataMovementOps.cpp, ConstantOps.cpp, RecurrentOps.cpp,
// IndexingOps.cpp, ResamplingOps.cpp, QuantizationOps.cpp. The
// canonicalization patterns that
// fold batch_norm, mul and add into a preceding conv's constant weights are
// in ConvFolding.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_OPS_TD
#define KILN_OPS_TD

include "dialects/kiln/KilnBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Constants and custom calls
//===----------------------------------------------------------------------===//

def Kiln_ConstantOp : Kiln_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor]> {
  let summary = "a constant tensor";
  let description = [{
    Produces the tensor held by `value`. Model weights and folded values are
    constants; large weights may use `dense_resource` so that the IR stays
    small.

    Example:

    ```mlir
    %w = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::ElementsAttr":$value), [{
      build($_builder, $_state, value.getType(), value);
    }]>
  ];
}

def Kiln_CustomCallOp : Kiln_Op<"custom_call",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "a call to an operator that Kiln does not know";
  let description = [{
    The hook for custom operators: `call_target` names an operator registered
    with Kiln (a shape function and kernels), `config` carries its attributes.
    The result types are given explicitly, since Kiln cannot infer them.
    Unless `has_side_effects` is set, the call is treated as a pure function
    of its operands (it may be removed when its results are unused).

    Example:

    ```mlir
    %y = kiln.custom_call "my_ops.swish"(%x) {config = {beta = 1.5 : f32}}
         : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins StrAttr:$call_target,
                       Variadic<Kiln_Tensor>:$operands,
                       OptionalAttr<DictionaryAttr>:$config,
                       UnitAttr:$has_side_effects);
  let results = (outs Variadic<Kiln_Tensor>:$results);
  let assemblyFormat = [{
    $call_target `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

def Kiln_GemmCallOp : Kiln_Op<"gemm_call", [Pure]> {
  let summary = "a GEMM left on the host for a vendor library (cuBLASLt)";
  let description = [{
    Made by a GPU backend (`kiln-cuda-library-calls`) from a contraction
    dispatch, in the host function: the host plan turns it into a
    `LibraryCall` step (kiln.fbs `GemmCall`), so its fields are those of
    `GemmCall`. Row-major throughout:
    `d[i] = epilogue(alpha * op(a[i]) x op(b[i]) + beta * c[i])` for
    `i < batch`, where `op(x)` is `x` or `x^T` (`transpose_a`,
    `transpose_b`), `op(a)` is `m x k`, `op(b)` is `k x n`, `c` and `d` are
    `m x n`. `ld*` are row strides in elements of the stored matrices
    (`a` is stored `k x m` when transposed); `batch_stride_*` are elements
    between batches, 0 to use one matrix for every batch. Operands are read
    from element 0 of their tensors: `a`, `b`, then `c` when `beta` is not
    0, then `bias` (one value per column of `d`, `n` elements) when the
    epilogue adds one. `gelu` is the tanh approximation. `d` is a fresh
    tensor of `batch x m x n` elements, written whole.

    Example:

    ```mlir
    %d = kiln.gemm_call %a, %b, %bias {batch = 1, m = 4, n = 8, k = 16,
           transpose_a = false, transpose_b = false, lda = 16, ldb = 8,
           ldc = 0, ldd = 8, batch_stride_a = 0, batch_stride_b = 0,
           batch_stride_c = 0, batch_stride_d = 0, alpha = 1.0 : f32,
           beta = 0.0 : f32, epilogue = 3 : i32}
         : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>)
           -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_FloatTensor>:$operands,
                       I64Attr:$batch, I64Attr:$m, I64Attr:$n, I64Attr:$k,
                       BoolAttr:$transpose_a, BoolAttr:$transpose_b,
                       I64Attr:$lda, I64Attr:$ldb, I64Attr:$ldc, I64Attr:$ldd,
                       I64Attr:$batch_stride_a, I64Attr:$batch_stride_b,
                       I64Attr:$batch_stride_c, I64Attr:$batch_stride_d,
                       F32Attr:$alpha, F32Attr:$beta,
                       Kiln_GemmEpilogue:$epilogue);
  let results = (outs Kiln_FloatTensor:$d);
  let assemblyFormat = [{
    $operands attr-dict `:` functional-type($operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    // The operands by role: a, b, then c when beta != 0, then bias when
    // the epilogue adds one (null when absent).
    ::mlir::Value getA() { return getOperands()[0]; }
    ::mlir::Value getB() { return getOperands()[1]; }
    bool hasC() { return !getBeta().isZero(); }
    bool hasBias() {
      return getEpilogue() == GemmEpilogue::bias ||
             getEpilogue() == GemmEpilogue::bias_relu ||
             getEpilogue() == GemmEpilogue::bias_gelu;
    }
    ::mlir::Value getC() { return hasC() ? getOperands()[2] : nullptr; }
    ::mlir::Value getBias() {
      return hasBias() ? getOperands()[hasC() ? 3 : 2] : nullptr;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

class Kiln_UnaryOp<string mnemonic, Type tensorType, string formula,
                   list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits,
        [Pure, Elementwise, SameOperandsAndResultType])> {
  let summary = "elementwise " # mnemonic;
  let description = [{
    Computes `}] # formula # [{` for every element of `input`. The result
    has the type of the input. Constant inputs are folded.

    Example:

    ```mlir
    %y = kiln.}] # mnemonic # [{ %x : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Kiln_AbsOp : Kiln_UnaryOp<"abs", Kiln_NumericTensor, "|x|">;
def Kiln_NegOp : Kiln_UnaryOp<"neg", Kiln_NumericTensor, "-x">;
def Kiln_SignOp : Kiln_UnaryOp<"sign", Kiln_NumericTensor, "sign(x)">;
def Kiln_ReluOp : Kiln_UnaryOp<"relu", Kiln_NumericTensor, "max(x, 0)">;
def Kiln_SigmoidOp : Kiln_UnaryOp<"sigmoid", Kiln_FloatTensor, "1 / (1 + exp(-x))">;
def Kiln_TanhOp : Kiln_UnaryOp<"tanh", Kiln_FloatTensor, "tanh(x)">;
def Kiln_ExpOp : Kiln_UnaryOp<"exp", Kiln_FloatTensor, "exp(x)">;
def Kiln_LogOp : Kiln_UnaryOp<"log", Kiln_FloatTensor, "log(x)">;
def Kiln_SqrtOp : Kiln_UnaryOp<"sqrt", Kiln_FloatTensor, "sqrt(x)">;
def Kiln_RsqrtOp : Kiln_UnaryOp<"rsqrt", Kiln_FloatTensor, "1 / sqrt(x)">;
def Kiln_ReciprocalOp : Kiln_UnaryOp<"reciprocal", Kiln_FloatTensor, "1 / x">;
def Kiln_ErfOp : Kiln_UnaryOp<"erf", Kiln_FloatTensor, "erf(x)">;
def Kiln_FloorOp : Kiln_UnaryOp<"floor", Kiln_FloatTensor, "floor(x)">;
def Kiln_CeilOp : Kiln_UnaryOp<"ceil", Kiln_FloatTensor, "ceil(x)">;
def Kiln_RoundOp : Kiln_UnaryOp<"round", Kiln_FloatTensor,
                                "round half to even(x)">;
def Kiln_SinOp : Kiln_UnaryOp<"sin", Kiln_FloatTensor, "sin(x)">;
def Kiln_CosOp : Kiln_UnaryOp<"cos", Kiln_FloatTensor, "cos(x)">;
def Kiln_NotOp : Kiln_UnaryOp<"not", Kiln_BoolTensor, "!x">;

def Kiln_GeluOp : Kiln_Op<"gelu", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "elementwise GELU activation";
  let description = [{
    Computes `x * Phi(x)` with `Phi` the standard normal CDF. With
    `approximate = tanh` it uses
    `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))` instead.

    Example:

    ```mlir
    %y = kiln.gelu %x {approximate = 1 : i32} : tensor<2x768xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
      DefaultValuedAttr<Kiln_GeluApproximation,
                        "::mlir::kiln::GeluApproximation::none">:$approximate);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Kiln_ClipOp : Kiln_Op<"clip", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "elementwise clamp to [min, max]";
  let description = [{
    Clamps every element to `[min, max]`; a missing bound is unbounded. The
    bounds are given as f64 and converted to the element type.

    Example:

    ```mlir
    %y = kiln.clip %x {min = 0.0, max = 6.0} : tensor<1x32xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input,
                       OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_CastOp : Kiln_Op<"cast",
    [Pure, Elementwise, SameOperandsAndResultShape, InferTypeOpAdaptor]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts every element to the element type `to`, with the semantics of
    ONNX Cast: float to integer truncates toward zero, numbers to i1 test for
    non-zero, i1 to numbers gives 0 or 1, float narrowing rounds to nearest
    even.

    Example:

    ```mlir
    %y = kiln.cast %x to i64 : tensor<4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, TypeAttrOf<Kiln_Element>:$to);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "$input `to` $to attr-dict `:` type($input)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops (NumPy broadcasting)
//===----------------------------------------------------------------------===//

class Kiln_BinaryOp<string mnemonic, Type tensorType, string formula,
                    list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits,
        [Pure, InferTypeOpAdaptor])> {
  let summary = "elementwise " # mnemonic # " with NumPy broadcasting";
  let description = [{
    Computes `}] # formula # [{` element by element. The operands must have
    the same element type; their shapes broadcast as in NumPy (right-aligned,
    size-1 dimensions stretch). Constant operands are folded.

    Example:

    ```mlir
    %z = kiln.}] # mnemonic # [{ %x, %y : tensor<2x3xf32>, tensor<3xf32>
    ```
  }];
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let hasFolder = 1;
}

// add and mul by a per-channel constant after a conv fold into the conv's
// bias and filter (ConvFolding.cpp).
def Kiln_AddOp : Kiln_BinaryOp<"add", Kiln_NumericTensor, "lhs + rhs", [Commutative]> {
  let hasCanonicalizer = 1;
}
def Kiln_SubOp : Kiln_BinaryOp<"sub", Kiln_NumericTensor, "lhs - rhs">;
def Kiln_MulOp : Kiln_BinaryOp<"mul", Kiln_NumericTensor, "lhs * rhs", [Commutative]> {
  let hasCanonicalizer = 1;
}
def Kiln_DivOp : Kiln_BinaryOp<"div", Kiln_NumericTensor,
    "lhs / rhs (integer division truncates toward zero)">;
def Kiln_RemOp : Kiln_BinaryOp<"rem", Kiln_NumericTensor,
    "the remainder of lhs / rhs with the sign of lhs (C fmod)">;
def Kiln_PowOp : Kiln_BinaryOp<"pow", Kiln_NumericTensor, "lhs ^ rhs">;
def Kiln_MaxOp : Kiln_BinaryOp<"max", Kiln_NumericTensor, "max(lhs, rhs)", [Commutative]>;
def Kiln_MinOp : Kiln_BinaryOp<"min", Kiln_NumericTensor, "min(lhs, rhs)", [Commutative]>;
def Kiln_AndOp : Kiln_BinaryOp<"and", Kiln_BoolTensor, "lhs && rhs", [Commutative]>;
def Kiln_OrOp : Kiln_BinaryOp<"or", Kiln_BoolTensor, "lhs || rhs", [Commutative]>;
def Kiln_XorOp : Kiln_BinaryOp<"xor", Kiln_BoolTensor, "lhs != rhs", [Commutative]>;

def Kiln_CompareOp : Kiln_Op<"compare",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise comparison with NumPy broadcasting";
  let description = [{
    Compares `lhs` and `rhs` element by element with `direction` (eq, ne, lt,
    le, gt, ge) and returns an i1 tensor of the broadcast shape. The operands
    must have the same element type.

    Example:

    ```mlir
    %m = kiln.compare lt, %x, %y : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Kiln_CompareDirection:$direction,
                       Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs Kiln_BoolTensor:$output);
  let assemblyFormat = [{
    $direction `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasFolder = 1;
}

def Kiln_SelectOp : Kiln_Op<"select",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise choice between two tensors (ONNX Where)";
  let description = [{
    Returns `on_true` where `condition` is true and `on_false` elsewhere. All
    three operands broadcast together; `on_true` and `on_false` have the same
    element type.

    Example:

    ```mlir
    %z = kiln.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Kiln_BoolTensor:$condition, Kiln_Tensor:$on_true,
                       Kiln_Tensor:$on_false);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:`
    type($condition) `,` type($on_true) `,` type($on_false)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contractions and windows
//===----------------------------------------------------------------------===//

def Kiln_MatmulOp : Kiln_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "matrix product with NumPy (numpy.matmul) semantics";
  let description = [{
    Multiplies the last two dimensions of `lhs` and `rhs`; leading (batch)
    dimensions broadcast. A rank-1 `lhs` is treated as a row vector and a
    rank-1 `rhs` as a column vector; the added dimension is removed from the
    result. Both operands have the same element type, which is the result's,
    except for the integer contraction: i8 x i8 gives exact products summed
    in i32, an i32 result (zero points are not part of the op; see
    `kiln.quantize`).

    Example:

    ```mlir
    %c = kiln.matmul %a, %b : tensor<8x128x64xf32>, tensor<64x256xf32>
    // %c : tensor<8x128x256xf32>
    %d = kiln.matmul %qa, %qb : tensor<128x64xi8>, tensor<64x256xi8>
    // %d : tensor<128x256xi32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$lhs, Kiln_NumericTensor:$rhs);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

def Kiln_AttentionOp : Kiln_Op<"attention", [Pure]> {
  let summary = "scaled dot-product attention, softmax(Q K^T * scale + mask) V";
  let description = [{
    One attention head per batch index: `scores = (query @ key_t) * scale
    (+ mask)`, `probs = softmax(scores)` along the last dim, `output = probs
    @ value`. `query` is `[batch..., Sq, D]`, `key_t` the keys already
    transposed, `[batch..., D, Sk]` (the right operand of the exporters'
    `MatMul(Q, K^T)`), `value` `[batch..., Sk, Dv]`; the batch dims are
    equal on all three. The optional additive `mask` has the rank of the
    scores and each of its dims is 1 (broadcast) or the scores' dim.
    All are f32.

    `kiln-fuse-attention` forms it from the matmul / scale / mask / softmax
    / matmul chain of exported models so that a backend can run it as one
    tiled kernel with an online softmax; `kiln-to-linalg` lowers it back
    into that chain unless asked to keep it.

    Example:

    ```mlir
    %o = kiln.attention %q, %kt, %v mask %m {scale = 0.125 : f32}
        : tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32>,
          tensor<1x12x128x64xf32>, tensor<1x1x1x128xf32>
        -> tensor<1x12x128x64xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$query,
                       RankedTensorOf<[F32]>:$key_t,
                       RankedTensorOf<[F32]>:$value,
                       Optional<RankedTensorOf<[F32]>>:$mask, F32Attr:$scale);
  let results = (outs RankedTensorOf<[F32]>:$output);
  let assemblyFormat = [{
    $query `,` $key_t `,` $value (`mask` $mask^)? attr-dict `:` type($query)
    `,` type($key_t) `,` type($value) (`,` type($mask)^)? `->` type($output)
  }];
  let hasVerifier = 1;
}

def Kiln_ConvOp : Kiln_Op<"conv", [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D convolution (ONNX Conv), optionally with bias";
  let description = [{
    Cross-correlation of `input` `[N, C, D1..Dn]` with `filter`
    `[M, C/groups, K1..Kn]`, giving `[N, M, O1..On]`, plus `bias` `[M]` when
    present. `strides` and `dilations` have n entries (default 1), `pads`
    has 2n entries `[begin_1..begin_n, end_1..end_n]` (default 0); `groups`
    splits channels (groups == C is a depthwise convolution).

    `input` and `filter` have the same element type, which is the result's
    and the bias's, except for the integer convolution: i8 input and filter
    give an i32 result (exact products, i32 sums, padding contributes 0)
    with an optional i32 bias. An input zero point is not part of the op:
    an input with one is padded explicitly with it first.

    Example:

    ```mlir
    %y = kiln.conv %x, %w, %b {strides = array<i64: 2, 2>,
                               pads = array<i64: 3, 3, 3, 3>}
         : tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>
    // %y : tensor<1x64x112x112xf32>
    ```
  }];
  let arguments = (ins Kiln_ConvOperandTensor:$input,
      Kiln_ConvOperandTensor:$filter,
      Optional<Kiln_ConvResultTensor>:$bias,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$strides,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$dilations,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$pads,
      DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Kiln_ConvResultTensor:$output);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:`
    type($input) `,` type($filter) (`,` type($bias)^)?
  }];
  let extraClassDeclaration = [{
    /// Number of spatial dimensions (input rank - 2).
    int64_t getNumSpatialDims();
    /// `strides`, `dilations` and `pads` with their defaults filled in.
    ::llvm::SmallVector<int64_t> getStridesOrDefault();
    ::llvm::SmallVector<int64_t> getDilationsOrDefault();
    ::llvm::SmallVector<int64_t> getPadsOrDefault();
  }];
}

def Kiln_ConvNhwcOp : Kiln_Op<"conv_nhwc", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-D convolution on channels-last (NHWC) activations";
  let description = [{
    The convolution of `kiln.conv` with one group, laid out channels last:
    `input` `[N, H, W, C]`, `filter` `[KH, KW, C, M]` (HWIO), result
    `[N, OH, OW, M]`, plus `bias` `[M]` when present. `strides` and
    `dilations` have two entries (default 1), `pads` four, `[top, left,
    bottom, right]` (default 0), as in `kiln.conv`.

    Importers never produce it: `kiln-channels-last` rewrites `kiln.conv`
    ops into it where the CPU back end runs the channels-last form faster
    (output channels as the vector lanes, so few output pixels waste no
    lanes), with `kiln.transpose` ops at the edges of each chain of such
    convolutions. Float element types only (f32, f16, bf16; 16-bit operands
    accumulate in f32).

    Example:

    ```mlir
    %y = kiln.conv_nhwc %x, %w, %b {pads = array<i64: 1, 1, 1, 1>}
         : tensor<1x7x7x512xf32>, tensor<3x3x512x512xf32>, tensor<512xf32>
    // %y : tensor<1x7x7x512xf32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[F32, F16, BF16]>:$input,
      RankedTensorOf<[F32, F16, BF16]>:$filter,
      Optional<RankedTensorOf<[F32, F16, BF16]>>:$bias,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$strides,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$dilations,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$pads);
  let results = (outs RankedTensorOf<[F32, F16, BF16]>:$output);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:`
    type($input) `,` type($filter) (`,` type($bias)^)?
  }];
  let extraClassDeclaration = [{
    /// `strides`, `dilations` and `pads` with their defaults filled in.
    ::llvm::SmallVector<int64_t> getStridesOrDefault();
    ::llvm::SmallVector<int64_t> getDilationsOrDefault();
    ::llvm::SmallVector<int64_t> getPadsOrDefault();
  }];
}

class Kiln_PoolOp<string mnemonic, string reduction, dag extraArgs>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D " # reduction # " pooling (ONNX " # reduction # "Pool)";
  let description = [{
    Slides a window of `kernel_shape` over the spatial dimensions of `input`
    `[N, C, D1..Dn]` and takes the }] # reduction # [{ of each window.
    `strides` and `dilations` have n entries (default 1), `pads` 2n entries
    `[begin_1..begin_n, end_1..end_n]` (default 0). With `ceil_mode` the
    output size rounds up, as in ONNX.

    Example:

    ```mlir
    %y = kiln.}] # mnemonic # [{ %x {kernel_shape = array<i64: 3, 3>,
                       strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
         : tensor<1x64x112x112xf32>
    // %y : tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = !con((ins Kiln_FloatTensor:$input,
      DenseI64ArrayAttr:$kernel_shape,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$strides,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$dilations,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$pads,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode), extraArgs);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDeclaration = [{
    ::llvm::SmallVector<int64_t> getStridesOrDefault();
    ::llvm::SmallVector<int64_t> getDilationsOrDefault();
    ::llvm::SmallVector<int64_t> getPadsOrDefault();
  }];
}

def Kiln_MaxPoolOp : Kiln_PoolOp<"max_pool", "Max", (ins)>;
def Kiln_AvgPoolOp : Kiln_PoolOp<"avg_pool", "Average",
    (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad)>;

//===----------------------------------------------------------------------===//
// Quantization (int8; see docs/design.md "INT8")
//===----------------------------------------------------------------------===//

def Kiln_QuantizeOp : Kiln_Op<"quantize", [Pure, InferTypeOpAdaptor]> {
  let summary = "f32 to i8 by scale and zero point (ONNX QuantizeLinear)";
  let description = [{
    `y = saturate(round_half_to_even(x / scale) + zero_point)` into
    [-128, 127]. `scale` (f32) and `zero_point` (i8) have the same shape:
    one element (rank 0 or 1, per tensor) or 1-D with the size of dimension
    `axis` of `x` (per axis; negative counts from the back). ONNX uint8
    values are represented biased (u8 - 128), which this formula handles
    unchanged when the zero point is biased too. Folds when every operand
    is a constant (weights are quantized at compile time).

    Example:

    ```mlir
    %q = kiln.quantize %x, %s, %zp {axis = 0 : i64}
         : tensor<64x3x3x3xf32>, tensor<64xf32>, tensor<64xi8>
    // %q : tensor<64x3x3x3xi8>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$scale,
                       Kiln_NumericTensor:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs RankedTensorOf<[I8]>:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $zero_point attr-dict `:`
    type($input) `,` type($scale) `,` type($zero_point)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The normalized axis when the scale is per axis, else std::nullopt.
    std::optional<int64_t> getQuantizedAxis();
  }];
}

def Kiln_DequantizeOp : Kiln_Op<"dequantize", [Pure, InferTypeOpAdaptor]> {
  let summary = "i8 or i32 to f32 by scale and zero point (ONNX DequantizeLinear)";
  let description = [{
    `y = (x - zero_point) * scale`, the difference computed in i32. `x` is i8
    (quantized activations and weights) or i32 (biases, integer
    accumulators); `zero_point` has `x`'s element type, `scale` is f32, and
    both have one element (per tensor) or are 1-D with the size of
    dimension `axis` of `x` (per axis). A dequantize of constants is not
    folded by the op itself: it is how a weight stays int8 until
    `kiln-fold-qdq` has formed the integer contractions; that pass then
    evaluates the ones left (`evaluateConstant`).

    Example:

    ```mlir
    %x = kiln.dequantize %q, %s, %zp : tensor<1x16xi8>, tensor<f32>, tensor<i8>
    // %x : tensor<1x16xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, Kiln_FloatTensor:$scale,
                       Kiln_NumericTensor:$zero_point,
                       DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs RankedTensorOf<[F32]>:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $zero_point attr-dict `:`
    type($input) `,` type($scale) `,` type($zero_point)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The normalized axis when the scale is per axis, else std::nullopt.
    std::optional<int64_t> getQuantizedAxis();
    /// The result as a constant when every operand is one (null otherwise).
    ::mlir::DenseElementsAttr evaluateConstant();
  }];
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

def Kiln_ReduceOp : Kiln_Op<"reduce", [Pure, InferTypeOpAdaptor]> {
  let summary = "reduction over axes";
  let description = [{
    Combines the elements along `axes` with `kind`: sum, mean, max, min,
    prod, l1 (sum of |x|), l2 (sqrt of sum of squares), log_sum,
    log_sum_exp, sum_square. An empty `axes` reduces every dimension;
    negative axes count from the back. With `keepdims` the reduced
    dimensions stay as size 1.

    Example:

    ```mlir
    %m = kiln.reduce mean %x {axes = array<i64: -1>, keepdims = true}
         : tensor<2x8x768xf32>
    // %m : tensor<2x8x1xf32>
    ```
  }];
  let arguments = (ins Kiln_ReduceKind:$kind, Kiln_NumericTensor:$input,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$axes,
      DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_SoftmaxOp : Kiln_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "softmax along one axis";
  let description = [{
    Computes `exp(x - max) / sum(exp(x - max))` along `axis` (negative
    counts from the back), as ONNX Softmax from opset 13.

    Example:

    ```mlir
    %p = kiln.softmax %x {axis = -1 : i64} : tensor<2x12x64x64xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Kiln_LogSoftmaxOp : Kiln_Op<"log_softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "log of softmax along one axis";
  let description = [{
    Computes `x - max - log(sum(exp(x - max)))` along `axis`.

    Example:

    ```mlir
    %p = kiln.log_softmax %x {axis = 1 : i64} : tensor<4x10xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Kiln_LayerNormOp : Kiln_Op<"layer_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "layer normalization over the trailing dimensions";
  let description = [{
    Normalizes `input` over the dimensions from `axis` to the last one:
    `(x - mean) / sqrt(var + epsilon) * scale + bias`. `scale` (and `bias`
    when present) broadcast to the normalized shape `input.shape[axis:]`.

    Example:

    ```mlir
    %y = kiln.layer_norm %x, %gamma, %beta {axis = -1 : i64, epsilon = 1.0e-12 : f32}
         : tensor<2x128x768xf32>, tensor<768xf32>, tensor<768xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$scale,
      Optional<Kiln_FloatTensor>:$bias,
      DefaultValuedAttr<I64Attr, "-1">:$axis,
      DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:`
    type($input) `,` type($scale) (`,` type($bias)^)?
  }];
}

def Kiln_BatchNormOp : Kiln_Op<"batch_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "batch normalization, inference form";
  let description = [{
    Normalizes channel dimension 1 of `input` `[N, C, ...]` with running
    statistics: `(x - mean) / sqrt(variance + epsilon) * scale + bias`, where
    `scale`, `bias`, `mean` and `variance` have shape `[C]`. After a conv
    with constant weights and constant parameters, it folds into the conv's
    filter and bias (canonicalization).

    Example:

    ```mlir
    %y = kiln.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-5 : f32}
         : tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$scale,
      Kiln_FloatTensor:$bias, Kiln_FloatTensor:$mean,
      Kiln_FloatTensor:$variance,
      DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    type($input) `,` type($scale) `,` type($bias) `,` type($mean) `,`
    type($variance)
  }];
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Kiln_ReshapeOp : Kiln_Op<"reshape", [Pure, InferTypeOpAdaptor]> {
  let summary = "same elements, new shape";
  let description = [{
    Reinterprets `input` (row-major) with the dimensions in `shape`. An
    entry of -1 is a dynamic dimension; the frontend resolves ONNX's 0 and
    -1 conventions before building this op. When both shapes are static,
    the element counts must match. A reshape of a reshape folds into one.

    Example:

    ```mlir
    %y = kiln.reshape %x {shape = array<i64: 2, 12, 64>} : tensor<2x768xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Kiln_TransposeOp : Kiln_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "permutes dimensions";
  let description = [{
    Result dimension `i` is input dimension `perm[i]`. Transposes of
    transposes fold into one; an identity permutation folds away.

    Example:

    ```mlir
    %y = kiln.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x128x12x64xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Kiln_ConcatOp : Kiln_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "joins tensors along one axis";
  let description = [{
    Concatenates `inputs` along `axis` (negative counts from the back). All
    inputs have the same rank and element type and agree on every other
    dimension.

    Example:

    ```mlir
    %y = kiln.concat %a, %b {axis = 1 : i64} : tensor<1x3xf32>, tensor<1x5xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasFolder = 1;
}

def Kiln_SliceOp : Kiln_Op<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "strided slice with one (start, end, step) per dimension";
  let description = [{
    Takes elements `start, start + step, ...` up to but excluding `end`, in
    every dimension. Bounds are normalized: for a positive step
    `0 <= start <= end <= dim`; for a negative step
    `-1 <= end <= start < dim`. The frontend turns ONNX's optional axes,
    negative and out-of-range indices into this form.

    Example:

    ```mlir
    %y = kiln.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 4, 7>,
                        steps = array<i64: 1, 2>} : tensor<4x8xf32>
    // %y : tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Kiln_GatherOp : Kiln_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "picks slices along one axis by index (ONNX Gather)";
  let description = [{
    For `a = axis`, the result has shape
    `data.shape[:a] + indices.shape + data.shape[a+1:]` and element
    `(p, j, q)` (prefix `p`, index position `j`, suffix `q`) is
    `data(p, indices(j), q)`. Negative indices count from the back of the
    axis.

    Example:

    ```mlir
    %e = kiln.gather %table, %ids {axis = 0 : i64} : tensor<30522x768xf32>, tensor<1x128xi64>
    // %e : tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$data, Kiln_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` type($indices)";
  let hasFolder = 1;
}

def Kiln_PadOp : Kiln_Op<"pad", [Pure, InferTypeOpAdaptor]> {
  let summary = "pads (or crops) every dimension";
  let description = [{
    Adds `pads[i]` elements before and `pads[rank + i]` after dimension `i`
    (negative values crop). `mode` chooses the new values: `constant` uses
    `value`, `reflect` mirrors without repeating the edge, `edge` repeats it.

    Example:

    ```mlir
    %y = kiln.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.0}
         : tensor<1x3x8x8xf32>
    // %y : tensor<1x3x10x10xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$pads,
      DefaultValuedAttr<Kiln_PadMode, "::mlir::kiln::PadMode::constant">:$mode,
      DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_BroadcastOp : Kiln_Op<"broadcast", [Pure, InferTypeOpAdaptor]> {
  let summary = "broadcasts a tensor to a shape";
  let description = [{
    Repeats `input` along size-1 (or missing leading) dimensions to reach
    exactly `shape`, as NumPy's `broadcast_to`. An entry of -1 in `shape` is a
    dynamic dimension. ONNX Expand, which broadcasts both ways, becomes this
    op with the broadcast of both shapes.

    Example:

    ```mlir
    %y = kiln.broadcast %x {shape = array<i64: 4, 3>} : tensor<3xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Kiln_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Recurrent ops (RecurrentOps.cpp)
//===----------------------------------------------------------------------===//

// The recurrent ops stay whole (they are not unrolled into matmuls and
// elementwise ops): they are the unit that later passes fuse into one
// hand-scheduled kernel. Weights keep their ONNX layouts. The sequence is
// always the leading dimension of `x` and `y` (ONNX layout 0; the frontend
// transposes layout 1 models around the op).
class Kiln_RecurrentOp<string mnemonic, string onnxName, int numGates,
                       string gateOrder, string activationDefaults,
                       string formulas, dag extraOperands, dag extraAttrs,
                       dag extraResults, string extraOperandFormat,
                       string extraTypeFormat, string initialStates,
                       string exampleExtra>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "a whole " # onnxName # " layer (ONNX " # onnxName # ")";
  let description = [{
    Runs }] # onnxName # [{ cells over `x` `[seq, batch, input]` in
    `direction` (forward, reverse or bidirectional: `num_dir` is 1 or 2).
    `w` is `[num_dir, }] # numGates # [{*hidden, input]`, `r` is
    `[num_dir, }] # numGates # [{*hidden, hidden]` and `bias` is
    `[num_dir, }] # !mul(2, numGates) # [{*hidden]` (input biases, then
    recurrence biases; the frontend passes zeros when a model has none), all
    in ONNX layout; the gate blocks are stacked in the order }] # gateOrder #
    [{. `initial_states` is empty (zero initial states) or holds }] #
    initialStates # [{, each `[num_dir, batch, hidden]`.

    Per time step (`*` elementwise, `@` matrix product with the transposed
    weight block):

    ```
    }] # formulas # [{
    ```

    `activations` names the functions, }] # activationDefaults # [{ per
    direction (forward first): one of sigmoid, tanh, relu, affine,
    leaky_relu, thresholded_relu, scaled_tanh, hard_sigmoid, elu,
    softsign, softplus. `activation_alpha` and `activation_beta` have one
    entry per activation (ignored by functions without that parameter).
    With `clip`, gate pre-activations are clamped to `[-clip, clip]`.

    Results: `y` `[seq, num_dir, batch, hidden]` (every hidden state) and
    `y_h` `[num_dir, batch, hidden]` (the last one of each direction)}] #
    exampleExtra;
  let arguments = !con((ins Kiln_RnnDirection:$direction,
      Kiln_FloatTensor:$x, Kiln_FloatTensor:$w, Kiln_FloatTensor:$r,
      Kiln_FloatTensor:$bias), extraOperands,
      (ins Variadic<Kiln_FloatTensor>:$initial_states,
      I64Attr:$hidden_size,
      StrArrayAttr:$activations,
      DefaultValuedOptionalAttr<DenseF32ArrayAttr, "{}">:$activation_alpha,
      DefaultValuedOptionalAttr<DenseF32ArrayAttr, "{}">:$activation_beta,
      OptionalAttr<F32Attr>:$clip), extraAttrs);
  let results = !con((outs Kiln_FloatTensor:$y, Kiln_FloatTensor:$y_h),
                     extraResults);
  let assemblyFormat = [{
    $direction $x `,` $w `,` $r `,` $bias }] # extraOperandFormat # [{
    (`initial` `(` $initial_states^ `:` type($initial_states) `)`)?
    attr-dict `:` type($x) `,` type($w) `,` type($r) `,` type($bias)
  }] # extraTypeFormat;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// 1, or 2 for a bidirectional op.
    int64_t getNumDirections() {
      return getDirection() == ::mlir::kiln::RnnDirection::bidirectional ? 2 : 1;
    }
  }];
}

def Kiln_LstmOp : Kiln_RecurrentOp<"lstm", "LSTM", 4,
    "i (input), o (output), f (forget), c (cell): `iofc`",
    "three (f, g, h; default sigmoid, tanh, tanh)",
    [{i = f(x@Wi + h@Ri + Wbi + Rbi + Pi * c)
    f = f(x@Wf + h@Rf + Wbf + Rbf + Pf * c)   (input_forget: f = 1 - i)
    c' = g(x@Wc + h@Rc + Wbc + Rbc)
    C = f * c + i * c'
    o = f(x@Wo + h@Ro + Wbo + Rbo + Po * C)
    H = o * h(C)}],
    (ins Kiln_FloatTensor:$peepholes),
    (ins DefaultValuedAttr<BoolAttr, "false">:$input_forget),
    (outs Kiln_FloatTensor:$y_c),
    "`,` $peepholes", "`,` type($peepholes)",
    "two tensors, `initial_h` then `initial_c`",
    [{, and `y_c` `[num_dir, batch, hidden]` (the last cell state).
    `peepholes` is `[num_dir, 3*hidden]` (`Pi`, `Po`, `Pf`; zeros when a
    model has none).

    Example:

    ```mlir
    %y, %y_h, %y_c = kiln.lstm bidirectional %x, %w, %r, %b, %p
        {activations = ["sigmoid", "tanh", "tanh", "sigmoid", "tanh", "tanh"],
         hidden_size = 8 : i64}
        : tensor<5x3x4xf32>, tensor<2x32x4xf32>, tensor<2x32x8xf32>,
          tensor<2x64xf32>, tensor<2x24xf32>
    // %y : tensor<5x2x3x8xf32>, %y_h and %y_c : tensor<2x3x8xf32>
    ```
  }]>;

def Kiln_GruOp : Kiln_RecurrentOp<"gru", "GRU", 3,
    "z (update), r (reset), h (hidden): `zrh`",
    "two (f, g; default sigmoid, tanh)",
    [{z = f(x@Wz + h@Rz + Wbz + Rbz)
    r = f(x@Wr + h@Rr + Wbr + Rbr)
    h' = g(x@Wh + (r * h)@Rh + Rbh + Wbh)      (linear_before_reset = false)
    h' = g(x@Wh + r * (h@Rh + Rbh) + Wbh)      (linear_before_reset = true)
    H = (1 - z) * h' + z * h}],
    (ins), (ins DefaultValuedAttr<BoolAttr, "false">:$linear_before_reset),
    (outs), "", "", "one tensor, `initial_h`",
    [{.

    Example:

    ```mlir
    %y, %y_h = kiln.gru forward %x, %w, %r, %b
        {activations = ["sigmoid", "tanh"], hidden_size = 8 : i64}
        : tensor<5x3x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>,
          tensor<1x48xf32>
    // %y : tensor<5x1x3x8xf32>, %y_h : tensor<1x3x8xf32>
    ```
  }]>;

def Kiln_RnnOp : Kiln_RecurrentOp<"rnn", "RNN", 1,
    "i (the single gate)",
    "one (f; default tanh)",
    [{H = f(x@Wi + h@Ri + Wbi + Rbi)}],
    (ins), (ins), (outs), "", "", "one tensor, `initial_h`",
    [{.

    Example:

    ```mlir
    %y, %y_h = kiln.rnn reverse %x, %w, %r, %b initial(%h0 : tensor<1x3x8xf32>)
        {activations = ["tanh"], hidden_size = 8 : i64}
        : tensor<5x3x4xf32>, tensor<1x8x4xf32>, tensor<1x8x8xf32>,
          tensor<1x16xf32>
    ```
  }]>;

//===----------------------------------------------------------------------===//
// Indexing ops (IndexingOps.cpp)
//===----------------------------------------------------------------------===//

def Kiln_ArgReduceOp : Kiln_Op<"arg_reduce", [Pure, InferTypeOpAdaptor]> {
  let summary = "index of the largest or smallest element along an axis";
  let description = [{
    Returns, as i64, the index along `axis` (negative counts from the back)
    of the maximum (`kind = max`) or minimum (`kind = min`) element of
    `input`. Ties give the first index, or the last one with
    `select_last_index`. With `keepdims` the reduced dimension stays as
    size 1, otherwise it is removed (ONNX ArgMax / ArgMin). Constant inputs
    are folded.

    Example:

    ```mlir
    %i = kiln.arg_reduce max %x {axis = 1 : i64, keepdims = false}
         : tensor<4x10xf32>
    // %i : tensor<4xi64>
    ```
  }];
  let arguments = (ins Kiln_ArgReduceKind:$kind, Kiln_NumericTensor:$input,
      I64Attr:$axis,
      DefaultValuedAttr<BoolAttr, "true">:$keepdims,
      DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Kiln_TopKOp : Kiln_Op<"top_k", [Pure, InferTypeOpAdaptor]> {
  let summary = "the k largest or smallest elements along an axis";
  let description = [{
    Returns the `k` largest (`largest`, the default) or smallest elements
    of `input` along `axis` (negative counts from the back) and their i64
    indices, as ONNX TopK: `values` and `indices` are `input`'s shape with
    dimension `axis` replaced by `k`. With `sorted` they come in order
    (descending for largest); equal values keep the lower index first.

    Example:

    ```mlir
    %v, %i = kiln.top_k %x {k = 3 : i64, axis = -1 : i64} : tensor<2x10xf32>
    // %v : tensor<2x3xf32>, %i : tensor<2x3xi64>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, I64Attr:$k,
      DefaultValuedAttr<I64Attr, "-1">:$axis,
      DefaultValuedAttr<BoolAttr, "true">:$largest,
      DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Kiln_NumericTensor:$values,
                      RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Kiln_CumSumOp : Kiln_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "cumulative sum along an axis";
  let description = [{
    Element `j` along `axis` (negative counts from the back) is the sum of
    the elements `0..j` of `input` (ONNX CumSum). With `exclusive` the
    element itself is left out (the first sum is 0); with `reverse` the sums
    run from the end of the axis. Constant inputs are folded.

    Example:

    ```mlir
    %y = kiln.cumsum %x {axis = 1 : i64, exclusive = true} : tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, I64Attr:$axis,
      DefaultValuedAttr<BoolAttr, "false">:$exclusive,
      DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Kiln_GatherElementsOp : Kiln_Op<"gather_elements",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "picks elements along one axis by index (ONNX GatherElements)";
  let description = [{
    `indices` has the rank of `data`; the result has the shape of `indices`
    and, for `a = axis`, element `(i0, .., ia, .., in)` is
    `data(i0, .., indices(i0, .., in), .., in)`. Negative indices count from
    the back of the axis. Along the other dimensions `indices` may be
    smaller than `data`, not larger.

    Example:

    ```mlir
    %y = kiln.gather_elements %x, %i {axis = 1 : i64}
         : tensor<3x4xf32>, tensor<3x2xi64>
    // %y : tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$data, Kiln_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Kiln_Tensor:$output);
  let hasFolder = 1;
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` type($indices)";
}

def Kiln_GatherNdOp : Kiln_Op<"gather_nd", [Pure, InferTypeOpAdaptor]> {
  let summary = "picks slices by multi-dimensional index (ONNX GatherND)";
  let description = [{
    The last dimension of `indices` (size `q`, static) holds coordinates
    into `data` after its first `batch_dims` dimensions, which `data` and
    `indices` share. The result has shape
    `indices.shape[:-1] + data.shape[batch_dims + q:]`: every index tuple
    picks one slice. Negative coordinates count from the back.

    Example:

    ```mlir
    %y = kiln.gather_nd %x, %i {batch_dims = 1 : i64}
         : tensor<2x3x4xf32>, tensor<2x5x1xi64>
    // %y : tensor<2x5x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$data, Kiln_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Kiln_Tensor:$output);
  let hasFolder = 1;
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` type($indices)";
}

def Kiln_ScatterNdOp : Kiln_Op<"scatter_nd", [Pure, InferTypeOpAdaptor]> {
  let summary = "writes slices at multi-dimensional indices (ONNX ScatterND)";
  let description = [{
    A copy of `data` in which, for each index tuple of `indices` (last
    dimension of static size `q`), the slice of `data` it addresses is
    replaced by (`reduction = none`) or combined with (add, mul, max, min)
    the matching slice of `updates`, whose shape is
    `indices.shape[:-1] + data.shape[q:]`. With `none`, duplicate indices
    leave the result unspecified, as in ONNX.

    Example:

    ```mlir
    %y = kiln.scatter_nd add %x, %i, %u
         : tensor<4x5xf32>, tensor<2x1xi64>, tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Kiln_ScatterReduction:$reduction, Kiln_Tensor:$data,
                       Kiln_IndexTensor:$indices, Kiln_Tensor:$updates);
  let results = (outs Kiln_Tensor:$output);
  let hasFolder = 1;
  let assemblyFormat = [{
    $reduction $data `,` $indices `,` $updates attr-dict `:`
    type($data) `,` type($indices) `,` type($updates)
  }];
}

def Kiln_ScatterElementsOp : Kiln_Op<"scatter_elements",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "writes elements along one axis by index (ONNX ScatterElements)";
  let description = [{
    The inverse of `gather_elements`: a copy of `data` in which, for every
    position `p` of `indices` (and of `updates`, which has the same shape),
    the element of `data` at `p` with coordinate `axis` replaced by
    `indices(p)` is replaced by (`reduction = none`) or combined with (add,
    mul, max, min) `updates(p)`. Negative indices count from the back.

    Example:

    ```mlir
    %y = kiln.scatter_elements none %x, %i, %u {axis = 1 : i64}
         : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Kiln_ScatterReduction:$reduction, Kiln_Tensor:$data,
                       Kiln_IndexTensor:$indices, Kiln_Tensor:$updates,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Kiln_Tensor:$output);
  let hasFolder = 1;
  let assemblyFormat = [{
    $reduction $data `,` $indices `,` $updates attr-dict `:`
    type($data) `,` type($indices) `,` type($updates)
  }];
}

//===----------------------------------------------------------------------===//
// Resampling ops (ResamplingOps.cpp)
//===----------------------------------------------------------------------===//

def Kiln_ConvTransposeOp : Kiln_Op<"conv_transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D transposed convolution (ONNX ConvTranspose)";
  let description = [{
    The gradient of `conv` with respect to its input: `input`
    `[N, C, D1..Dn]` and `filter` `[C, M/groups, K1..Kn]` (ONNX layout) give
    `[N, M, O1..On]` with
    `O = stride * (D - 1) + output_padding + dilation * (K - 1) + 1
         - begin - end`,
    plus `bias` `[M]` when present. `strides`, `dilations` and
    `output_padding` have n entries (default 1, 1, 0), `pads` 2n entries
    `[begin_1..begin_n, end_1..end_n]` (default 0); the frontend resolves
    ONNX's `output_shape` and `auto_pad` into `pads`.

    Example:

    ```mlir
    %y = kiln.conv_transpose %x, %w {strides = array<i64: 2, 2>,
                                     pads = array<i64: 1, 1, 1, 1>,
                                     output_padding = array<i64: 1, 1>}
         : tensor<1x16x8x8xf32>, tensor<16x8x3x3xf32>
    // %y : tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = (ins Kiln_ConvOperandTensor:$input,
      Kiln_ConvOperandTensor:$filter,
      Optional<Kiln_ConvResultTensor>:$bias,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$strides,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$dilations,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$pads,
      DefaultValuedOptionalAttr<DenseI64ArrayAttr, "{}">:$output_padding,
      DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Kiln_ConvResultTensor:$output);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:`
    type($input) `,` type($filter) (`,` type($bias)^)?
  }];
}

def Kiln_ResizeOp : Kiln_Op<"resize", [Pure, InferTypeOpAdaptor]> {
  let summary = "resamples a tensor to a new shape (ONNX Resize, Upsample)";
  let description = [{
    Resamples every dimension of `input` to the sizes in `sizes` (which is
    the result shape; -1 is a dynamic dimension). Output coordinate `x` of a
    dimension maps to an input coordinate by `coordinate_transformation_mode`
    with `scale` = `scales[d]` when given (the frontend keeps the scales a
    model states, since they differ from `out / in` after rounding), else
    `out / in`:

    ```
    half_pixel:           (x + 0.5) / scale - 0.5
    half_pixel_symmetric: half_pixel shifted to keep the centre fixed
    pytorch_half_pixel:   half_pixel, or 0 when the output size is 1
    align_corners:        x * (in - 1) / (out - 1)
    asymmetric:           x / scale
    ```

    `mode` interpolates: `nearest` rounds the coordinate by `nearest_mode`,
    `linear` and `cubic` (with `cubic_coeff_a`, and with `exclude_outside`
    dropping taps outside the input and renormalizing) interpolate along
    each resized dimension. `extrapolation_value` is kept for the
    frontend's tf_crop_and_resize, which Kiln does not support yet.

    Example:

    ```mlir
    %y = kiln.resize linear %x {sizes = array<i64: 1, 3, 16, 16>,
                                scales = array<f32: 1.0, 1.0, 2.0, 2.0>}
         : tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins Kiln_ResizeMode:$mode, Kiln_NumericTensor:$input,
      DenseI64ArrayAttr:$sizes,
      OptionalAttr<DenseF32ArrayAttr>:$scales,
      DefaultValuedAttr<Kiln_ResizeCoordinateMode,
          "::mlir::kiln::ResizeCoordinateMode::half_pixel">:$coordinate_transformation_mode,
      DefaultValuedAttr<Kiln_ResizeNearestMode,
          "::mlir::kiln::ResizeNearestMode::round_prefer_floor">:$nearest_mode,
      DefaultValuedAttr<F32Attr, "-0.75">:$cubic_coeff_a,
      DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
      DefaultValuedAttr<F32Attr, "0.0">:$extrapolation_value);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$mode $input attr-dict `:` type($input)";
}

#endif // KILN_OPS_TD
