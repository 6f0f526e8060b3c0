//===- PirJsonReader.cpp - Reading Paddle PIR model.json files ------------===//

#include "compiler/paddle/PirJsonReader.h"

#include "compiler/paddle/ParamsReader.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace kiln::paddle {

namespace {

using Json = nlohmann::json;

/// A message for the reader's caller; thrown inside the reader only, caught
/// by parsePirJson.
struct ReadError {
  std::string message;
};

[[noreturn]] void fail(const std::string &message) { throw ReadError{message}; }

/// Paddle's dialect ids in compressed op, type and attribute names
/// (DialectIdMap in Paddle's serialize_deserialize/src/schema.cc).
std::string dialectName(const std::string &id) {
  if (id == "0")
    return "builtin";
  if (id == "1")
    return "pd_op";
  if (id == "2")
    return "cf";
  if (id == "3")
    return "custom_op";
  if (id == "4")
    return "pd_dist";
  return "";
}

const Json &member(const Json &object, const char *key,
                   const std::string &what) {
  if (!object.is_object())
    fail(what + " is not a JSON object");
  auto it = object.find(key);
  if (it == object.end())
    fail(what + " has no \"" + key + "\"");
  return *it;
}

const std::string &stringOf(const Json &value, const std::string &what) {
  if (!value.is_string())
    fail(what + " is not a string");
  return value.get_ref<const std::string &>();
}

int64_t intOf(const Json &value, const std::string &what) {
  if (value.is_number_integer())
    return value.get<int64_t>();
  if (value.is_boolean())
    return value.get<bool>() ? 1 : 0;
  fail(what + " is not an integer");
}

double floatOf(const Json &value, const std::string &what) {
  if (value.is_number())
    return value.get<double>();
  if (value.is_null())
    fail(what + " is null (Paddle writes NaN and infinities as null; the "
                "value is lost)");
  fail(what + " is not a number");
}

/// "0.t_f32" -> "t_f32" after checking the dialect id is `dialect`.
std::string codeIn(const std::string &id, const std::string &dialect,
                   const std::string &what) {
  size_t dot = id.find('.');
  if (dot == std::string::npos || dialectName(id.substr(0, dot)).empty())
    fail(what + " has unknown code '" + id + "'");
  if (dialectName(id.substr(0, dot)) != dialect)
    fail(what + " has code '" + id + "' of dialect " +
         dialectName(id.substr(0, dot)) + ", expected " + dialect);
  return id.substr(dot + 1);
}

bool elementType(const std::string &code, DType &dtype) {
  static const std::pair<const char *, DType> table[] = {
      {"t_f32", DType::F32},   {"t_f64", DType::F64}, {"t_f16", DType::F16},
      {"t_bf16", DType::BF16}, {"t_i8", DType::I8},   {"t_ui8", DType::U8},
      {"t_i16", DType::I16},   {"t_i32", DType::I32}, {"t_i64", DType::I64},
      {"t_bool", DType::Bool},
  };
  for (const auto &[name, value] : table)
    if (code == name) {
      dtype = value;
      return true;
    }
  return false;
}

/// The element type of an element-type json {"#": "0.t_f32"}.
DType elementOf(const Json &type, const std::string &what) {
  const std::string &id = stringOf(member(type, "#", what), what + " type id");
  std::string code = codeIn(id, "builtin", what);
  DType dtype;
  if (!elementType(code, dtype))
    fail(what + " has element type '" + id +
         "', which Kiln does not support (or does not know)");
  return dtype;
}

/// A value's type. Returns true and fills dtype/dims for a dense tensor,
/// false for a vector or null type; anything else is an error.
bool tensorType(const Json &type, DType &dtype, std::vector<int64_t> &dims,
                const std::string &what) {
  const std::string &id = stringOf(member(type, "#", what), what + " type id");
  if (id == "NULL")
    return false;
  size_t dot = id.find('.');
  std::string code = dot == std::string::npos ? id : id.substr(dot + 1);
  if (dot != std::string::npos && dialectName(id.substr(0, dot)).empty())
    fail(what + " has a type of unknown dialect id: '" + id + "'");
  if (id == "0.t_vec")
    return false;
  if (id != "0.t_dtensor")
    fail(what + " has type '" + id +
         "', which is not supported (dense tensors only)");
  const Json &data = member(type, "D", what + " type");
  if (!data.is_array() || data.size() < 2 || !data[1].is_array())
    fail(what + " has a malformed dense tensor type");
  dtype = elementOf(data[0], what);
  dims.clear();
  for (const Json &dim : data[1])
    dims.push_back(intOf(dim, what + " dimension"));
  return true;
}

AttrValue attrValue(const Json &attr, const std::string &what);

/// Elements of an a_array, as one homogeneous vector.
AttrValue arrayValue(const Json &data, const std::string &what) {
  if (!data.is_array())
    fail(what + " is not an array");
  std::vector<AttrValue> elements;
  for (const Json &element : data) {
    // Checked before recursing, so that no file can nest deeply enough to
    // exhaust the stack.
    if (element.is_object() && element.contains("#") &&
        element["#"] == "0.a_array")
      fail(what + " nests arrays, which is not supported");
    elements.push_back(attrValue(element, what + " element"));
  }
  if (elements.empty())
    return std::vector<int64_t>{};
  size_t kind = elements.front().index();
  for (const AttrValue &element : elements)
    if (element.index() != kind)
      fail(what + " mixes element kinds");
  if (std::holds_alternative<bool>(elements.front())) {
    std::vector<bool> values;
    for (const AttrValue &element : elements)
      values.push_back(std::get<bool>(element));
    return values;
  }
  if (std::holds_alternative<int64_t>(elements.front())) {
    std::vector<int64_t> values;
    for (const AttrValue &element : elements)
      values.push_back(std::get<int64_t>(element));
    return values;
  }
  if (std::holds_alternative<double>(elements.front())) {
    std::vector<double> values;
    for (const AttrValue &element : elements)
      values.push_back(std::get<double>(element));
    return values;
  }
  if (std::holds_alternative<std::string>(elements.front())) {
    std::vector<std::string> values;
    for (const AttrValue &element : elements)
      values.push_back(std::get<std::string>(element));
    return values;
  }
  fail(what + " nests arrays, which is not supported");
}

AttrValue scalarValue(const Json &data, const std::string &what) {
  if (!data.is_array() || data.size() < 2)
    fail(what + " is a malformed scalar");
  const std::string &dtype = stringOf(data[0], what + " dtype");
  if (dtype == "bool")
    return data[1].is_boolean() ? data[1].get<bool>()
                                : intOf(data[1], what) != 0;
  if (dtype == "float32" || dtype == "float64")
    return floatOf(data[1], what);
  if (dtype == "int8" || dtype == "uint8" || dtype == "int16" ||
      dtype == "int32" || dtype == "int64" || dtype == "uint32" ||
      dtype == "uint64")
    return intOf(data[1], what);
  fail(what + " is a scalar of dtype '" + dtype + "', which is not supported");
}

AttrValue attrValue(const Json &attr, const std::string &what) {
  const std::string &id = stringOf(member(attr, "#", what), what + " kind");
  size_t dot = id.find('.');
  std::string dialect =
      dot == std::string::npos ? "" : dialectName(id.substr(0, dot));
  if (dialect.empty())
    fail(what + " has unknown attribute code '" + id + "'");
  std::string code = id.substr(dot + 1);
  const Json &data = member(attr, "D", what);
  if (dialect == "builtin") {
    if (code == "a_bool") {
      if (!data.is_boolean())
        fail(what + " is not a boolean");
      return data.get<bool>();
    }
    if (code == "a_i32" || code == "a_i64" || code == "a_index")
      return intOf(data, what);
    if (code == "a_f32" || code == "a_f64")
      return floatOf(data, what);
    if (code == "a_str" || code == "a_tensorname")
      return stringOf(data, what);
    if (code == "a_array")
      return arrayValue(data, what);
    if (code == "a_type") {
      DType dtype;
      std::vector<int64_t> dims;
      const std::string &typeId =
          stringOf(member(data, "#", what), what + " type id");
      if (elementType(codeIn(typeId, "builtin", what), dtype))
        return std::string(dtypeName(dtype));
      fail(what + " is a type attribute of '" + typeId +
           "', which is not supported");
    }
  } else if (dialect == "pd_op") {
    if (code == "a_intarray") {
      if (!data.is_array())
        fail(what + " is not an int array");
      std::vector<int64_t> values;
      for (const Json &value : data)
        values.push_back(intOf(value, what));
      return values;
    }
    if (code == "a_dtype" || code == "a_layout")
      return stringOf(data, what);
    if (code == "a_place") {
      if (!data.is_array() || data.size() < 2)
        fail(what + " is a malformed place");
      return std::vector<int64_t>{intOf(data[0], what), intOf(data[1], what)};
    }
    if (code == "a_scalar")
      return scalarValue(data, what);
  }
  fail(what + " has attribute code '" + id +
       "', which Kiln does not support (or does not know)");
}

/// Reads a whole program; throws ReadError.
class ProgramReader {
public:
  ProgramReader(const std::string &path, Program &program)
      : path(path), program(program) {}

  void read(const Json &root) {
    if (!root.is_object())
      fail("the top level is not a JSON object");
    const Json &base = member(root, "base_code", "the file");
    const Json *magic =
        base.is_object() && base.contains("magic") ? &base["magic"] : nullptr;
    if (!magic || !magic->is_string() || magic->get<std::string>() != "pir")
      fail("not a PIR program (base_code.magic is not \"pir\")");
    intOf(member(base, "version", "base_code"), "base_code.version");

    const Json &regions =
        member(member(root, "program", "the file"), "regions", "the program");
    if (!regions.is_array() || regions.size() != 1)
      fail("the program must have exactly one region");
    const Json &blocks = member(regions[0], "blocks", "region 0");
    if (!blocks.is_array() || blocks.size() != 1)
      fail("region 0 must have exactly one block");
    const Json &block = blocks[0];
    if (block.contains("args") && !block["args"].empty())
      fail("block 0 has arguments, which an inference program does not");
    const Json &ops = member(block, "ops", "block 0");
    if (!ops.is_array())
      fail("block 0's \"ops\" is not an array");
    for (size_t index = 0; index < ops.size(); ++index)
      readOp(ops[index], index);

    for (auto &[col, name] : fetchByColumn)
      program.fetches.push_back(name);
    for (size_t col = 0; col < program.fetches.size(); ++col)
      if (!fetchByColumn.count(static_cast<int64_t>(col)))
        fail("no pd_op.fetch for column " + std::to_string(col));
    if (program.fetches.empty())
      fail("the program has no pd_op.fetch (no outputs)");
  }

private:
  std::string valueName(int64_t id, const std::string &what) {
    auto it = names.find(id);
    if (it == names.end())
      fail(what + " refers to value %" + std::to_string(id) +
           ", which no earlier op defines");
    return it->second;
  }

  void define(int64_t id, const std::string &name, const std::string &what) {
    if (id == 0)
      return;
    if (!names.emplace(id, name).second)
      fail(what + " defines value %" + std::to_string(id) + " twice");
  }

  void addVar(const std::string &name, const Json &type, bool persistable,
              const std::string &what) {
    Var var;
    var.name = name;
    var.persistable = persistable;
    if (!tensorType(type, var.dtype, var.dims, what))
      return;
    if (!program.vars.emplace(name, std::move(var)).second)
      fail(what + " declares '" + name + "' twice");
  }

  void readParameter(const Json &op, const std::string &where) {
    const Json &attrs = member(op, "A", where);
    if (!attrs.is_array() || attrs.size() < 4)
      fail(where + ": a parameter op needs [is_distributed, is_parameter, "
                   "need_clip, name] in \"A\"");
    const std::string &name = stringOf(attrs[3], where + " parameter name");
    const Json &result = member(op, "O", where);
    int64_t id = intOf(member(result, "%", where + " result"), where);
    std::string what = where + " (parameter '" + name + "')";
    // "OA" is [persistable, stop_gradient, trainable] (each 1 when the
    // file has no "OA"). A non-persistable parameter (the dropout state of
    // paddle.nn.LSTM) is not in .pdiparams.
    bool persistable = true;
    if (op.contains("OA") && op["OA"].is_array() && !op["OA"].empty())
      persistable = intOf(op["OA"][0], what + " persistable flag") != 0;
    define(id, name, what);
    addVar(name, member(result, "TT", what), persistable, what);
  }

  void readOp(const Json &json, size_t index) {
    std::string where = "op #" + std::to_string(index);
    const std::string &compressed =
        stringOf(member(json, "#", where), where + " name");
    if (compressed == "p") {
      readParameter(json, where + " (builtin.parameter)");
      return;
    }
    size_t dot = compressed.find('.');
    std::string dialect =
        dot == std::string::npos ? "" : dialectName(compressed.substr(0, dot));
    if (dialect.empty())
      fail(where + " (" + compressed + ") has an unknown dialect id");
    Op op;
    op.type = dialect + "." + compressed.substr(dot + 1);
    where += " (" + op.type + ") in block 0";
    if (json.contains("regions"))
      fail(where + ": has regions: control flow is not supported");

    const Json &operands = member(json, "I", where);
    const Json &results = member(json, "O", where);
    if (!operands.is_array() || !results.is_array())
      fail(where + ": \"I\" and \"O\" must be arrays");

    for (size_t i = 0; i < operands.size(); ++i) {
      std::string what = where + ": operand " + std::to_string(i);
      int64_t id = intOf(member(operands[i], "%", what), what);
      Slot slot{std::to_string(i), {}};
      if (id != 0)
        slot.values.push_back(valueName(id, what));
      op.inputs.push_back(std::move(slot));
    }

    if (json.contains("A")) {
      const Json &attrs = json["A"];
      if (!attrs.is_array())
        fail(where + ": \"A\" is not an array");
      for (const Json &attr : attrs) {
        const std::string &name =
            stringOf(member(attr, "N", where + ": attribute"),
                     where + ": attribute name");
        op.attrs[name] =
            attrValue(member(attr, "AT", where + ": attribute '" + name + "'"),
                      where + ": attribute '" + name + "'");
      }
    }

    if (op.type == "builtin.parameter") {
      // The uncompressed form of "p" (files written without the
      // compression): the name is an attribute, persistable an "OA" entry.
      auto it = op.attrs.find("parameter_name");
      if (it == op.attrs.end() ||
          !std::holds_alternative<std::string>(it->second))
        fail(where + ": builtin.parameter needs a string 'parameter_name'");
      if (results.size() != 1)
        fail(where + ": builtin.parameter needs one result");
      const std::string &name = std::get<std::string>(it->second);
      std::string what = where + " (parameter '" + name + "')";
      bool persistable = true;
      if (json.contains("OA") && json["OA"].is_array())
        for (const Json &attr : json["OA"])
          if (attr.is_object() && attr.value("N", "") == "persistable") {
            AttrValue flags = attrValue(member(attr, "AT", what), what);
            if (auto *list = std::get_if<std::vector<bool>>(&flags))
              persistable = list->empty() || list->front();
            else if (auto *flag = std::get_if<bool>(&flags))
              persistable = *flag;
          }
      define(intOf(member(results[0], "%", what), what), name, what);
      addVar(name, member(results[0], "TT", what), persistable, what);
      return;
    }
    if (op.type == "pd_op.data") {
      auto it = op.attrs.find("name");
      if (it == op.attrs.end() ||
          !std::holds_alternative<std::string>(it->second))
        fail(where + ": pd_op.data needs a string 'name'");
      const std::string &name = std::get<std::string>(it->second);
      if (results.size() != 1)
        fail(where + ": pd_op.data needs one result");
      std::string what = where + " ('" + name + "')";
      define(intOf(member(results[0], "%", what), what), name, what);
      addVar(name, member(results[0], "TT", what), false, what);
      program.feeds.push_back(name);
      return;
    }
    if (op.type == "pd_op.fetch") {
      if (op.inputs.size() != 1 || op.inputs[0].values.empty())
        fail(where + ": pd_op.fetch needs one operand");
      auto it = op.attrs.find("col");
      if (it == op.attrs.end() || !std::holds_alternative<int64_t>(it->second))
        fail(where + ": pd_op.fetch needs an integer 'col'");
      int64_t col = std::get<int64_t>(it->second);
      if (col < 0 || !fetchByColumn.emplace(col, op.inputs[0].values[0]).second)
        fail(where + ": fetch column " + std::to_string(col) +
             " is negative or taken twice");
      return;
    }

    for (size_t i = 0; i < results.size(); ++i) {
      std::string what = where + ": result " + std::to_string(i);
      int64_t id = intOf(member(results[i], "%", what), what);
      Slot slot{std::to_string(i), {}};
      if (id != 0) {
        std::string name = "%" + std::to_string(id);
        define(id, name, what);
        addVar(name, member(results[i], "TT", what), false, what);
        slot.values.push_back(name);
        if (op.where.empty())
          op.where = where + ", output " + name;
      }
      op.outputs.push_back(std::move(slot));
    }
    if (op.where.empty())
      op.where = where;
    program.ops.push_back(std::move(op));
  }

  const std::string &path;
  Program &program;
  std::map<int64_t, std::string> names;
  std::map<int64_t, std::string> fetchByColumn;
};

} // namespace

bool parsePirJson(const std::string &text, const std::string &path,
                  Program &out, std::string &error) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::exception &e) {
    error = path + ": not valid JSON: " + e.what();
    return false;
  }
  Program program;
  program.format = Format::PirJson;
  program.modelPath = path;
  try {
    ProgramReader(path, program).read(root);
  } catch (const ReadError &e) {
    error = path + ": " + e.message;
    return false;
  } catch (const Json::exception &e) {
    error = path + ": malformed PIR program: " + e.what();
    return false;
  }
  out = std::move(program);
  return true;
}

bool readPirJson(const std::string &path, Program &out, std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot open the model file";
    return false;
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) {
    error = path + ": cannot read the model file";
    return false;
  }
  return parsePirJson(text.str(), path, out, error);
}

} // namespace kiln::paddle
