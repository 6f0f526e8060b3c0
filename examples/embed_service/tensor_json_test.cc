// tensor_json_test.cc - the wire format's conversions for every dtype, and
// the messages for requests it refuses.
#include "tensor_json.h"

#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

namespace kiln_service {
namespace {

using nlohmann::json;

std::string Request(const std::string& dtype, const json& shape, const json& data) {
  return json{{"inputs", {{"x", {{"dtype", dtype}, {"shape", shape}, {"data", data}}}}}}.dump();
}

kiln::Tensor ParseOne(const std::string& dtype, const json& shape, const json& data) {
  std::vector<kiln::NamedTensor> inputs;
  kiln::Status s = ParseInferRequest(Request(dtype, shape, data), &inputs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (inputs.size() != 1) return {};
  EXPECT_EQ(inputs[0].name, "x");
  return inputs[0].tensor;
}

std::string ErrorOf(const std::string& body) {
  std::vector<kiln::NamedTensor> inputs;
  kiln::Status s = ParseInferRequest(body, &inputs);
  EXPECT_FALSE(s.ok()) << body;
  EXPECT_EQ(s.code(), kiln::StatusCode::kInvalidArgument);
  return s.message();
}

json RoundTrip(const kiln::Tensor& t) {
  return OutputsToJson({{"y", t}})["outputs"]["y"];
}

TEST(TensorJson, F32KeepsEveryValueExactlyAndSpellsNonFinite) {
  json data = {0.1, -2.5, 3, 1e-40, 3.4028234663852886e38, "NaN", "Infinity", "-Infinity"};
  kiln::Tensor t = ParseOne("f32", {2, 4}, data);
  ASSERT_EQ(t.dtype(), kiln::DType::F32);
  EXPECT_EQ(t.dims(), (std::vector<int64_t>{2, 4}));
  const float* v = t.data_as<float>();
  EXPECT_EQ(v[0], 0.1f);
  EXPECT_EQ(v[2], 3.0f);
  EXPECT_EQ(v[3], 1e-40f);  // a subnormal survives
  EXPECT_TRUE(std::isnan(v[5]));
  EXPECT_EQ(v[6], std::numeric_limits<float>::infinity());
  json back = RoundTrip(t);
  EXPECT_EQ(back["dtype"], "f32");
  EXPECT_EQ(back["shape"], json({2, 4}));
  EXPECT_EQ(back["data"][0].get<float>(), 0.1f);
  EXPECT_EQ(back["data"][5], "NaN");
  EXPECT_EQ(back["data"][6], "Infinity");
  EXPECT_EQ(back["data"][7], "-Infinity");
}

TEST(TensorJson, F16AndBf16RoundToNearestEven) {
  // binary16: 1 = 0x3c00; 65504 the largest; 65520 overflows to inf;
  // 2^-24 the smallest subnormal; 1 + 2^-11 ties to even (1).
  kiln::Tensor h = ParseOne("f16", {7}, {1.0, -2.0, 65504.0, 65520.0, 5.960464477539063e-08,
                                         1.00048828125, 1.00146484375});
  const uint16_t* hv = h.data_as<uint16_t>();
  EXPECT_EQ(hv[0], 0x3c00);
  EXPECT_EQ(hv[1], 0xc000);
  EXPECT_EQ(hv[2], 0x7bff);
  EXPECT_EQ(hv[3], 0x7c00);
  EXPECT_EQ(hv[4], 0x0001);
  EXPECT_EQ(hv[5], 0x3c00);  // tie, even below
  EXPECT_EQ(hv[6], 0x3c02);  // 1 + 3 * 2^-11: tie, even above
  json back = RoundTrip(h);
  EXPECT_EQ(back["data"][2].get<double>(), 65504.0);
  EXPECT_EQ(back["data"][3], "Infinity");
  EXPECT_EQ(back["data"][4].get<double>(), 5.960464477539063e-08);

  // bfloat16: 1 = 0x3f80; 1 + 2^-8 ties to even (1); 1 + 3 * 2^-8 up.
  kiln::Tensor b = ParseOne("bf16", {3}, {1.0, 1.00390625, 1.01171875});
  const uint16_t* bv = b.data_as<uint16_t>();
  EXPECT_EQ(bv[0], 0x3f80);
  EXPECT_EQ(bv[1], 0x3f80);
  EXPECT_EQ(bv[2], 0x3f82);
  EXPECT_EQ(RoundTrip(b)["data"][2].get<double>(), 1.015625);
}

TEST(TensorJson, IntegersMustBeIntegralAndInRange) {
  kiln::Tensor t = ParseOne("i8", {4}, {-128, 127, 3.0, 0});
  EXPECT_EQ(t.data_as<int8_t>()[0], -128);
  EXPECT_EQ(t.data_as<int8_t>()[2], 3);
  kiln::Tensor u = ParseOne("u64", {1}, {18446744073709551615ull});
  EXPECT_EQ(u.data_as<uint64_t>()[0], 18446744073709551615ull);
  EXPECT_EQ(RoundTrip(u)["data"][0].get<uint64_t>(), 18446744073709551615ull);
  kiln::Tensor l = ParseOne("i64", {1}, {-9007199254740993ll});  // not a double
  EXPECT_EQ(l.data_as<int64_t>()[0], -9007199254740993ll);

  EXPECT_NE(ErrorOf(Request("i8", {1}, {128})).find("input 'x': data[0] is 128, not an integer"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Request("u8", {1}, {-1})).find("data[0] is -1"), std::string::npos);
  EXPECT_NE(ErrorOf(Request("i32", {1}, {1.5})).find("data[0] is 1.5"), std::string::npos);
  EXPECT_NE(ErrorOf(Request("i32", {1}, {"7"})).find("data[0] is \"7\""), std::string::npos);
  // 2^63 as a double is one past i64's range; 2^64 one past u64's.
  EXPECT_NE(ErrorOf(Request("i64", {1}, {9223372036854775808.0})).find("data[0]"), std::string::npos);
  EXPECT_NE(ErrorOf(Request("u64", {1}, {18446744073709551616.0})).find("data[0]"), std::string::npos);
  kiln::Tensor edge = ParseOne("i64", {1}, {-9223372036854775808.0});
  EXPECT_EQ(edge.data_as<int64_t>()[0], std::numeric_limits<int64_t>::min());
}

TEST(TensorJson, FloatsBeyondTheDtypesRangeAreRefused) {
  EXPECT_EQ(ErrorOf(Request("f32", {2}, {1.0, 1e39})),
            "input 'x': data[1] is 1e+39, not a number in the dtype's range (or \"NaN\", "
            "\"Infinity\", \"-Infinity\") for dtype f32");
  EXPECT_NE(ErrorOf(Request("bf16", {1}, {-1e39})).find("data[0] is -1e+39"), std::string::npos);
  // f64 takes any JSON number.
  EXPECT_EQ(ParseOne("f64", {1}, {1e300}).data_as<double>()[0], 1e300);
}

TEST(TensorJson, BoolIsTrueOrFalse) {
  kiln::Tensor t = ParseOne("bool", {2}, {true, false});
  EXPECT_EQ(t.data_as<uint8_t>()[0], 1);
  EXPECT_EQ(t.data_as<uint8_t>()[1], 0);
  EXPECT_EQ(RoundTrip(t)["data"], json({true, false}));
  EXPECT_NE(ErrorOf(Request("bool", {1}, {1})).find("not true or false"), std::string::npos);
}

TEST(TensorJson, ShapesAndCounts) {
  // A zero-sized dim means no values.
  kiln::Tensor empty = ParseOne("f32", {0, 3}, json::array());
  EXPECT_EQ(empty.element_count(), 0);
  kiln::Tensor scalar = ParseOne("f32", json::array(), {2.5});
  EXPECT_EQ(scalar.dims().size(), 0u);
  EXPECT_EQ(scalar.data_as<float>()[0], 2.5f);

  EXPECT_EQ(ErrorOf(Request("f32", {2, 2}, {1, 2, 3})),
            "input 'x': shape [2,2] f32 needs 4 values, \"data\" has 3");
  // The count saturates instead of wrapping to a small number.
  EXPECT_EQ(ErrorOf(Request("f32", {4294967296ll, 4294967296ll, 16}, {1})),
            "input 'x': shape [4294967296,4294967296,16] f32 needs too many values, \"data\" has 1");
  EXPECT_NE(ErrorOf(Request("f32", {2, -1}, {1, 2})).find("shape[1] is -1, not a size"), std::string::npos);
  EXPECT_NE(ErrorOf(Request("f32", {2.5}, {1, 2})).find("shape[0] is 2.5"), std::string::npos);
  EXPECT_NE(ErrorOf(Request("float", {1}, {1})).find("unknown dtype \"float\" (one of f32, f16, bf16"),
            std::string::npos);
}

TEST(TensorJson, RequestStructure) {
  EXPECT_EQ(ErrorOf("{").rfind("malformed JSON: ", 0), 0u);
  EXPECT_NE(ErrorOf("[]").find("an \"inputs\" object"), std::string::npos);
  EXPECT_NE(ErrorOf(R"({"input": {}})").find("an \"inputs\" object"), std::string::npos);
  EXPECT_EQ(ErrorOf(R"({"inputs": {"x": [1, 2]}})"),
            "input 'x': expected an object with \"dtype\", \"shape\" and \"data\"");
  EXPECT_EQ(ErrorOf(R"({"inputs": {"x": {"dtype": "f32", "data": []}}})"), "input 'x': missing \"shape\"");
  // Several inputs keep their names; order is the runtime's business.
  std::vector<kiln::NamedTensor> inputs;
  ASSERT_TRUE(ParseInferRequest(
                  R"({"inputs": {"b": {"dtype": "i64", "shape": [1], "data": [7]},
                                  "a": {"dtype": "f32", "shape": [1], "data": [0.5]}}})",
                  &inputs)
                  .ok());
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].name == "a" ? inputs[1].name : inputs[0].name, "b");
}

TEST(TensorJson, ErrorBodyShape) {
  json body = json::parse(ErrorBody("NOT_FOUND", "no input named 'y'"));
  EXPECT_EQ(body, json({{"error", {{"code", "NOT_FOUND"}, {"message", "no input named 'y'"}}}}));
}

}  // namespace
}  // namespace kiln_service
