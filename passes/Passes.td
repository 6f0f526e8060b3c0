//===- Passes.td - Kiln graph and lowering passes ----------*- tablegen -*-===//
//
// Every Kiln pass is declared here and runnable alone in kiln-opt under
// its `kiln-*` name.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_TD
#define KILN_PASSES_TD

include "mlir/Pass/PassBase.td"

def GraphCleanup : Pass<"kiln-graph-cleanup"> {
  let summary = "Canonicalize, fold constants and remove dead ops in a Kiln graph";
  let description = [{
    Runs the folders and canonicalization patterns of every Kiln op (and of
    the builtin and func dialects) to a fixed point: x + 0 and x * 1 vanish,
    transposes and reshapes of their own kind merge, small constant tensors
    (and splats of any size) are evaluated, and ops whose results are unused
    are erased. Identical constants are merged.

    Example: `kiln-opt --kiln-graph-cleanup model.mlir`
  }];
  let options = [
    Option<"maxIterations", "max-iterations", "int64_t", /*default=*/"10",
           "Maximum number of rewrite sweeps before giving up on a fixed point">,
  ];
}

def KilnToLinalg : Pass<"kiln-to-linalg"> {
  let summary = "Lower every Kiln op to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites each Kiln op into named linalg ops where they exist
    (linalg.matmul, linalg.batch_matmul, linalg.conv_2d_nchw_fchw, pooling,
    linalg.transpose, linalg.fill) and linalg.generic elsewhere, plus tensor
    ops for data movement and scf.for for ops with loop-carried state
    (recurrences, top-k, scatter). The CPU back end needs static shapes; an op
    that cannot be lowered is reported with the reason.

    With `keep-attention`, kiln.attention ops stay for a back end that
    runs them as one kernel (the CPU back end's online-softmax kernel);
    without it they are lowered as the matmul / scale / mask / softmax /
    matmul chain they stand for.

    Example: `kiln-opt --kiln-to-linalg model.mlir`
  }];
  let options = [
    Option<"keepAttention", "keep-attention", "bool", /*default=*/"false",
           "Leave kiln.attention ops for the back end instead of lowering "
           "them">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def FormDispatches : Pass<"kiln-form-dispatches", "::mlir::ModuleOp"> {
  let summary = "Fuse elementwise ops and outline dispatches (one kernel each)";
  let description = [{
    Works on linalg-on-tensors output of `kiln-to-linalg`. Fuses chains of
    elementwise ops, groups each root op (contraction, reduction, data
    movement) with the elementwise op that consumes it element for element
    (matmul + bias + GELU becomes one dispatch), and outlines every group as
    a private function marked `kiln.dispatch`, called from the host
    function. Identical dispatches are emitted once. The host function then
    holds only constants, reshapes, calls and its return.

    Example: `kiln-opt --kiln-to-linalg --kiln-form-dispatches model.mlir`
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def FuseAttention : Pass<"kiln-fuse-attention"> {
  let summary = "Fuse QK^T, scale, mask, softmax and PV into kiln.attention";
  let description = [{
    Finds `matmul(softmax(scores), V)` where the scores are a `matmul(Q,
    K^T)` scaled by scalar constants (a Mul or Div after the matmul, or
    Muls of Q and K^T before it, as the dynamo exporter writes), with
    additive masks (Add of an f32 tensor) and selects that fill with -inf
    or a value below -1e30 (a causal Where with finfo.min, masked_fill's
    Where with the fill first) applied on the way, and replaces the chain
    by one `kiln.attention`. Every tensor is f32 and static, Q, K^T and V
    share their batch dims, and every intermediate has one user; anything
    else is left as it is.

    The pipeline runs it last in graph optimization (after mixed precision
    and quantization, which keep their own matmuls), for CPU targets.

    Example: `kiln-opt --kiln-fuse-attention model.mlir`
  }];
}

def ChannelsLast : Pass<"kiln-channels-last", "::mlir::ModuleOp"> {
  let summary = "Run the f32 convolutions of a CNN's conv chains channels last";
  let description = [{
    Rewrites each f32 `kiln.conv` of one group, 2-D and static, with at
    most `max-pixels` output pixels per image, output rows of at least 4
    pixels and at least `min-channels` input and output channels, into `kiln.conv_nhwc` on transposed input
    (NCHW -> NHWC) and filter (OIHW -> HWIO, folded for a constant filter),
    followed by a transpose of its result back to NCHW. The transposes then
    move down through elementwise ops (unary ones; add, sub, mul, max, min
    of two same-shaped operands transposed alike) until those of
    consecutive convolutions meet and cancel: a chain of such convs with
    its ReLUs and residual adds runs channels last, with one transpose at
    each of its edges.

    The CPU back end's register tiles put the output's innermost dim in the
    vector lanes: channels first those are the pixels, of which a 7x7 plane
    has 49 (a 32-lane tile and a second one with 17 valid lanes); channels
    last they are the output channels. Up to 64x64 planes (the default
    4096 pixels) the channels-last kernels measured as fast or faster, so
    a ResNet's whole body runs channels last; larger planes (a stem at
    112x112) stay channels first. kilnc runs this pass at the end of
    graph optimization for CPU targets (`--conv-layout=auto`).

    Example: `kiln-opt --kiln-channels-last="max-pixels=196" model.mlir`
    (only 14x14 planes and smaller)
  }];
  let options = [
    Option<"maxPixels", "max-pixels", "int64_t", /*default=*/"4096",
           "Largest output plane (OH * OW) that runs channels last">,
    Option<"minChannels", "min-channels", "int64_t", /*default=*/"64",
           "Fewest input and output channels for a conv to run channels last">,
  ];
}

def FoldQdq : Pass<"kiln-fold-qdq", "::mlir::ModuleOp"> {
  let summary = "Turn dequantize -> f32 matmul/conv into int8 contractions";
  let description = [{
    Rewrites contractions of dequantized int8 values (ONNX QDQ models,
    QLinearMatMul/QLinearConv, kiln-quantize) into integer contractions
    with i32 accumulators and a dequantize epilogue:

    - `matmul(dequantize(qa, sa, za), dequantize(qb, sb, 0))` with a
      constant i8 `qb` (per tensor or per column) becomes
      `dequantize(matmul(qa, qb) - za * colsum(qb), sa * sb, 0)`, batch
      matmuls included; the column sums are computed at compile time.
    - `conv(dequantize(qx, sx, zx), dequantize(qw, sw, 0), bias)` with a
      constant i8 filter (per tensor or per output channel; grouped and
      depthwise too) becomes `dequantize(conv(pad(qx, zx), qw) -
      zx * sum(qw) + qb, sx * sw, 0)`; an i32 bias dequantized by exactly
      `sx * sw` (as quantizers write it) is added in i32, any other bias in
      f32 after the dequantize.
    - A transpose or reshape of a dequantized constant moves below the
      dequantize first (a Gemm's transposed weight stays int8).

    Everything else stays `dequantize -> f32 op -> quantize` (exact
    semantics, f32 speed): an activation quantized per axis, a weight zero
    point that is not 0, a weight that is not constant. Dequantizes of
    constants left over are then evaluated into f32 constants. The rewrite
    functions are in `passes/quant/QdqFolding.h` for other passes.

    Example: `kiln-opt --kiln-fold-qdq --kiln-graph-cleanup model.mlir`
  }];
}

def MixedPrecision : Pass<"kiln-mixed-precision", "::mlir::ModuleOp"> {
  let summary = "Compute contractions and their epilogues in bf16 or fp16";
  let description = [{
    AMP-style mixed precision on a Kiln graph. Ops on the allowed list that
    are connected (through allowed ops) to a contraction are computed in the
    chosen 16-bit type; everything else stays f32.

    - Allowed by default: the contractions `matmul` and `conv`; the
      elementwise ops of their epilogues and between them (`add sub mul neg
      abs relu clip max min gelu sigmoid tanh`); data movement that does not
      compute (`reshape transpose broadcast slice concat pad max_pool`).
      `allow=OP,...` widens the list.
    - Always f32 (denied): `softmax log_softmax layer_norm batch_norm reduce
      avg_pool exp log pow`, plus every op named in `deny=OP,...` (deny
      wins over allow). Naming an always-f32 op in `allow` is an error.
    - Accumulation stays f32: the lowering of a 16-bit matmul or conv
      accumulates in f32 and rounds once at the end.
    - Casts (`kiln.cast`) are inserted only at the edges of each 16-bit
      region; a cast back to f32 that feeds a cast to 16 bits folds away.
    - Constant operands are converted at compile time (round to nearest
      even), so weights are stored at half size.
    - Function arguments and results keep their types.

    Example: `kiln-opt --kiln-mixed-precision="precision=bf16 deny=gelu"`
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"bf16\"",
           "The 16-bit type: bf16 or fp16">,
    ListOption<"allow", "allow", "std::string",
               "Ops (Kiln op names, e.g. div) added to the allowed list">,
    ListOption<"deny", "deny", "std::string",
               "Ops (Kiln op names, e.g. gelu) that stay f32">,
  ];
}

def Quantize : Pass<"kiln-quantize", "::mlir::ModuleOp"> {
  let summary = "INT8 post-training quantization of calibrated matmuls and convs";
  let description = [{
    Quantizes every `matmul` with a constant 2-D f32 right operand and every
    `conv` with a constant f32 filter (and bias) that carries the range of
    its activation input, `kiln.input_range = array<f32: lo, hi>` (set by
    calibration, `kilnc --quantize=int8 --calibration=DIR`, or by hand):

    - Weights: symmetric s8 per output channel (a matmul's columns, a conv's
      filters), `scale = max|w| / 127`, zero point 0, computed here; the
      weight operand becomes `kiln.dequantize` of the i8 constant.
    - Activation: u8 asymmetric per tensor over [min(lo, 0), max(hi, 0)],
      `scale = (hi - lo) / 255`, zero point `round(-lo / scale)`, in the
      biased-s8 storage of Kiln's int8 ops (u8 - 128); the input becomes
      `kiln.dequantize(kiln.quantize(x))`. A conv bias becomes
      `kiln.dequantize` of an i32 constant with scale `s_x * s_w`.
    - Then the QDQ folding (`kiln-fold-qdq`) turns each
      dequantize -> contraction into an integer contraction with i32
      accumulation; what it cannot fold stays f32 between quantize and
      dequantize.

    Ops named in `deny` (op kinds `matmul`/`conv`, or ONNX node names) are
    left f32. A quantizable op without a valid range is an error.

    Example: `kiln-opt --kiln-quantize="deny=conv" model.mlir`
    (`fold=false` stops before the folding).
  }];
  let options = [
    ListOption<"deny", "deny", "std::string",
               "Ops (matmul, conv) or ONNX node names kept in f32">,
    Option<"softmaxOperands", "softmax-operands", "bool", /*default=*/"false",
           "Also quantize a matmul of two activations that reads a "
           "softmax's output (attention's P V; slower on x86 today)">,
    Option<"fold", "fold", "bool", /*default=*/"true",
           "Run the QDQ folding into integer contractions (false leaves "
           "the quantize/dequantize form, for tests and debugging)">,
  ];
}

#endif // KILN_PASSES_TD
