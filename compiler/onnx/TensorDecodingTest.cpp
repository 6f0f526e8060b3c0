//===- TensorDecodingTest.cpp - Initializer decoding and path checks ------===//

#include "compiler/onnx/TensorDecoding.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

using namespace mlir;
using namespace mlir::kiln::onnx_import;

namespace {

class TensorDecodingTest : public ::testing::Test {
protected:
  void SetUp() override {
    // Collect diagnostics instead of printing them.
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &context, [this](Diagnostic &diag) {
          messages += diag.str() + "\n";
          return success();
        });
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-onnx", dir));
    llvm::SmallString<256> model(dir);
    llvm::sys::path::append(model, "model");
    ASSERT_FALSE(llvm::sys::fs::create_directory(model));
    modelDir = std::string(model);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  void writeFile(llvm::StringRef relative, llvm::StringRef bytes) {
    llvm::SmallString<256> path(modelDir);
    llvm::sys::path::append(path, relative);
    std::ofstream(std::string(path), std::ios::binary)
        .write(bytes.data(), bytes.size());
  }

  FailureOr<ElementsAttr> decode(const onnx::TensorProto &tensor) {
    return decodeTensor(&context, tensor, modelDir, UnknownLoc::get(&context));
  }

  MLIRContext context;
  std::unique_ptr<ScopedDiagnosticHandler> handler;
  std::string messages;
  llvm::SmallString<256> dir;
  std::string modelDir;
};

onnx::TensorProto makeTensor(const char *name, int dtype,
                             std::initializer_list<int64_t> dims) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(dtype);
  for (int64_t d : dims)
    t.add_dims(d);
  return t;
}

std::vector<float> floats(ElementsAttr attr) {
  std::vector<float> out;
  for (const APFloat &v : llvm::cast<DenseElementsAttr>(attr).getValues<APFloat>())
    out.push_back(v.convertToDouble());
  return out;
}

TEST_F(TensorDecodingTest, RawDataFloat) {
  auto t = makeTensor("w", onnx::TensorProto::FLOAT, {2});
  float values[] = {1.5f, -2.0f};
  t.set_raw_data(std::string(reinterpret_cast<char *>(values), sizeof(values)));
  auto attr = decode(t);
  ASSERT_TRUE(succeeded(attr)) << messages;
  EXPECT_EQ(floats(*attr), (std::vector<float>{1.5f, -2.0f}));
}

TEST_F(TensorDecodingTest, TypedFields) {
  auto f = makeTensor("f", onnx::TensorProto::FLOAT, {3});
  for (float v : {1.0f, 2.0f, 3.0f})
    f.add_float_data(v);
  auto attr = decode(f);
  ASSERT_TRUE(succeeded(attr)) << messages;
  EXPECT_EQ(floats(*attr), (std::vector<float>{1, 2, 3}));

  // f16 bits travel in int32_data.
  auto h = makeTensor("h", onnx::TensorProto::FLOAT16, {2});
  h.add_int32_data(0x3C00); // 1.0
  h.add_int32_data(0xC000); // -2.0
  attr = decode(h);
  ASSERT_TRUE(succeeded(attr)) << messages;
  EXPECT_TRUE(llvm::cast<DenseElementsAttr>(*attr).getElementType().isF16());
  EXPECT_EQ(floats(*attr), (std::vector<float>{1.0f, -2.0f}));

  auto i = makeTensor("i", onnx::TensorProto::INT64, {2});
  i.add_int64_data(-7);
  i.add_int64_data(int64_t(1) << 40);
  attr = decode(i);
  ASSERT_TRUE(succeeded(attr)) << messages;
  auto ints = llvm::cast<DenseElementsAttr>(*attr).getValues<int64_t>();
  EXPECT_EQ(ints[0], -7);
  EXPECT_EQ(ints[1], int64_t(1) << 40);

  auto b = makeTensor("b", onnx::TensorProto::BOOL, {3});
  for (int v : {1, 0, 1})
    b.add_int32_data(v);
  attr = decode(b);
  ASSERT_TRUE(succeeded(attr)) << messages;
  auto bools = llvm::cast<DenseElementsAttr>(*attr).getValues<bool>();
  EXPECT_TRUE(bools[0]);
  EXPECT_FALSE(bools[1]);
  EXPECT_TRUE(bools[2]);
}

TEST_F(TensorDecodingTest, WrongCountNamesTensor) {
  auto t = makeTensor("short", onnx::TensorProto::FLOAT, {4});
  t.add_float_data(1.0f);
  EXPECT_TRUE(failed(decode(t)));
  EXPECT_NE(messages.find("tensor 'short'"), std::string::npos) << messages;
  EXPECT_NE(messages.find("expected 4"), std::string::npos) << messages;
}

TEST_F(TensorDecodingTest, DoubleData) {
  auto t = makeTensor("d", onnx::TensorProto::DOUBLE, {2});
  t.add_double_data(1.0 / 3.0);
  t.add_double_data(-2.5e300);
  FailureOr<ElementsAttr> attr = decode(t);
  ASSERT_TRUE(succeeded(attr)) << messages;
  auto values = llvm::to_vector(attr->getValues<double>());
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0], 1.0 / 3.0); // not narrowed to f32 on the way
  EXPECT_EQ(values[1], -2.5e300);
}

TEST_F(TensorDecodingTest, UnsupportedDtype) {
  auto t = makeTensor("u", onnx::TensorProto::UINT16, {1});
  t.add_int32_data(1);
  EXPECT_TRUE(failed(decode(t)));
  EXPECT_NE(messages.find("Kiln does not handle dtype UINT16 of tensor 'u'"),
            std::string::npos)
      << messages;
}

void setExternal(onnx::TensorProto &t, const char *location,
                 const char *offset = nullptr) {
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  auto *e = t.add_external_data();
  e->set_key("location");
  e->set_value(location);
  if (offset) {
    e = t.add_external_data();
    e->set_key("offset");
    e->set_value(offset);
  }
}

TEST_F(TensorDecodingTest, ExternalDataWithOffset) {
  float values[] = {3.0f, 4.0f};
  writeFile("w.bin", std::string("pad!") +
                         std::string(reinterpret_cast<char *>(values), 8));
  auto t = makeTensor("w", onnx::TensorProto::FLOAT, {2});
  setExternal(t, "w.bin", "4");
  auto attr = decode(t);
  ASSERT_TRUE(succeeded(attr)) << messages;
  EXPECT_EQ(floats(*attr), (std::vector<float>{3.0f, 4.0f}));
}

TEST_F(TensorDecodingTest, ExternalDataTooShort) {
  writeFile("short.bin", "abc");
  auto t = makeTensor("w", onnx::TensorProto::FLOAT, {2});
  setExternal(t, "short.bin");
  EXPECT_TRUE(failed(decode(t)));
  EXPECT_NE(messages.find("tensor 'w' in 'short.bin' has 3 bytes, expected 8"),
            std::string::npos)
      << messages;
}

TEST_F(TensorDecodingTest, ExternalPathChecks) {
  Location loc = UnknownLoc::get(&context);
  // Inside the folder, also through a subfolder and a harmless "..".
  writeFile("ok.bin", "x");
  EXPECT_TRUE(succeeded(resolveExternalDataPath(modelDir, "ok.bin", "t", loc)));
  EXPECT_TRUE(succeeded(
      resolveExternalDataPath(modelDir, "./sub/../ok.bin", "t", loc)));

  EXPECT_TRUE(failed(resolveExternalDataPath(modelDir, "/etc/passwd", "t", loc)));
  EXPECT_NE(messages.find("'/etc/passwd' of tensor 't' is an absolute path"),
            std::string::npos);
  EXPECT_TRUE(failed(resolveExternalDataPath(modelDir, "C:\\w.bin", "t", loc)));

  // A file next to the model folder exists but is outside it.
  llvm::SmallString<256> outside(dir);
  llvm::sys::path::append(outside, "secret.bin");
  std::ofstream(std::string(outside)) << "secret";
  messages.clear();
  EXPECT_TRUE(failed(
      resolveExternalDataPath(modelDir, "../secret.bin", "t", loc)));
  EXPECT_NE(messages.find("is outside the model's folder"), std::string::npos);
  EXPECT_TRUE(failed(
      resolveExternalDataPath(modelDir, "a/../../secret.bin", "t", loc)));

  // A symbolic link inside the folder pointing outside it.
  llvm::SmallString<256> link(modelDir);
  llvm::sys::path::append(link, "link.bin");
  ASSERT_FALSE(llvm::sys::fs::create_link(outside, link));
  messages.clear();
  EXPECT_TRUE(failed(resolveExternalDataPath(modelDir, "link.bin", "t", loc)));
  EXPECT_NE(messages.find("outside the model's folder"), std::string::npos)
      << messages;

  messages.clear();
  EXPECT_TRUE(failed(resolveExternalDataPath(modelDir, "none.bin", "t", loc)));
  EXPECT_NE(messages.find("'none.bin' of tensor 't' does not exist"),
            std::string::npos);
}

} // namespace

namespace {

std::vector<int64_t> ints(ElementsAttr attr) {
  std::vector<int64_t> out;
  for (const APInt &v : llvm::cast<DenseElementsAttr>(attr).getValues<APInt>())
    out.push_back(v.getSExtValue());
  return out;
}

} // namespace

// UINT8 is held biased in i8 (u8 - 128), from raw_data and int32_data alike.
TEST_F(TensorDecodingTest, Uint8IsBiased) {
  auto raw = makeTensor("zp", onnx::TensorProto::UINT8, {3});
  const char bytes[] = {0, char(128), char(255)};
  raw.set_raw_data(std::string(bytes, 3));
  auto rawAttr = decode(raw);
  ASSERT_TRUE(succeeded(rawAttr)) << messages;
  EXPECT_TRUE(rawAttr->getElementType().isInteger(8));
  EXPECT_EQ(ints(*rawAttr), (std::vector<int64_t>{-128, 0, 127}));

  auto typed = makeTensor("zp", onnx::TensorProto::UINT8, {3});
  for (int v : {0, 10, 255})
    typed.add_int32_data(v);
  auto typedAttr = decode(typed);
  ASSERT_TRUE(succeeded(typedAttr)) << messages;
  EXPECT_EQ(ints(*typedAttr), (std::vector<int64_t>{-128, -118, 127}));
}
