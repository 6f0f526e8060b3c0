//===- PaddleReadersTest.cpp - The Paddle readers on small inputs ---------===//
//
// Inputs are built here byte by byte (the .pdiparams layout) or through the
// generated protobuf classes (ProgramDesc), including every malformed case
// the readers must name: truncation at every byte, count mismatches,
// unknown dtypes, bad versions, bad protobuf, control flow.
//
//===----------------------------------------------------------------------===//

#include "compiler/paddle/PaddleLoader.h"
#include "compiler/paddle/ParamsReader.h"
#include "compiler/paddle/PirJsonReader.h"
#include "compiler/paddle/ProgramDescReader.h"
#include "compiler/paddle/paddle_framework.pb.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

using namespace kiln::paddle;

namespace {

template <typename T> void put(std::string &out, T value) {
  out.append(reinterpret_cast<const char *>(&value), sizeof(T));
}

/// One .pdiparams record as Paddle's save_combine writes it.
std::string record(int dataType, const std::vector<int64_t> &dims,
                   const std::string &data, uint32_t version = 0,
                   uint32_t tensorVersion = 0) {
  proto::VarType::TensorDesc desc;
  desc.set_data_type(dataType);
  for (int64_t dim : dims)
    desc.add_dims(dim);
  std::string descBytes = desc.SerializeAsString();
  std::string out;
  put<uint32_t>(out, version);
  put<uint64_t>(out, 0); // LoD levels
  put<uint32_t>(out, tensorVersion);
  put<int32_t>(out, static_cast<int32_t>(descBytes.size()));
  out += descBytes;
  out += data;
  return out;
}

std::string floats(std::initializer_list<float> values) {
  std::string out;
  for (float value : values)
    put(out, value);
  return out;
}

std::string int64s(std::initializer_list<int64_t> values) {
  std::string out;
  for (int64_t value : values)
    put(out, value);
  return out;
}

/// A program declaring `w` (f32 [2, 3]) and `b` (i64 [2]) as parameters.
Program twoParamProgram() {
  Program program;
  program.paramsPath = "model.pdiparams";
  program.vars["w"] = Var{"w", DType::F32, {2, 3}, true};
  program.vars["b"] = Var{"b", DType::I64, {2}, true};
  program.vars["x"] = Var{"x", DType::F32, {-1, 3}, false};
  return program;
}

std::string twoParamFile() {
  // Sorted by name: b before w.
  return record(3, {2}, int64s({7, -8})) +
         record(5, {2, 3}, floats({1, 2, 3, 4, 5, 6}));
}

bool parse(Program &program, const std::string &bytes, std::string &error) {
  return parseParams(bytes.data(), bytes.size(), program,
                     paramFileOrder(program), error);
}

TEST(ParamsReaderTest, FileOrderIsSortedPersistableNames) {
  Program program = twoParamProgram();
  program.vars["a.w_10"] = Var{"a.w_10", DType::F32, {1}, true};
  program.vars["a.w_2"] = Var{"a.w_2", DType::F32, {1}, true};
  EXPECT_EQ(paramFileOrder(program),
            (std::vector<std::string>{"a.w_10", "a.w_2", "b", "w"}));
}

TEST(ParamsReaderTest, ReadsRecordsInOrder) {
  Program program = twoParamProgram();
  std::string bytes = twoParamFile(), error;
  ASSERT_TRUE(parse(program, bytes, error)) << error;
  ASSERT_EQ(program.params.size(), 2u);
  const Param &b = program.params.at("b");
  EXPECT_EQ(b.dtype, DType::I64);
  EXPECT_EQ(b.dims, (std::vector<int64_t>{2}));
  ASSERT_EQ(b.bytes, 16u);
  int64_t bValues[2];
  std::memcpy(bValues, b.data, 16);
  EXPECT_EQ(bValues[0], 7);
  EXPECT_EQ(bValues[1], -8);
  const Param &w = program.params.at("w");
  EXPECT_EQ(w.dtype, DType::F32);
  EXPECT_EQ(w.dims, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(w.bytes, 24u);
  float wValues[6];
  std::memcpy(wValues, w.data, 24);
  EXPECT_EQ(wValues[0], 1.0f);
  EXPECT_EQ(wValues[5], 6.0f);
}

TEST(ParamsReaderTest, SkipsLoD) {
  Program program;
  program.paramsPath = "lod.pdiparams";
  program.vars["p"] = Var{"p", DType::F32, {1}, true};
  proto::VarType::TensorDesc desc;
  desc.set_data_type(5);
  desc.add_dims(1);
  std::string descBytes = desc.SerializeAsString(), bytes, error;
  put<uint32_t>(bytes, 0);
  put<uint64_t>(bytes, 1);  // one LoD level
  put<uint64_t>(bytes, 16); // of two size_t offsets
  put<uint64_t>(bytes, 0);
  put<uint64_t>(bytes, 1);
  put<uint32_t>(bytes, 0);
  put<int32_t>(bytes, static_cast<int32_t>(descBytes.size()));
  bytes += descBytes + floats({2.5f});
  ASSERT_TRUE(parse(program, bytes, error)) << error;
  float value;
  std::memcpy(&value, program.params.at("p").data, 4);
  EXPECT_EQ(value, 2.5f);
}

TEST(ParamsReaderTest, TruncatedAtEveryByteNamesFileAndParameter) {
  std::string bytes = twoParamFile();
  for (size_t size = 0; size < bytes.size(); ++size) {
    Program program = twoParamProgram();
    std::string error;
    EXPECT_FALSE(parseParams(bytes.data(), size, program,
                             paramFileOrder(program), error))
        << size;
    EXPECT_NE(error.find("model.pdiparams: "), std::string::npos) << error;
    bool namesParam = error.find("'b'") != std::string::npos ||
                      error.find("'w'") != std::string::npos;
    EXPECT_TRUE(namesParam) << error;
    EXPECT_TRUE(program.params.empty());
  }
  Program program = twoParamProgram();
  std::string error;
  EXPECT_FALSE(parse(program, bytes.substr(0, bytes.size() - 1), error));
  EXPECT_NE(error.find("parameter 'w' (#1 of 2"), std::string::npos) << error;
  EXPECT_NE(error.find("file truncated in the data"), std::string::npos)
      << error;
}

TEST(ParamsReaderTest, TooFewParameters) {
  Program program = twoParamProgram();
  std::string error;
  EXPECT_FALSE(parse(program, record(3, {2}, int64s({7, -8})), error));
  EXPECT_EQ(error, "model.pdiparams: holds 1 parameters but the program has "
                   "2; the first missing is 'w'");
}

TEST(ParamsReaderTest, TooManyParameters) {
  Program program = twoParamProgram();
  std::string error;
  EXPECT_FALSE(
      parse(program, twoParamFile() + record(5, {1}, floats({0})), error));
  EXPECT_NE(error.find("model.pdiparams: holds more than the program's 2 "
                       "parameters"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("after 'w'"), std::string::npos) << error;
}

TEST(ParamsReaderTest, UnknownAndUnsupportedDtypes) {
  Program program = twoParamProgram();
  std::string error;
  EXPECT_FALSE(parse(program,
                     record(99, {2}, int64s({7, -8})) +
                         record(5, {2, 3}, floats({1, 2, 3, 4, 5, 6})),
                     error));
  EXPECT_NE(error.find("parameter 'b'"), std::string::npos) << error;
  EXPECT_NE(error.find("unknown data type 99"), std::string::npos) << error;

  EXPECT_FALSE(parse(program,
                     record(23, {2}, int64s({7, -8})) +
                         record(5, {2, 3}, floats({1, 2, 3, 4, 5, 6})),
                     error));
  EXPECT_NE(error.find("unsupported data type COMPLEX64 (23)"),
            std::string::npos)
      << error;
}

TEST(ParamsReaderTest, BadVersions) {
  Program program = twoParamProgram();
  std::string error;
  EXPECT_FALSE(parse(program, record(3, {2}, int64s({7, -8}), 1), error));
  EXPECT_NE(error.find("parameter 'b' (#0 of 2, at byte 0): tensor "
                       "version 1 (expected 0"),
            std::string::npos)
      << error;
  EXPECT_FALSE(parse(program, record(3, {2}, int64s({7, -8}), 0, 2), error));
  EXPECT_NE(error.find("dense tensor version 2"), std::string::npos) << error;
  // Not a .pdiparams file at all.
  EXPECT_FALSE(parse(program, "PK\x03\x04 this is a zip file", error));
  EXPECT_NE(error.find("parameter 'b'"), std::string::npos) << error;
}

TEST(ParamsReaderTest, MalformedTensorDesc) {
  Program program = twoParamProgram();
  std::string bytes, error;
  put<uint32_t>(bytes, 0);
  put<uint64_t>(bytes, 0);
  put<uint32_t>(bytes, 0);
  put<int32_t>(bytes, 3);
  bytes += "\xff\xff\xff";
  EXPECT_FALSE(parse(program, bytes, error));
  EXPECT_NE(error.find("parameter 'b'"), std::string::npos) << error;
  EXPECT_NE(error.find("malformed TensorDesc"), std::string::npos) << error;

  bytes.clear();
  put<uint32_t>(bytes, 0);
  put<uint64_t>(bytes, 0);
  put<uint32_t>(bytes, 0);
  put<int32_t>(bytes, -5);
  EXPECT_FALSE(parse(program, bytes, error));
  EXPECT_NE(error.find("negative TensorDesc size"), std::string::npos) << error;
}

TEST(ParamsReaderTest, ShapeAndDtypeMustMatchTheProgram) {
  Program program = twoParamProgram();
  std::string error;
  EXPECT_FALSE(parse(program,
                     record(3, {2}, int64s({7, -8})) +
                         record(5, {3, 2}, floats({1, 2, 3, 4, 5, 6})),
                     error));
  EXPECT_NE(error.find("parameter 'w'"), std::string::npos) << error;
  EXPECT_NE(error.find("the file holds shape [3, 2] but the program "
                       "declares [2, 3]"),
            std::string::npos)
      << error;
  EXPECT_FALSE(parse(program,
                     record(2, {2}, int64s({7})) +
                         record(5, {2, 3}, floats({1, 2, 3, 4, 5, 6})),
                     error));
  EXPECT_NE(error.find("the file holds int32 but the program declares "
                       "int64"),
            std::string::npos)
      << error;
}

TEST(ParamsReaderTest, HugeShapeIsTruncationNotACrash) {
  Program program;
  program.paramsPath = "big.pdiparams";
  program.vars["p"] = Var{"p", DType::F32, {-1, -1}, true};
  std::string error;
  EXPECT_FALSE(parse(program, record(5, {1 << 30, 1 << 30}, ""), error));
  EXPECT_NE(error.find("file truncated in the data"), std::string::npos)
      << error;
  EXPECT_FALSE(parse(
      program, record(5, {int64_t(1) << 62, int64_t(1) << 62}, ""), error));
  EXPECT_NE(error.find("overflows"), std::string::npos) << error;
}

std::string tempPath(const char *name) {
  const char *dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

TEST(ParamsReaderTest, MapsAFile) {
  Program program = twoParamProgram();
  program.paramsPath = tempPath("mapped.pdiparams");
  {
    std::ofstream file(program.paramsPath, std::ios::binary);
    file << twoParamFile();
  }
  std::string error;
  ASSERT_TRUE(readParams(program, paramFileOrder(program), error)) << error;
  ASSERT_NE(program.paramStorage, nullptr);
  float value;
  std::memcpy(&value, program.params.at("w").data, 4);
  EXPECT_EQ(value, 1.0f);
  ::unlink(program.paramsPath.c_str());
}

TEST(ParamsReaderTest, MissingAndEmptyFiles) {
  Program program = twoParamProgram();
  program.paramsPath = tempPath("missing.pdiparams");
  std::string error;
  EXPECT_FALSE(readParams(program, paramFileOrder(program), error));
  EXPECT_NE(error.find("missing.pdiparams: cannot open the parameters file"),
            std::string::npos)
      << error;

  program.paramsPath = tempPath("empty.pdiparams");
  { std::ofstream file(program.paramsPath, std::ios::binary); }
  EXPECT_FALSE(readParams(program, paramFileOrder(program), error));
  EXPECT_NE(error.find("holds 0 parameters but the program has 2"),
            std::string::npos)
      << error;
  Program noParams;
  noParams.paramsPath = program.paramsPath;
  EXPECT_TRUE(readParams(noParams, {}, error)) << error;
  ::unlink(program.paramsPath.c_str());
}

//===----------------------------------------------------------------------===//
// ProgramDescReader
//===----------------------------------------------------------------------===//

void addVar(proto::BlockDesc &block, const std::string &name, int kind,
            int dtype, std::vector<int64_t> dims, bool persistable) {
  proto::VarDesc *var = block.add_vars();
  var->set_name(name);
  var->mutable_type()->set_type(kind);
  if (kind == 7) {
    auto *tensor =
        var->mutable_type()->mutable_dense_tensor()->mutable_tensor();
    tensor->set_data_type(dtype);
    for (int64_t dim : dims)
      tensor->add_dims(dim);
  }
  var->set_persistable(persistable);
}

proto::OpDesc *
addOp(proto::BlockDesc &block, const std::string &type,
      std::vector<std::pair<std::string, std::vector<std::string>>> inputs,
      std::vector<std::pair<std::string, std::vector<std::string>>> outputs) {
  proto::OpDesc *op = block.add_ops();
  op->set_type(type);
  for (auto &[slot, names] : inputs) {
    auto *var = op->add_inputs();
    var->set_parameter(slot);
    for (auto &name : names)
      var->add_arguments(name);
  }
  for (auto &[slot, names] : outputs) {
    auto *var = op->add_outputs();
    var->set_parameter(slot);
    for (auto &name : names)
      var->add_arguments(name);
  }
  return op;
}

proto::OpDesc::Attr *addAttr(proto::OpDesc *op, const std::string &name,
                             int kind) {
  auto *attr = op->add_attrs();
  attr->set_name(name);
  attr->set_type(kind);
  return attr;
}

/// feed x (col 0), feed y (col 1), conv2d, elementwise_add, two fetches
/// listed with columns 1 then 0.
proto::ProgramDesc smallProgram() {
  proto::ProgramDesc program;
  proto::BlockDesc *block = program.add_blocks();
  block->set_idx(0);
  block->set_parent_idx(-1);
  addVar(*block, "feed", 9, 0, {}, true);
  addVar(*block, "fetch", 10, 0, {}, true);
  addVar(*block, "x", 7, 5, {-1, 3, 8, 8}, false);
  addVar(*block, "y", 7, 5, {-1, 4, 6, 6}, false);
  addVar(*block, "conv.w", 7, 5, {4, 3, 3, 3}, true);
  addVar(*block, "conv.out", 7, 5, {-1, 4, 6, 6}, false);
  addVar(*block, "sum", 7, 5, {-1, 4, 6, 6}, false);
  addAttr(addOp(*block, "feed", {{"X", {"feed"}}}, {{"Out", {"y"}}}), "col", 0)
      ->set_i(1);
  addAttr(addOp(*block, "feed", {{"X", {"feed"}}}, {{"Out", {"x"}}}), "col", 0)
      ->set_i(0);
  proto::OpDesc *conv =
      addOp(*block, "conv2d", {{"Filter", {"conv.w"}}, {"Input", {"x"}}},
            {{"Output", {"conv.out"}}});
  auto *strides = addAttr(conv, "strides", 3);
  strides->add_ints(1);
  strides->add_ints(2);
  addAttr(conv, "groups", 0)->set_i(1);
  addAttr(conv, "data_format", 2)->set_s("NCHW");
  addAttr(conv, "epsilon", 1)->set_f(0.5f);
  addAttr(conv, "is_test", 6)->set_b(true);
  addAttr(conv, "big", 9)->set_l(int64_t(1) << 40);
  auto *longs = addAttr(conv, "shape", 11);
  longs->add_longs(-1);
  longs->add_longs(int64_t(1) << 33);
  addAttr(conv, "value", 15)->set_float64(0.25);
  auto *floatsAttr = addAttr(conv, "scales", 4);
  floatsAttr->add_floats(1.5f);
  auto *strings = addAttr(conv, "names", 5);
  strings->add_strings("a");
  strings->add_strings("b");
  auto *bools = addAttr(conv, "flags", 7);
  bools->add_bools(true);
  bools->add_bools(false);
  auto *scalar = addAttr(conv, "fill", 16)->mutable_scalar();
  scalar->set_type(2);
  scalar->set_i(42);
  addAttr(conv, "op_callstack", 5)->add_strings("File x.py, line 1");
  addOp(*block, "elementwise_add", {{"X", {"conv.out"}}, {"Y", {"y"}}},
        {{"Out", {"sum"}}});
  addAttr(addOp(*block, "fetch", {{"X", {"sum"}}}, {{"Out", {"fetch"}}}), "col",
          0)
      ->set_i(1);
  addAttr(addOp(*block, "fetch", {{"X", {"conv.out"}}}, {{"Out", {"fetch"}}}),
          "col", 0)
      ->set_i(0);
  return program;
}

bool parseDesc(const proto::ProgramDesc &desc, Program &out,
               std::string &error) {
  std::string bytes = desc.SerializeAsString();
  return parseProgramDesc(bytes.data(), bytes.size(), "m.pdmodel", out, error);
}

TEST(ProgramDescReaderTest, ReadsBlockZero) {
  Program program;
  std::string error;
  ASSERT_TRUE(parseDesc(smallProgram(), program, error)) << error;
  EXPECT_EQ(program.format, Format::ProgramDesc);
  EXPECT_EQ(program.modelPath, "m.pdmodel");
  EXPECT_EQ(program.feeds, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(program.fetches, (std::vector<std::string>{"conv.out", "sum"}));
  EXPECT_EQ(program.vars.size(), 5u); // feed/fetch holders left out
  EXPECT_EQ(program.vars.at("x").dims, (std::vector<int64_t>{-1, 3, 8, 8}));
  EXPECT_TRUE(program.vars.at("conv.w").persistable);
  EXPECT_FALSE(program.vars.at("x").persistable);
  EXPECT_EQ(paramFileOrder(program), (std::vector<std::string>{"conv.w"}));

  ASSERT_EQ(program.ops.size(), 2u);
  const Op &conv = program.ops[0];
  EXPECT_EQ(conv.type, "conv2d");
  EXPECT_EQ(conv.where, "op #2 (conv2d) in block 0, output conv.out");
  ASSERT_EQ(conv.inputs.size(), 2u);
  EXPECT_EQ(conv.inputs[0].name, "Filter");
  EXPECT_EQ(conv.inputs[1].values, (std::vector<std::string>{"x"}));
  EXPECT_EQ(conv.outputs[0].name, "Output");
  EXPECT_EQ(std::get<std::vector<int64_t>>(conv.attrs.at("strides")),
            (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(std::get<int64_t>(conv.attrs.at("groups")), 1);
  EXPECT_EQ(std::get<std::string>(conv.attrs.at("data_format")), "NCHW");
  EXPECT_EQ(std::get<double>(conv.attrs.at("epsilon")), 0.5);
  EXPECT_EQ(std::get<bool>(conv.attrs.at("is_test")), true);
  EXPECT_EQ(std::get<int64_t>(conv.attrs.at("big")), int64_t(1) << 40);
  EXPECT_EQ(std::get<std::vector<int64_t>>(conv.attrs.at("shape")),
            (std::vector<int64_t>{-1, int64_t(1) << 33}));
  EXPECT_EQ(std::get<double>(conv.attrs.at("value")), 0.25);
  EXPECT_EQ(std::get<std::vector<double>>(conv.attrs.at("scales")),
            (std::vector<double>{1.5}));
  EXPECT_EQ(std::get<std::vector<std::string>>(conv.attrs.at("names")),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(std::get<std::vector<bool>>(conv.attrs.at("flags")),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(std::get<int64_t>(conv.attrs.at("fill")), 42);
  EXPECT_EQ(conv.attrs.count("op_callstack"), 0u);
  EXPECT_EQ(program.ops[1].type, "elementwise_add");
}

TEST(ProgramDescReaderTest, RejectsBadBytes) {
  Program program;
  std::string error;
  const char junk[] = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff";
  EXPECT_FALSE(
      parseProgramDesc(junk, sizeof junk - 1, "bad.pdmodel", program, error));
  EXPECT_EQ(error,
            "bad.pdmodel: not a Paddle ProgramDesc (the protobuf does not "
            "parse)");
  EXPECT_FALSE(parseProgramDesc("", 0, "empty.pdmodel", program, error));
  EXPECT_EQ(error, "empty.pdmodel: the ProgramDesc has no blocks");
  // Every truncation of a valid program fails cleanly or parses a prefix.
  std::string bytes = smallProgram().SerializeAsString();
  for (size_t size = 0; size < bytes.size(); ++size) {
    Program partial;
    if (!parseProgramDesc(bytes.data(), size, "cut.pdmodel", partial, error)) {
      EXPECT_EQ(error.rfind("cut.pdmodel: ", 0), 0u) << error;
    }
  }
  EXPECT_FALSE(readProgramDesc("/nonexistent/model.pdmodel", program, error));
  EXPECT_EQ(error, "/nonexistent/model.pdmodel: cannot open the model file");
}

TEST(ProgramDescReaderTest, RejectsControlFlow) {
  proto::ProgramDesc desc = smallProgram();
  proto::BlockDesc *block = desc.mutable_blocks(0);
  proto::OpDesc *loop =
      addOp(*block, "while", {{"X", {"x"}}}, {{"Out", {"sum"}}});
  addAttr(loop, "sub_block", 8)->set_block_idx(1);
  Program program;
  std::string error;
  EXPECT_FALSE(parseDesc(desc, program, error));
  EXPECT_EQ(error, "m.pdmodel: op #6 (while) in block 0, output sum: "
                   "attribute 'sub_block' refers to block 1: control flow "
                   "(sub-blocks) is not supported");
}

TEST(ProgramDescReaderTest, RejectsUnknownKinds) {
  Program program;
  std::string error;
  proto::ProgramDesc desc = smallProgram();
  desc.mutable_blocks(0)
      ->mutable_vars(2)
      ->mutable_type()
      ->mutable_dense_tensor()
      ->mutable_tensor()
      ->set_data_type(77);
  EXPECT_FALSE(parseDesc(desc, program, error));
  EXPECT_EQ(error, "m.pdmodel: variable 'x' in block 0: unknown data type 77");

  desc = smallProgram();
  desc.mutable_blocks(0)->mutable_vars(3)->mutable_type()->set_type(13);
  EXPECT_FALSE(parseDesc(desc, program, error));
  EXPECT_EQ(error, "m.pdmodel: variable 'y' in block 0: variable kind "
                   "DENSE_TENSOR_ARRAY (13) is not supported (only dense "
                   "tensors)");

  desc = smallProgram();
  addAttr(desc.mutable_blocks(0)->mutable_ops(2), "odd", 99);
  EXPECT_FALSE(parseDesc(desc, program, error));
  EXPECT_EQ(error, "m.pdmodel: op #2 (conv2d) in block 0, output conv.out: "
                   "attribute 'odd' has unknown attribute kind 99");
}

TEST(ProgramDescReaderTest, FeedFetchColumns) {
  Program program;
  std::string error;
  proto::ProgramDesc desc = smallProgram();
  desc.mutable_blocks(0)->mutable_ops(0)->mutable_attrs(0)->set_i(0);
  EXPECT_FALSE(parseDesc(desc, program, error));
  EXPECT_NE(error.find("op #1 (feed) in block 0, output x: column 0 is "
                       "missing, out of range or taken twice"),
            std::string::npos)
      << error;

  desc = smallProgram();
  desc.mutable_blocks(0)->mutable_ops(0)->mutable_attrs(0)->set_i(2);
  EXPECT_FALSE(parseDesc(desc, program, error));
  EXPECT_EQ(error, "m.pdmodel: no feed op for column 1");
}

//===----------------------------------------------------------------------===//
// PirJsonReader
//===----------------------------------------------------------------------===//

/// A PIR program as paddle.jit.save writes it (compact names): two
/// parameters (one not persistable), a data op, conv2d, a combine, fetch.
std::string pirProgram(const std::string &extraOps = "") {
  return R"({"base_code": {"magic": "pir", "trainable": true, "version": 4},
 "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0",
  "args": [], "ops": [
  {"#": "p", "A": [0, 1, 1, "conv.w"], "DA": [],
   "O": {"%": 1, "TT": {"#": "0.t_dtensor",
         "D": [{"#": "0.t_f32"}, [4, 3, 3, 3], "NCHW", [], 0]}},
   "OA": [1, 0, 1], "QA": []},
  {"#": "p", "A": [0, 1, 1, "state"], "DA": [],
   "O": {"%": 2, "TT": {"#": "0.t_dtensor",
         "D": [{"#": "0.t_ui8"}, [], "NCHW", [], 0]}},
   "OA": [0, 1, 0], "QA": []},
  {"#": "1.data", "A": [{"AT": {"#": "0.a_str", "D": "x"}, "N": "name"},
    {"AT": {"#": "1.a_intarray", "D": [-1, 3, 8, 8]}, "N": "shape"},
    {"AT": {"#": "1.a_dtype", "D": "float32"}, "N": "dtype"},
    {"AT": {"#": "1.a_place", "D": [0, 0, ""]}, "N": "place"}],
   "I": [], "O": [{"%": 3, "TT": {"#": "0.t_dtensor",
         "D": [{"#": "0.t_f32"}, [-1, 3, 8, 8], "NCHW", [], 0]}}]},
  {"#": "1.conv2d", "A": [
    {"AT": {"#": "0.a_array", "D": [{"#": "0.a_i32", "D": 1},
                                    {"#": "0.a_i32", "D": 2}]},
     "N": "strides"},
    {"AT": {"#": "0.a_str", "D": "EXPLICIT"}, "N": "padding_algorithm"},
    {"AT": {"#": "0.a_i32", "D": 1}, "N": "groups"},
    {"AT": {"#": "0.a_f32", "D": 0.5}, "N": "alpha"},
    {"AT": {"#": "0.a_bool", "D": true}, "N": "flag"},
    {"AT": {"#": "0.a_array", "D": []}, "N": "empty"},
    {"AT": {"#": "1.a_scalar", "D": ["float32", 1.5]}, "N": "value"},
    {"AT": {"#": "1.a_scalar", "D": ["int64", 7]}, "N": "count"},
    {"AT": {"#": "0.a_type", "D": {"#": "0.t_i64"}}, "N": "kind"}],
   "I": [{"%": 3}, {"%": 1}, {"%": 0}],
   "O": [{"%": 4, "TT": {"#": "0.t_dtensor",
         "D": [{"#": "0.t_f32"}, [-1, 4, 3, 3], "NCHW", [], 0]}}],
   "OA": []},
  {"#": "0.combine", "A": [], "I": [{"%": 4}, {"%": 3}],
   "O": [{"%": 5, "TT": {"#": "0.t_vec", "D": []}}]})" +
         extraOps + R"(,
  {"#": "1.fetch", "A": [{"AT": {"#": "0.a_str", "D": "fetch_name_0"},
     "N": "name"}, {"AT": {"#": "0.a_i32", "D": 0}, "N": "col"}],
   "I": [{"%": 4}], "O": [{"%": 6, "TT": {"#": "0.t_dtensor",
         "D": [{"#": "0.t_f32"}, [-1, 4, 3, 3], "NCHW", [], 0]}}]}
 ]}]}]}})";
}

bool parsePir(const std::string &text, Program &out, std::string &error) {
  return parsePirJson(text, "m.json", out, error);
}

TEST(PirJsonReaderTest, ReadsAProgram) {
  Program program;
  std::string error;
  ASSERT_TRUE(parsePir(pirProgram(), program, error)) << error;
  EXPECT_EQ(program.format, Format::PirJson);
  EXPECT_EQ(program.feeds, (std::vector<std::string>{"x"}));
  EXPECT_EQ(program.fetches, (std::vector<std::string>{"%4"}));
  // Parameters and data ops are dropped; their values keep their names.
  ASSERT_EQ(program.ops.size(), 2u);
  const Op &conv = program.ops[0];
  EXPECT_EQ(conv.type, "pd_op.conv2d");
  EXPECT_EQ(conv.where, "op #3 (pd_op.conv2d) in block 0, output %4");
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_EQ(conv.inputs[0].name, "0");
  EXPECT_EQ(conv.inputs[0].values, (std::vector<std::string>{"x"}));
  EXPECT_EQ(conv.inputs[1].values, (std::vector<std::string>{"conv.w"}));
  EXPECT_TRUE(conv.inputs[2].values.empty()); // null operand
  EXPECT_EQ(conv.outputs[0].values, (std::vector<std::string>{"%4"}));
  EXPECT_EQ(std::get<std::vector<int64_t>>(conv.attrs.at("strides")),
            (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(std::get<std::string>(conv.attrs.at("padding_algorithm")),
            "EXPLICIT");
  EXPECT_EQ(std::get<int64_t>(conv.attrs.at("groups")), 1);
  EXPECT_EQ(std::get<double>(conv.attrs.at("alpha")), 0.5);
  EXPECT_EQ(std::get<bool>(conv.attrs.at("flag")), true);
  EXPECT_TRUE(std::get<std::vector<int64_t>>(conv.attrs.at("empty")).empty());
  EXPECT_EQ(std::get<double>(conv.attrs.at("value")), 1.5);
  EXPECT_EQ(std::get<int64_t>(conv.attrs.at("count")), 7);
  EXPECT_EQ(std::get<std::string>(conv.attrs.at("kind")), "int64");
  EXPECT_EQ(program.ops[1].type, "builtin.combine");
  EXPECT_EQ(program.ops[1].inputs[1].values, (std::vector<std::string>{"x"}));
  EXPECT_EQ(program.vars.count("%5"), 0u); // vector values get no Var

  EXPECT_TRUE(program.vars.at("conv.w").persistable);
  EXPECT_EQ(program.vars.at("conv.w").dims, (std::vector<int64_t>{4, 3, 3, 3}));
  EXPECT_FALSE(program.vars.at("state").persistable);
  EXPECT_EQ(program.vars.at("state").dtype, DType::U8);
  EXPECT_EQ(program.vars.at("x").dims, (std::vector<int64_t>{-1, 3, 8, 8}));
  EXPECT_EQ(paramFileOrder(program), (std::vector<std::string>{"conv.w"}));
}

std::string replaced(std::string text, const std::string &from,
                     const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

TEST(PirJsonReaderTest, UncompressedParameterOp) {
  std::string text = replaced(pirProgram(),
                              R"({"#": "p", "A": [0, 1, 1, "state"], "DA": [],
   "O": {"%": 2, "TT": {"#": "0.t_dtensor",
         "D": [{"#": "0.t_ui8"}, [], "NCHW", [], 0]}},
   "OA": [0, 1, 0], "QA": []})",
                              R"({"#": "0.parameter", "I": [],
   "A": [{"N": "parameter_name", "AT": {"#": "0.a_str", "D": "state"}}],
   "O": [{"%": 2, "TT": {"#": "0.t_dtensor",
         "D": [{"#": "0.t_ui8"}, [], "NCHW", [], 0]}}],
   "OA": [{"N": "persistable", "AT": {"#": "0.a_array",
           "D": [{"#": "0.a_bool", "D": false}]}}]})");
  Program program;
  std::string error;
  ASSERT_TRUE(parsePir(text, program, error)) << error;
  EXPECT_EQ(program.ops.size(), 2u);
  EXPECT_FALSE(program.vars.at("state").persistable);
  EXPECT_EQ(paramFileOrder(program), (std::vector<std::string>{"conv.w"}));
}

void expectPirError(const std::string &text, const std::string &expected) {
  Program program;
  std::string error;
  EXPECT_FALSE(parsePir(text, program, error)) << expected;
  EXPECT_NE(error.find(expected), std::string::npos)
      << "error: " << error << "\nexpected: " << expected;
  EXPECT_EQ(error.rfind("m.json: ", 0), 0u) << error;
}

TEST(PirJsonReaderTest, RejectsMalformedFiles) {
  expectPirError("{\"base_code\": ", "not valid JSON");
  expectPirError("[1, 2]", "the top level is not a JSON object");
  expectPirError(
      replaced(pirProgram(), "\"magic\": \"pir\"", "\"magic\": \"onnx\""),
      "not a PIR program (base_code.magic is not \"pir\")");
  expectPirError(replaced(pirProgram(), "\"1.conv2d\"", "\"9.conv2d\""),
                 "op #3 (9.conv2d) has an unknown dialect id");
  expectPirError(replaced(pirProgram(), "{\"%\": 3}, {\"%\": 1}",
                          "{\"%\": 3}, {\"%\": 77}"),
                 "op #3 (pd_op.conv2d) in block 0: operand 1 refers to "
                 "value %77, which no earlier op defines");
  expectPirError(replaced(pirProgram(),
                          "\"0.a_i32\", \"D\": 1}, \"N\": "
                          "\"groups\"",
                          "\"0.a_pointer\", \"D\": 1}, \"N\": \"groups\""),
                 "attribute 'groups' has attribute code '0.a_pointer', "
                 "which Kiln does not support");
  expectPirError(replaced(pirProgram(), "\"0.a_f32\", \"D\": 0.5",
                          "\"0.a_f32\", \"D\": null"),
                 "attribute 'alpha' is null (Paddle writes NaN and "
                 "infinities as null");
  expectPirError(replaced(pirProgram(), "[{\"#\": \"0.t_f32\"}, [4, 3, 3, 3]",
                          "[{\"#\": \"0.t_c64\"}, [4, 3, 3, 3]"),
                 "op #0 (builtin.parameter) (parameter 'conv.w') has "
                 "element type '0.t_c64', which Kiln does not support");
  expectPirError(replaced(pirProgram(), "\"TT\": {\"#\": \"0.t_vec\"",
                          "\"TT\": {\"#\": \"1.t_dense_tensor_array\""),
                 "result 0 has type '1.t_dense_tensor_array', which is not "
                 "supported");
  expectPirError(
      pirProgram(R"(,
  {"#": "1.if", "A": [], "I": [{"%": 4}], "O": [], "regions": []})"),
      "op #5 (pd_op.if) in block 0: has regions: control flow is not "
      "supported");
  expectPirError(replaced(pirProgram(), "{\"#\": \"0.a_array\", \"D\": []}",
                          "{\"#\": \"0.a_array\", \"D\": [{\"#\": "
                          "\"0.a_array\", \"D\": []}]}"),
                 "attribute 'empty' nests arrays, which is not supported");
  expectPirError(replaced(pirProgram(), "\"N\": \"col\"", "\"N\": \"column\""),
                 "pd_op.fetch needs an integer 'col'");
  expectPirError(replaced(pirProgram(), "\"D\": 0}, \"N\": \"col\"",
                          "\"D\": 1}, \"N\": \"col\""),
                 "no pd_op.fetch for column 0");
}

//===----------------------------------------------------------------------===//
// PaddleLoader
//===----------------------------------------------------------------------===//

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream file(path, std::ios::binary);
  file << bytes;
}

TEST(PaddleLoaderTest, DefaultParamsPath) {
  EXPECT_EQ(defaultParamsPath("dir/model.json"), "dir/model.pdiparams");
  EXPECT_EQ(defaultParamsPath("a.b/inference.pdmodel"),
            "a.b/inference.pdiparams");
  EXPECT_EQ(defaultParamsPath("a.b/model"), "a.b/model.pdiparams");
}

TEST(PaddleLoaderTest, LoadsBothFormsWithParameters) {
  std::string weights;
  for (int i = 0; i < 4 * 3 * 3 * 3; ++i)
    put<float>(weights, static_cast<float>(i));
  std::string params = record(5, {4, 3, 3, 3}, weights);

  std::string json = tempPath("loader_model.json");
  writeFile(json, pirProgram());
  writeFile(tempPath("loader_model.pdiparams"), params);
  Program program;
  std::string error;
  ASSERT_TRUE(loadPaddleModel(json, "", program, error)) << error;
  EXPECT_EQ(program.format, Format::PirJson);
  EXPECT_EQ(program.paramsPath, tempPath("loader_model.pdiparams"));
  ASSERT_EQ(program.params.size(), 1u);
  float last;
  std::memcpy(
      &last,
      static_cast<const char *>(program.params.at("conv.w").data) + 4 * 107, 4);
  EXPECT_EQ(last, 107.0f);

  // The legacy form, detected by content under another extension, with
  // --params given explicitly.
  std::string legacy = tempPath("legacy.bin");
  writeFile(legacy, smallProgram().SerializeAsString());
  Program legacyProgram;
  ASSERT_TRUE(loadPaddleModel(legacy, tempPath("loader_model.pdiparams"),
                              legacyProgram, error))
      << error;
  EXPECT_EQ(legacyProgram.format, Format::ProgramDesc);
  EXPECT_EQ(legacyProgram.params.at("conv.w").bytes, weights.size());
  ::unlink(legacy.c_str());
  ::unlink(json.c_str());
  ::unlink(tempPath("loader_model.pdiparams").c_str());
}

TEST(PaddleLoaderTest, MissingFiles) {
  Program program;
  std::string error;
  EXPECT_FALSE(loadPaddleModel(tempPath("nope.json"), "", program, error));
  EXPECT_EQ(error, tempPath("nope.json") + ": no such model file");

  std::string json = tempPath("alone.json");
  writeFile(json, pirProgram());
  EXPECT_FALSE(loadPaddleModel(json, "", program, error));
  EXPECT_EQ(error, tempPath("alone.pdiparams") + ": the parameters file of " +
                       json +
                       " is missing (the program has 1 parameters; give it "
                       "with --params=FILE)");
  ::unlink(json.c_str());
}

} // namespace
