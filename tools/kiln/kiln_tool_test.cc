// kiln run / bench / inspect on a hand-built artifact, with .npy and
// TensorProto inputs; plus the tensor-file helpers on literal bytes.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/elf_needed.h"
#include "runtime/testing/gpu_test_artifacts.h"
#include "runtime/testing/test_artifacts.h"
#include "tools/kiln/kiln_test_util.h"
#include "tools/kiln/tensor_files.h"

namespace kiln::testing {
namespace {

using tools::EncodeNpy;
using tools::ParseNpy;
using tools::ParseTensorProto;

std::vector<float> ReadNpyFloats(const std::string& path) {
  Tensor t;
  Status s = ParseNpy(ReadFileBytes(path), &t);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return {};
  EXPECT_EQ(t.dims(), (std::vector<int64_t>{kRows, kCols}));
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.element_count());
}

class KilnToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(artifact::writeArtifactFile(AddScaleSpec(), model_, error)) << error;
  }
  std::string model_ = TempPath("tool.kiln");
  std::vector<float> x_ = RandomFloats(kElements, 11), y_ = RandomFloats(kElements, 12);
};

TEST_F(KilnToolTest, RunWithNpyAndTensorProtoInputs) {
  Tensor x = Tensor::Borrow(DType::F32, {kRows, kCols}, x_.data());
  ASSERT_TRUE(WriteFileBytes(TempPath("x.npy"), EncodeNpy(x)));
  ASSERT_TRUE(WriteFileBytes(TempPath("y.pb"), TensorProtoBytes("y", y_, /*raw=*/true)));
  std::string out_dir = TempPath("out");
  CommandResult r = RunKiln("run " + model_ + " --input x=" + TempPath("x.npy") + " --input y=" +
                            TempPath("y.pb") + " --output-dir " + out_dir + " --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("sum: [4,100] f32"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("scaled/out: [4,100] f32"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("min "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("latency: "), std::string::npos) << r.output;
  // "scaled/out" becomes a safe file name.
  EXPECT_EQ(ReadNpyFloats(out_dir + "/sum.npy"), ExpectedSum(x_, y_));
  EXPECT_EQ(ReadNpyFloats(out_dir + "/scaled_out.npy"), ExpectedScaled(x_));
}

TEST_F(KilnToolTest, RunWithPackedFloatDataAndRandomInputs) {
  ASSERT_TRUE(WriteFileBytes(TempPath("x.pb"), TensorProtoBytes("x", x_, /*raw=*/false)));
  std::string out_dir = TempPath("out_random");
  CommandResult r = RunKiln("run " + model_ + " --input x=" + TempPath("x.pb") + " --seed 5 --output-dir " + out_dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(ReadNpyFloats(out_dir + "/scaled_out.npy"), ExpectedScaled(x_));
  // y was random: the same seed gives the same sum, another seed another.
  std::vector<float> first = ReadNpyFloats(out_dir + "/sum.npy");
  ASSERT_EQ(RunKiln("run " + model_ + " --input x=" + TempPath("x.pb") + " --seed 5 --output-dir " + out_dir).exit_code, 0);
  EXPECT_EQ(ReadNpyFloats(out_dir + "/sum.npy"), first);
  ASSERT_EQ(RunKiln("run " + model_ + " --input x=" + TempPath("x.pb") + " --seed 6 --output-dir " + out_dir).exit_code, 0);
  EXPECT_NE(ReadNpyFloats(out_dir + "/sum.npy"), first);
  for (float v : first) {
    EXPECT_GE(v, -2.0f);
    EXPECT_LE(v, 2.0f);
  }
}

// A cuda plan with a LibraryCall step and no kernel (what kilnc
// --target=cuda writes for a lone GEMM): each step says what it calls.
TEST_F(KilnToolTest, InspectLibraryCall) {
  GemmModel g = MakeGemmModel(2, 3, 4, 5, true, false, GemmInfo::Epilogue::kBiasRelu, 1, 0, false);
  std::string path = TempPath("gemm.kiln");
  ASSERT_TRUE(WriteFileBytes(path, g.bytes));
  CommandResult r = RunKiln("inspect " + path);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("0: library call cublasLt.matmul (node 'MatMul_0') batch 2, m 3, n 4, "
                          "k 5, A^T, epilogue bias+relu  gemm_0: matmul"),
            std::string::npos)
      << r.output;
}

TEST_F(KilnToolTest, Inspect) {
  CommandResult r = RunKiln("inspect " + model_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* expected :
       {"format version 2, produced by kilnc from add_scale.onnx", "x: [4,100] f32 (dims batch ?)",
        "scaled/out: [4,100] f32", "constants: 1, 1600 bytes", "0: x86_64 elf-shared-object, cpu x86-64",
        "kernel 1: scale (2 bindings, 1 push constants)", "plan (x86_64): 4 steps",
        "0: dispatch add [7,1,1]  dispatch_0: add x c", "2: copy 1600 bytes  copy_2: scaled",
        "arena: 3200 bytes (intermediates without reuse: 3200 bytes)"})
    EXPECT_NE(r.output.find(expected), std::string::npos) << expected << "\n" << r.output;
}

TEST_F(KilnToolTest, Bench) {
  CommandResult r = RunKiln("bench " + model_ + " --iterations 50 --warmup 3 --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("50 iterations (3 warmup), 2 threads"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("latency ms: p50 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" p99 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("runs/s"), std::string::npos) << r.output;
}

// One row per distinct step name (AddScaleSpec: three dispatches, one
// copy), each "rank name ops workgroups calls ms share%".
TEST_F(KilnToolTest, BenchProfileListsEveryDispatch) {
  CommandResult r = RunKiln("bench " + model_ + " --iterations 20 --warmup 2 --threads 2 --profile");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("latency ms: p50 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("profile: 20 runs timed per step"), std::string::npos) << r.output;
  size_t header = r.output.find("rank  name");
  ASSERT_NE(header, std::string::npos) << r.output;
  std::string table = r.output.substr(header);
  for (const char* column : {"ops", "workgroups", "calls", "ms/run", "share"})
    EXPECT_NE(table.find(column), std::string::npos) << column << "\n" << r.output;
  struct Row {
    const char* name;
    const char* ops;
    const char* workgroups;
  };
  for (const Row& row : {Row{"dispatch_0", "add x c", "7"}, Row{"dispatch_1", "scale", "7"},
                         Row{"dispatch_3", "add x y", "7"}, Row{"copy_2", "scaled", "copy"}}) {
    size_t at = table.find(std::string("  ") + row.name + "  ");
    ASSERT_NE(at, std::string::npos) << row.name << "\n" << r.output;
    std::string line = table.substr(at, table.find('\n', at) - at);
    EXPECT_NE(line.find(row.ops), std::string::npos) << line;
    EXPECT_NE(line.find(std::string("  ") + row.workgroups + "  "), std::string::npos) << line;
    EXPECT_NE(line.find('%'), std::string::npos) << line;
  }
  EXPECT_NE(r.output.find("dispatches (3 per run): "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("copies (1 per run): "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("outside steps"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("total: "), std::string::npos) << r.output;
  // Rows are ranked 1 to 4.
  for (const char* rank : {"\n   1  ", "\n   2  ", "\n   3  ", "\n   4  "})
    EXPECT_NE(table.find(rank), std::string::npos) << rank << "\n" << r.output;
}

TEST_F(KilnToolTest, ProfileIsABenchOption) {
  CommandResult r = RunKiln("run " + model_ + " --profile");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown option '--profile' for 'run'"), std::string::npos) << r.output;
}

TEST(TensorFiles, NpyRoundTripAndAlignment) {
  std::vector<int32_t> values = {1, -2, 3, 4, 5, 6};
  Tensor t = Tensor::Borrow(DType::I32, {2, 3}, values.data());
  std::vector<uint8_t> bytes = EncodeNpy(t);
  EXPECT_EQ((bytes.size() - 24) % 64, 0u);  // data starts 64-byte aligned
  std::string header(bytes.begin() + 10, bytes.end() - 24);
  EXPECT_NE(header.find("'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"), std::string::npos)
      << header;
  Tensor back;
  ASSERT_TRUE(ParseNpy(bytes, &back).ok());
  EXPECT_EQ(back.dtype(), DType::I32);
  EXPECT_EQ(back.data_as<int32_t>()[1], -2);

  // A one-dimensional shape is written "(6,)", as numpy does.
  Tensor flat = Tensor::Borrow(DType::U8, {6}, values.data());
  std::string flat_bytes(reinterpret_cast<const char*>(EncodeNpy(flat).data()), 80);
  EXPECT_NE(flat_bytes.find("'descr': '|u1'"), std::string::npos);
  EXPECT_NE(flat_bytes.find("(6,)"), std::string::npos);
}

TEST(TensorFiles, NpyVersion2AndErrors) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
  header.append(64 - (12 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0,
                                static_cast<uint8_t>(header.size()), 0, 0, 0};
  bytes.insert(bytes.end(), header.begin(), header.end());
  double d[2] = {1.5, -2.5};
  const uint8_t* p = reinterpret_cast<const uint8_t*>(d);
  bytes.insert(bytes.end(), p, p + 16);
  Tensor t;
  Status s = ParseNpy(bytes, &t);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(t.dtype(), DType::F64);
  EXPECT_EQ(t.data_as<double>()[1], -2.5);
  bytes.pop_back();
  EXPECT_EQ(ParseNpy(bytes, &t).message(), ".npy data is 15 bytes; shape [2] f64 needs 16");
  std::string fortran = "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }";
  std::vector<uint8_t> f = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(fortran.size()), 0};
  f.insert(f.end(), fortran.begin(), fortran.end());
  EXPECT_NE(ParseNpy(f, &t).message().find("Fortran order"), std::string::npos);
}

TEST(TensorFiles, TensorProtoIntegerTypes) {
  // dims [3], data_type INT64 (7), name "ids", int64_data packed {1, 300, 2}.
  std::vector<uint8_t> b = {0x08, 3, 0x10, 7, 0x42, 3, 'i', 'd', 's', 0x3A, 4, 1, 0xAC, 0x02, 2};
  Tensor t;
  std::string name;
  Status s = ParseTensorProto(b, &t, &name);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(name, "ids");
  EXPECT_EQ(t.dtype(), DType::I64);
  EXPECT_EQ(t.data_as<int64_t>()[1], 300);
  b.pop_back();
  b[10] = 3;  // two values for three elements
  EXPECT_EQ(ParseTensorProto(b, &t, &name).message(),
            "TensorProto has 2 values; shape [3] i64 needs 3");
  std::vector<uint8_t> garbage = {0x0A, 0xFF};
  EXPECT_EQ(ParseTensorProto(garbage, &t, &name).message(),
            "not a valid ONNX TensorProto (malformed protobuf)");
}

// Found by //tests/fuzz:npy_reader_fuzzer: the shape was allocated (here
// 16 TB) before the data size was checked against it.
TEST(TensorFiles, NpyShapeIsCheckedBeforeAllocating) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4000000, 1000000), }";
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                static_cast<uint8_t>(header.size()), 0};
  bytes.insert(bytes.end(), header.begin(), header.end());
  Tensor t;
  EXPECT_EQ(ParseNpy(bytes, &t).message(),
            ".npy data is 0 bytes; shape [4000000,1000000] f32 needs 16000000000000");
  header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }";
  bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(header.size()), 0};
  bytes.insert(bytes.end(), header.begin(), header.end());
  EXPECT_NE(ParseNpy(bytes, &t).message().find("is too large"), std::string::npos);
}

// Found by //tests/fuzz:tensor_proto_reader_fuzzer: an empty raw_data made
// the reader pass a null pointer to memcpy.
TEST(TensorFiles, TensorProtoEmptyRawData) {
  // dims {0, 3}, data_type INT8 (3), raw_data "".
  std::vector<uint8_t> b = {0x08, 0, 0x08, 3, 0x10, 3, 0x4A, 0};
  Tensor t;
  std::string name;
  Status s = ParseTensorProto(b, &t, &name);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(t.dtype(), DType::I8);
  EXPECT_EQ(t.element_count(), 0);
  EXPECT_EQ(t.dims(), (std::vector<int64_t>{0, 3}));
}

TEST(TensorFiles, SafeFileNames) {
  EXPECT_EQ(tools::SafeFileName("scaled/out:0"), "scaled_out_0");
  EXPECT_EQ(tools::SafeFileName("a.b-c_d"), "a.b-c_d");
  EXPECT_EQ(tools::SafeFileName(".."), "_..");
}

TEST(Dependencies, KilnBinaryNeedsNoCompilerLibraries) {
  std::vector<std::string> needed;
  ASSERT_TRUE(ReadElfNeeded(ReadFileBytes("tools/kiln/kiln"), &needed));
  for (const std::string& lib : needed) {
    EXPECT_EQ(lib.find("MLIR"), std::string::npos) << lib;
    EXPECT_EQ(lib.find("LLVM"), std::string::npos) << lib;
    EXPECT_EQ(lib.find("protobuf"), std::string::npos) << lib;
    EXPECT_EQ(lib.find("flatbuffers"), std::string::npos) << lib;
  }
}

}  // namespace
}  // namespace kiln::testing
