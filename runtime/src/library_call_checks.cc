// LoadedArtifact::CheckLibraryCall: a LibraryCall step's parameters are
// checked once at load, like a dispatch's bindings, so that cuBLASLt never
// reads or writes outside a buffer (DATA_LOSS naming the step and field) and
// a call this runtime cannot make is refused up front (UNIMPLEMENTED).
#include "runtime/src/checked_math.h"
#include "runtime/src/loaded_artifact.h"

namespace kiln {
namespace {

Status DataLoss(const std::string& message) {
  return Status(StatusCode::kDataLoss, "corrupted artifact: " + message);
}

// Elements from the first to one past the last element a strided batch of
// row-major rows x cols matrices (row stride ld) touches; false on overflow.
bool Extent(uint64_t batch, uint64_t rows, uint64_t cols, uint64_t ld, uint64_t batch_stride,
            uint64_t* out) {
  uint64_t last_row = 0, last_batch = 0, sum = 0;
  return CheckedMul(rows - 1, ld, &last_row) && CheckedMul(batch - 1, batch_stride, &last_batch) &&
         CheckedAdd(last_row, cols, &sum) && CheckedAdd(sum, last_batch, out);
}

bool Overlap(const fb::Binding& a, const fb::Binding& b) {
  if (a.space() != b.space()) return false;
  if (a.space() != fb::BufferSpace::Arena && a.index() != b.index()) return false;
  return RangesOverlap(a.offset(), a.length(), b.offset(), b.length());
}

bool Same(const fb::Binding& a, const fb::Binding& b) {
  return a.space() == b.space() && a.index() == b.index() && a.offset() == b.offset() &&
         a.length() == b.length();
}

}  // namespace

Status LoadedArtifact::CheckLibraryCall(
    const fb::Step& step, const std::string& where,
    const std::function<Status(const fb::Binding*, const std::string&)>& check_binding,
    StepInfo* info) {
  const fb::LibraryCallStep* call = step.library_call();
  if (call == nullptr) return DataLoss(where + ": library-call step without library_call");
  info->library = call->library() ? call->library()->str() : std::string();
  info->function = call->function() ? call->function()->str() : std::string();
  info->node = call->node() ? call->node()->str() : std::string();
  if (info->library != "cublasLt" || info->function != "matmul")
    return Status(StatusCode::kUnimplemented,
                  where + ": library call '" + info->library + "." + info->function +
                      "' is not one this runtime makes (it calls cublasLt.matmul); use a newer "
                      "runtime or recompile");
  const std::string at = where + " (cublasLt.matmul" +
                         (info->node.empty() ? std::string() : " for '" + info->node + "'") + ")";
  const fb::GemmCall* g = call->gemm();
  if (g == nullptr) return DataLoss(at + ": no GEMM parameters");
  GemmInfo& gemm = info->gemm;
  if (g->dtype() != fb::DType::F32 || g->compute() != fb::DType::F32)
    return Status(StatusCode::kUnimplemented,
                  at + ": dtype " + std::to_string(static_cast<int>(g->dtype())) + ", compute " +
                      std::to_string(static_cast<int>(g->compute())) +
                      "; this runtime runs f32 GEMMs only (f16/bf16 come with mixed precision)");
  gemm.batch = g->batch();
  gemm.m = g->m();
  gemm.n = g->n();
  gemm.k = g->k();
  gemm.transpose_a = g->transpose_a();
  gemm.transpose_b = g->transpose_b();
  gemm.lda = g->lda();
  gemm.ldb = g->ldb();
  gemm.ldc = g->ldc();
  gemm.ldd = g->ldd();
  gemm.batch_stride_a = g->batch_stride_a();
  gemm.batch_stride_b = g->batch_stride_b();
  gemm.batch_stride_c = g->batch_stride_c();
  gemm.batch_stride_d = g->batch_stride_d();
  gemm.alpha = g->alpha();
  gemm.beta = g->beta();
  if (static_cast<uint8_t>(g->epilogue()) > static_cast<uint8_t>(fb::GemmEpilogue::BiasGelu))
    return DataLoss(at + ": unknown epilogue " + std::to_string(static_cast<int>(g->epilogue())));
  gemm.epilogue = static_cast<GemmInfo::Epilogue>(g->epilogue());

  // cuBLASLt takes the batch count as int32 and sizes and strides as
  // int64; bounding every number by 2^31 keeps the products below 2^62.
  const uint64_t kLimit = 1ull << 31;
  struct Named {
    const char* name;
    uint64_t value;
  };
  for (const Named& v : {Named{"batch", gemm.batch}, Named{"m", gemm.m}, Named{"n", gemm.n},
                         Named{"k", gemm.k}}) {
    if (v.value == 0 || v.value >= kLimit)
      return DataLoss(at + ": " + v.name + " = " + std::to_string(v.value) +
                      " (must be in [1, 2^31))");
  }
  for (const Named& v : {Named{"lda", gemm.lda}, Named{"ldb", gemm.ldb}, Named{"ldc", gemm.ldc},
                         Named{"ldd", gemm.ldd}, Named{"batch_stride_a", gemm.batch_stride_a},
                         Named{"batch_stride_b", gemm.batch_stride_b},
                         Named{"batch_stride_c", gemm.batch_stride_c},
                         Named{"batch_stride_d", gemm.batch_stride_d}}) {
    if (v.value >= (1ull << 40))
      return DataLoss(at + ": " + v.name + " = " + std::to_string(v.value) + " is impossibly large");
  }

  // Each operand: the binding lies in its buffer, is 4-byte aligned, and
  // holds every element the call touches.
  const uint64_t element = 4;
  auto operand = [&](const fb::Binding* b, const char* name, uint64_t rows, uint64_t cols,
                     uint64_t ld, uint64_t stride) -> Status {
    std::string what = at + " " + name;
    Status s = check_binding(b, what);
    if (!s.ok()) return s;
    if (ld < cols)
      return DataLoss(what + ": leading dimension " + std::to_string(ld) + " < " +
                      std::to_string(cols) + " columns");
    if (b->offset() % element != 0)
      return DataLoss(what + ": offset " + std::to_string(b->offset()) +
                      " is not a multiple of the 4-byte element");
    uint64_t elements = 0, bytes = 0;
    if (!Extent(gemm.batch, rows, cols, ld, stride, &elements) ||
        !CheckedMul(elements, element, &bytes))
      return DataLoss(what + ": extent overflows");
    if (bytes > b->length())
      return DataLoss(what + ": " + std::to_string(gemm.batch) + " x " + std::to_string(rows) +
                      "x" + std::to_string(cols) + " (ld " + std::to_string(ld) +
                      ", batch stride " + std::to_string(stride) + ") needs " +
                      std::to_string(bytes) + " bytes, binding has " +
                      std::to_string(b->length()));
    return Status::Ok();
  };
  Status s = operand(g->a(), "A", gemm.transpose_a ? gemm.k : gemm.m,
                     gemm.transpose_a ? gemm.m : gemm.k, gemm.lda, gemm.batch_stride_a);
  if (s.ok())
    s = operand(g->b(), "B", gemm.transpose_b ? gemm.n : gemm.k,
                gemm.transpose_b ? gemm.k : gemm.n, gemm.ldb, gemm.batch_stride_b);
  if (s.ok()) s = operand(g->d(), "D", gemm.m, gemm.n, gemm.ldd, gemm.batch_stride_d);
  if (s.ok() && gemm.has_c())
    s = operand(g->c(), "C", gemm.m, gemm.n, gemm.ldc, gemm.batch_stride_c);
  if (!s.ok()) return s;
  if (gemm.has_bias()) {
    if (!(s = check_binding(g->bias(), at + " bias")).ok()) return s;
    if (g->bias()->offset() % element != 0 || g->bias()->length() < gemm.n * element)
      return DataLoss(at + " bias: " + std::to_string(g->bias()->length()) +
                      " bytes at offset " + std::to_string(g->bias()->offset()) + " for " +
                      std::to_string(gemm.n) + " aligned f32 values");
  }

  const fb::Binding& d = *g->d();
  if (d.space() == fb::BufferSpace::Input || d.space() == fb::BufferSpace::Constant)
    return DataLoss(at + " D is in read-only memory");
  // Batches of D must not share elements (the library writes them in
  // parallel).
  if (gemm.batch > 1 && gemm.batch_stride_d < gemm.m * gemm.ldd)
    return DataLoss(at + " D: batch stride " + std::to_string(gemm.batch_stride_d) +
                    " makes batches overlap (needs >= m x ldd = " +
                    std::to_string(gemm.m * gemm.ldd) + ")");
  if (Overlap(d, *g->a()) || Overlap(d, *g->b()) || (gemm.has_bias() && Overlap(d, *g->bias())))
    return DataLoss(at + " D overlaps " +
                    (Overlap(d, *g->a()) ? "A" : Overlap(d, *g->b()) ? "B" : "the bias"));
  // C may be D itself (accumulate in place) with the same layout, or
  // apart from it.
  if (gemm.has_c() && Overlap(d, *g->c()) &&
      !(Same(d, *g->c()) && gemm.ldc == gemm.ldd && gemm.batch_stride_c == gemm.batch_stride_d))
    return DataLoss(at + " C overlaps D without being D (same binding and layout)");
  return Status::Ok();
}

}  // namespace kiln
