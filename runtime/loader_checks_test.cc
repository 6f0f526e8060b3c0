// The loader's structural checks: every malformed artifact here is a real
// (hand-built) artifact with one thing broken and its checksum recomputed,
// so the change reaches the check under test. Each expects that check's
// own message; none may crash.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <limits>

#include "kiln/runtime.h"
#include "runtime/schema/file_format.h"
#include "runtime/schema/kiln_generated.h"
#include "runtime/testing/status_assertions.h"
#include "runtime/testing/test_artifacts.h"

namespace kiln {
namespace {

using artifact::Access;
using artifact::BufferSpace;
using testing::kCols;
using testing::kElements;
using testing::kRows;

constexpr uint64_t kBytes = kElements * sizeof(float);

using testing::HasMessage;

// Unpacks a file's FlatBuffer into the object API, lets `mutate` change it
// (an emptied vector or string is written as an absent field), and
// rebuilds the file around it with a valid checksum.
std::vector<uint8_t> Repack(const std::vector<uint8_t>& file,
                            const std::function<void(fb::ModelT&)>& mutate) {
  format::Header h = format::DecodeHeader(file.data());
  std::unique_ptr<fb::ModelT> model(fb::GetModel(file.data() + h.flatbuffer_offset)->UnPack());
  mutate(*model);
  flatbuffers::FlatBufferBuilder fbb;
  fb::FinishModelBuffer(fbb, fb::Model::Pack(fbb, model.get()));
  h.flatbuffer_offset = format::kHeaderSize;
  h.flatbuffer_size = fbb.GetSize();
  h.constants_offset = format::AlignUp(h.flatbuffer_offset + h.flatbuffer_size, format::kAlignment);
  h.file_size = h.constants_offset + h.constants_size;
  std::vector<uint8_t> out(h.file_size, 0);
  std::memcpy(out.data() + h.flatbuffer_offset, fbb.GetBufferPointer(), fbb.GetSize());
  std::memcpy(out.data() + h.constants_offset,
              file.data() + format::DecodeHeader(file.data()).constants_offset, h.constants_size);
  format::EncodeHeader(h, out.data());
  format::UpdateChecksum(out.data(), out.size());
  return out;
}

class LoaderChecksTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(Runtime::Create({2}, &runtime_).ok()); }
  Status Load(const std::vector<uint8_t>& bytes) {
    std::shared_ptr<const Model> model;
    return runtime_->LoadModelFromMemory(bytes.data(), bytes.size(), &model);
  }
  Status LoadSpec(const artifact::ArtifactSpec& spec) { return Load(testing::WriteOrDie(spec)); }
  Status LoadMutated(const std::function<void(fb::ModelT&)>& mutate) {
    return Load(Repack(testing::WriteOrDie(testing::AddScaleSpec()), mutate));
  }
  std::shared_ptr<Runtime> runtime_;
};

TEST_F(LoaderChecksTest, RepackWithoutChangesStillLoads) {
  Status s = LoadMutated([](fb::ModelT&) {});
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// Absent fields: each was once (or could be) dereferenced as null.
TEST_F(LoaderChecksTest, AbsentKernelTable) {
  EXPECT_TRUE(HasMessage(LoadMutated([](fb::ModelT& m) { m.executables[0]->kernels.clear(); }),
                         StatusCode::kDataLoss, "executable 0 has no kernel table"));
}

TEST_F(LoaderChecksTest, AbsentCodeBlob) {
  EXPECT_TRUE(HasMessage(LoadMutated([](fb::ModelT& m) { m.executables[0]->blob.clear(); }),
                         StatusCode::kDataLoss, "executable 0 has no code blob"));
}

TEST_F(LoaderChecksTest, AbsentSteps) {
  EXPECT_TRUE(HasMessage(LoadMutated([](fb::ModelT& m) { m.plans[0]->steps.clear(); }),
                         StatusCode::kDataLoss, "the x86_64 plan has no steps"));
}

TEST_F(LoaderChecksTest, AbsentDispatchBindings) {
  EXPECT_TRUE(HasMessage(
      LoadMutated([](fb::ModelT& m) { m.plans[0]->steps[0]->dispatch->bindings.clear(); }),
      StatusCode::kDataLoss, "step 0 'dispatch_0: add x c': dispatch without bindings"));
}

TEST_F(LoaderChecksTest, AbsentDispatch) {
  EXPECT_TRUE(HasMessage(LoadMutated([](fb::ModelT& m) { m.plans[0]->steps[1]->dispatch.reset(); }),
                         StatusCode::kDataLoss,
                         "step 1 'dispatch_1: scale': dispatch step without dispatch"));
}

TEST_F(LoaderChecksTest, AbsentCopyBinding) {
  EXPECT_TRUE(HasMessage(
      LoadMutated([](fb::ModelT& m) { m.plans[0]->steps[2]->copy->source.reset(); }),
      StatusCode::kDataLoss, "step 2 'copy_2: scaled' source: binding missing"));
}

TEST_F(LoaderChecksTest, AbsentKernelBindingsAndWorkgroups) {
  EXPECT_TRUE(HasMessage(
      LoadMutated([](fb::ModelT& m) { m.executables[0]->kernels[0]->bindings.clear(); }),
      StatusCode::kDataLoss, "executable 0 kernel 0 'add' takes 3 bindings but describes 0"));
  EXPECT_TRUE(HasMessage(
      LoadMutated([](fb::ModelT& m) { m.executables[0]->kernels[1]->workgroups.clear(); }),
      StatusCode::kDataLoss, "executable 0 kernel 1 'scale': workgroup count is not 3 numbers"));
  EXPECT_TRUE(HasMessage(
      LoadMutated([](fb::ModelT& m) { m.executables[0]->kernels[2]->name.clear(); }),
      StatusCode::kDataLoss, "executable 0 kernel 2 has no name"));
}

TEST_F(LoaderChecksTest, AbsentModelVectorsAndDims) {
  EXPECT_TRUE(HasMessage(LoadMutated([](fb::ModelT& m) { m.outputs.clear(); }),
                         StatusCode::kDataLoss, "the model has no outputs vector"));
  EXPECT_TRUE(HasMessage(LoadMutated([](fb::ModelT& m) { m.plans.clear(); }),
                         StatusCode::kDataLoss, "the model has no plans vector"));
  EXPECT_TRUE(HasMessage(LoadMutated([](fb::ModelT& m) { m.inputs[1]->dims.clear(); }),
                         StatusCode::kDataLoss, "input 1 'y' has no dims"));
}

TEST_F(LoaderChecksTest, UnknownBindingAccess) {
  EXPECT_TRUE(HasMessage(LoadMutated([](fb::ModelT& m) {
                           m.executables[0]->kernels[0]->bindings[1] = fb::KernelBinding(
                               kBytes, static_cast<fb::BindingAccess>(9));
                         }),
                         StatusCode::kDataLoss, "executable 0 kernel 0 'add' binding 1 has unknown access 9"));
}

TEST_F(LoaderChecksTest, FlatBufferTooSmallForItsIdentifier) {
  std::vector<uint8_t> bytes = testing::WriteOrDie(testing::AddScaleSpec());
  format::StoreU64(bytes.data() + 24, 4);  // flatbuffer_size
  format::UpdateChecksum(bytes.data(), bytes.size());
  EXPECT_TRUE(HasMessage(Load(bytes), StatusCode::kDataLoss, "FlatBuffer range [64, +4)"));
}

// The plan against the kernel table.
TEST_F(LoaderChecksTest, WorkgroupCountDiffersFromTheKernel) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.plans[0].steps[3].dispatch.workgroups[0] = 3;
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "step 3 'dispatch_3: add x y': dispatches 3x1x1 workgroups, but kernel "
                         "'add' was compiled for 7x1x1"));
}

TEST_F(LoaderChecksTest, BindingSizeDiffersFromTheKernel) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.plans[0].steps[3].dispatch.bindings[2].length = kBytes - 4;
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "step 3 'dispatch_3: add x y' binding 2: 1596 bytes, but kernel 'add' "
                         "was compiled for 1600"));
}

TEST_F(LoaderChecksTest, WritesToReadOnlyMemory) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.plans[0].steps[3].dispatch.bindings[2] = {BufferSpace::Constant, 0, 0, kBytes};
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "step 3 'dispatch_3: add x y' binding 2: kernel 'add' writes it, but it "
                         "is in read-only constant memory"));
  spec = testing::AddScaleSpec();
  spec.plans[0].steps[3].dispatch.bindings[2] = {BufferSpace::Input, 1, 0, kBytes};
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "binding 2: kernel 'add' writes it, but it is in read-only input memory"));
  spec = testing::AddScaleSpec();
  spec.plans[0].steps[2].copy.target = {BufferSpace::Constant, 0, 0, kBytes};
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "step 2 'copy_2: scaled': copies into read-only constant memory"));
}

TEST_F(LoaderChecksTest, WrittenBindingOverlapsAnother) {
  // dispatch_1 reads arena [0, 1600) and writes [1600, 3200); make the
  // write start 4 bytes into what it reads.
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.plans[0].steps[1].dispatch.bindings[1].offset = kBytes - 4;
  spec.plans[0].arenaSize = 2 * kBytes;
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "step 1 'dispatch_1: scale' binding 1 (written) overlaps binding 0 in "
                         "arena memory: [1596, +1600) and [0, +1600)"));
  // Two written bindings on the same bytes.
  spec = testing::AddScaleSpec();
  spec.executables[0].kernels[1].bindings[0].access = Access::ReadWrite;
  spec.plans[0].steps[1].dispatch.bindings[1] = spec.plans[0].steps[1].dispatch.bindings[0];
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "step 1 'dispatch_1: scale' binding 0 (written) overlaps binding 1 in "
                         "arena memory"));
  // Reads may share bytes: add x x.
  spec = testing::AddScaleSpec();
  spec.plans[0].steps[3].dispatch.bindings[1] = spec.plans[0].steps[3].dispatch.bindings[0];
  Status s = LoadSpec(spec);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// Overflow: sizes that would wrap 64-bit arithmetic.
TEST_F(LoaderChecksTest, ArenaSizeThatWouldWrapWhenRounded) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.plans[0].arenaSize = std::numeric_limits<uint64_t>::max() - 10;
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "arena size 18446744073709551605 is impossibly large"));
}

TEST_F(LoaderChecksTest, WorkgroupGridThatOverflows) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  const uint32_t big = std::numeric_limits<uint32_t>::max();
  for (uint32_t& w : spec.executables[0].kernels[1].workgroups) w = big;
  for (uint32_t& w : spec.plans[0].steps[1].dispatch.workgroups) w = big;
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "executable 0 kernel 1 'scale': 4294967295x4294967295x4294967295 "
                         "workgroups overflow"));
}

TEST_F(LoaderChecksTest, TensorSizeThatOverflows) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.inputs[1].dims = {1ll << 40, 1ll << 30};
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss, "input 1 'y' is impossibly large"));
}

TEST_F(LoaderChecksTest, BindingRangeThatWouldWrap) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.plans[0].steps[1].dispatch.bindings[0].offset = std::numeric_limits<uint64_t>::max() - 8;
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "step 1 'dispatch_1: scale' binding 0: range [18446744073709551607, "
                         "+1600) is outside arena 0"));
}

// Caller output buffers.
class AliasingTest : public LoaderChecksTest {
 protected:
  void SetUp() override {
    LoaderChecksTest::SetUp();
    std::vector<uint8_t> bytes = testing::WriteOrDie(testing::AddScaleSpec());
    ASSERT_TRUE(runtime_->LoadModelFromMemory(bytes.data(), bytes.size(), &model_).ok());
    ASSERT_TRUE(Session::Create(model_, &session_).ok());
  }
  Tensor View(std::vector<float>& v, size_t offset = 0) {
    return Tensor::Borrow(DType::F32, {kRows, kCols}, v.data() + offset);
  }
  std::shared_ptr<const Model> model_;
  std::unique_ptr<Session> session_;
  std::vector<float> x_ = std::vector<float>(2 * kElements, 1.0f);
  std::vector<float> y_ = std::vector<float>(kElements, 2.0f);
  std::vector<float> a_ = std::vector<float>(2 * kElements, 0.0f);
};

TEST_F(AliasingTest, OutputAliasingAnInputIsRefused) {
  std::vector<Tensor> outputs = {View(y_), View(a_)};
  EXPECT_TRUE(HasMessage(session_->Run({View(x_), View(y_)}, &outputs),
                         StatusCode::kInvalidArgument,
                         "output 'sum' overlaps input 'y'; output buffers must not alias inputs"));
  // A partial overlap counts too.
  outputs = {View(a_), View(x_, kElements - 1)};
  EXPECT_TRUE(HasMessage(session_->Run({View(x_), View(y_)}, &outputs),
                         StatusCode::kInvalidArgument, "output 'scaled/out' overlaps input 'x'"));
}

TEST_F(AliasingTest, OutputsAliasingEachOtherAreRefused) {
  std::vector<Tensor> outputs = {View(a_), View(a_, kElements / 2)};
  EXPECT_TRUE(HasMessage(session_->Run({View(x_), View(y_)}, &outputs),
                         StatusCode::kInvalidArgument,
                         "output 'scaled/out' overlaps output 'sum'; output buffers must not alias "
                         "each other"));
}

TEST_F(AliasingTest, AdjacentBuffersAndAliasedInputsRun) {
  // Outputs back to back in one allocation, and x == y: both fine.
  std::vector<Tensor> outputs = {View(a_), View(a_, kElements)};
  Status s = session_->Run({View(x_), View(x_)}, &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(a_[0], 2.0f);                     // 1 + 1
  EXPECT_EQ(a_[kElements + 1], (1.0f + 0.5f) * 2.0f);  // (x + c) * 2
}

}  // namespace
}  // namespace kiln
