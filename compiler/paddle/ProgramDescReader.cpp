//===- ProgramDescReader.cpp - Reading legacy Paddle .pdmodel files -------===//

#include "compiler/paddle/ProgramDescReader.h"

#include "compiler/paddle/ParamsReader.h"
#include "compiler/paddle/paddle_framework.pb.h"

#include <fstream>
#include <sstream>

namespace kiln::paddle {

namespace {

// VarType.Type codes of variable kinds.
constexpr int kDenseTensor = 7;
constexpr int kFeedMinibatch = 9;
constexpr int kFetchList = 10;

const char *varKindName(int code) {
  switch (code) {
  case 8:
    return "SELECTED_ROWS";
  case 11:
    return "STEP_SCOPES";
  case 12:
    return "LOD_RANK_TABLE";
  case 13:
    return "DENSE_TENSOR_ARRAY";
  case 14:
    return "PLACE_LIST";
  case 15:
    return "READER";
  case 17:
    return "RAW";
  case 18:
    return "TUPLE";
  case 25:
    return "STRING";
  case 26:
    return "STRINGS";
  case 27:
    return "VOCAB";
  case 28:
    return "FEED_LIST";
  case 29:
    return "PSTRING";
  case 30:
    return "SPARSE_COO";
  case 31:
    return "SPARSE_CSR";
  default:
    return nullptr;
  }
}

// AttrType codes.
enum AttrKind {
  kInt = 0,
  kFloat = 1,
  kString = 2,
  kInts = 3,
  kFloats = 4,
  kStrings = 5,
  kBoolean = 6,
  kBooleans = 7,
  kBlock = 8,
  kLong = 9,
  kBlocks = 10,
  kLongs = 11,
  kFloat64s = 12,
  kVar = 13,
  kVars = 14,
  kFloat64 = 15,
  kScalar = 16,
  kScalars = 17,
};

// Scalar.Type codes.
enum ScalarKind { kScalarBool = 1, kScalarLong = 2, kScalarDouble = 3 };

bool scalarValue(const proto::Scalar &scalar, AttrValue &value,
                 std::string &why) {
  switch (scalar.type()) {
  case kScalarBool:
    value = scalar.b();
    return true;
  case kScalarLong:
    value = static_cast<int64_t>(scalar.i());
    return true;
  case kScalarDouble:
    value = scalar.r();
    return true;
  case 4:
    why = "a complex scalar is not supported";
    return false;
  default:
    why = "unknown scalar kind " + std::to_string(scalar.type());
    return false;
  }
}

bool attrValue(const proto::OpDesc::Attr &attr, AttrValue &value,
               std::string &why) {
  switch (attr.type()) {
  case kInt:
    value = static_cast<int64_t>(attr.i());
    return true;
  case kLong:
    value = static_cast<int64_t>(attr.l());
    return true;
  case kFloat:
    value = static_cast<double>(attr.f());
    return true;
  case kFloat64:
    value = attr.float64();
    return true;
  case kString:
    value = attr.s();
    return true;
  case kBoolean:
    value = attr.b();
    return true;
  case kInts:
    value = std::vector<int64_t>(attr.ints().begin(), attr.ints().end());
    return true;
  case kLongs:
    value = std::vector<int64_t>(attr.longs().begin(), attr.longs().end());
    return true;
  case kFloats:
    value = std::vector<double>(attr.floats().begin(), attr.floats().end());
    return true;
  case kFloat64s:
    value = std::vector<double>(attr.float64s().begin(), attr.float64s().end());
    return true;
  case kStrings:
    value =
        std::vector<std::string>(attr.strings().begin(), attr.strings().end());
    return true;
  case kBooleans:
    value = std::vector<bool>(attr.bools().begin(), attr.bools().end());
    return true;
  case kScalar:
    return scalarValue(attr.scalar(), value, why);
  case kScalars: {
    std::vector<bool> bools;
    std::vector<int64_t> longs;
    std::vector<double> doubles;
    int kind = attr.scalars_size() ? attr.scalars(0).type() : kScalarDouble;
    for (const proto::Scalar &scalar : attr.scalars()) {
      if (scalar.type() != kind) {
        why = "a SCALARS list mixes scalar kinds";
        return false;
      }
      AttrValue element;
      if (!scalarValue(scalar, element, why))
        return false;
      if (kind == kScalarBool)
        bools.push_back(std::get<bool>(element));
      else if (kind == kScalarLong)
        longs.push_back(std::get<int64_t>(element));
      else
        doubles.push_back(std::get<double>(element));
    }
    if (kind == kScalarBool)
      value = std::move(bools);
    else if (kind == kScalarLong)
      value = std::move(longs);
    else
      value = std::move(doubles);
    return true;
  }
  case kBlock:
    why = "refers to block " + std::to_string(attr.block_idx()) +
          ": control flow (sub-blocks) is not supported";
    return false;
  case kBlocks:
    why = "refers to sub-blocks: control flow is not supported";
    return false;
  case kVar:
  case kVars:
    why = "is a variable reference (attribute kind " +
          std::to_string(attr.type()) + "), which is not supported";
    return false;
  default:
    why = "has unknown attribute kind " + std::to_string(attr.type());
    return false;
  }
}

/// The `col` attribute of a feed or fetch op, or -1 when it has none.
int64_t columnOf(const proto::OpDesc &op) {
  for (const auto &attr : op.attrs())
    if (attr.name() == "col")
      return attr.type() == kLong ? attr.l() : attr.i();
  return -1;
}

/// The single argument of slot `slot`, or "" when the slot is missing or
/// holds other than one argument.
std::string onlyArgument(
    const google::protobuf::RepeatedPtrField<proto::OpDesc::Var> &slots,
    const char *slot) {
  for (const auto &var : slots)
    if (var.parameter() == slot && var.arguments_size() == 1)
      return var.arguments(0);
  return "";
}

/// Places `name` at column `col` of `columns`, rejecting repeats.
bool placeColumn(std::vector<std::string> &columns, int64_t col,
                 const std::string &name) {
  if (col < 0 || col > 100000)
    return false;
  if (static_cast<size_t>(col) >= columns.size())
    columns.resize(col + 1);
  if (!columns[col].empty())
    return false;
  columns[col] = name;
  return true;
}

} // namespace

bool parseProgramDesc(const void *bytes, size_t size, const std::string &path,
                      Program &out, std::string &error) {
  proto::ProgramDesc program;
  if (size > static_cast<size_t>(INT32_MAX) ||
      !program.ParseFromArray(bytes, static_cast<int>(size))) {
    error = path + ": not a Paddle ProgramDesc (the protobuf does not parse)";
    return false;
  }
  if (program.blocks_size() == 0) {
    error = path + ": the ProgramDesc has no blocks";
    return false;
  }
  const proto::BlockDesc &block = program.blocks(0);

  Program result;
  result.format = Format::ProgramDesc;
  result.modelPath = path;

  for (const proto::VarDesc &desc : block.vars()) {
    const std::string &name = desc.name();
    auto fail = [&](const std::string &what) {
      error = path + ": variable '" + name + "' in block 0: " + what;
      return false;
    };
    int kind = desc.type().type();
    if (kind == kFeedMinibatch || kind == kFetchList)
      continue;
    if (kind != kDenseTensor) {
      const char *known = varKindName(kind);
      return fail("variable kind " +
                  (known
                       ? std::string(known) + " (" + std::to_string(kind) + ")"
                       : std::to_string(kind)) +
                  " is not supported (only dense tensors)");
    }
    if (!desc.type().has_dense_tensor() ||
        !desc.type().dense_tensor().has_tensor())
      return fail("a dense tensor variable without a TensorDesc");
    const auto &tensor = desc.type().dense_tensor().tensor();
    Var var;
    var.name = name;
    std::string why;
    if (!dtypeFromVarType(tensor.data_type(), var.dtype, why))
      return fail(why);
    var.dims.assign(tensor.dims().begin(), tensor.dims().end());
    var.persistable = desc.persistable();
    if (!result.vars.emplace(name, std::move(var)).second)
      return fail("declared twice");
  }

  for (int index = 0; index < block.ops_size(); ++index) {
    const proto::OpDesc &desc = block.ops(index);
    Op op;
    op.type = desc.type();
    op.where = "op #" + std::to_string(index) + " (" + op.type + ") in block 0";
    for (const auto &var : desc.outputs())
      if (var.arguments_size() > 0) {
        op.where += ", output " + var.arguments(0);
        break;
      }
    auto fail = [&](const std::string &what) {
      error = path + ": " + op.where + ": " + what;
      return false;
    };

    if (op.type == "feed" || op.type == "fetch") {
      bool feed = op.type == "feed";
      std::string name = onlyArgument(feed ? desc.outputs() : desc.inputs(),
                                      feed ? "Out" : "X");
      if (name.empty())
        return fail(feed ? "a feed op needs one 'Out' variable"
                         : "a fetch op needs one 'X' variable");
      int64_t col = columnOf(desc);
      if (!placeColumn(feed ? result.feeds : result.fetches, col, name))
        return fail("column " + std::to_string(col) +
                    " is missing, out of range or taken twice");
      continue;
    }

    for (const auto &var : desc.inputs())
      op.inputs.push_back(
          {var.parameter(), {var.arguments().begin(), var.arguments().end()}});
    for (const auto &var : desc.outputs())
      op.outputs.push_back(
          {var.parameter(), {var.arguments().begin(), var.arguments().end()}});
    for (const auto &attr : desc.attrs()) {
      if (attr.name() == "op_callstack")
        continue;
      AttrValue value;
      std::string why;
      if (!attrValue(attr, value, why))
        return fail("attribute '" + attr.name() + "' " + why);
      op.attrs[attr.name()] = std::move(value);
    }
    result.ops.push_back(std::move(op));
  }

  for (auto *columns : {&result.feeds, &result.fetches})
    for (size_t col = 0; col < columns->size(); ++col)
      if ((*columns)[col].empty()) {
        error = path + ": no " +
                (columns == &result.feeds ? std::string("feed")
                                          : std::string("fetch")) +
                " op for column " + std::to_string(col);
        return false;
      }
  if (result.fetches.empty()) {
    error = path + ": the program has no fetch ops (no outputs)";
    return false;
  }

  out = std::move(result);
  return true;
}

bool readProgramDesc(const std::string &path, Program &out,
                     std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot open the model file";
    return false;
  }
  std::ostringstream bytes;
  bytes << file.rdbuf();
  if (file.bad()) {
    error = path + ": cannot read the model file";
    return false;
  }
  const std::string data = bytes.str();
  return parseProgramDesc(data.data(), data.size(), path, out, error);
}

} // namespace kiln::paddle
