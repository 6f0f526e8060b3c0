//===- PirJsonReader.h - Reading Paddle PIR model.json files ----*- C++ -*-===//
//
// Paddle 3's default inference format: `paddle.jit.save` writes the PIR
// program as compact JSON (Paddle's pir/serialize_deserialize; facts checked
// on files paddlepaddle 3.3.1 writes):
//
//   {"base_code": {"magic": "pir", "version": 4, "trainable": true},
//    "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0",
//      "args": [], "ops": [OP...]}]}]}}
//
//   OP    {"#": "1.conv2d", "I": [{"%": 9}, ...], "O": [VALUE...],
//          "A": [{"N": name, "AT": ATTR}...], "OA": [...], "regions": [...]}
//         The name is DIALECT-ID.op; dialect ids: 0 builtin, 1 pd_op, 2 cf,
//         3 custom_op, 4 pd_dist. "%" 0 is a null value (an absent
//         optional operand). "OA" (stop_gradient, persistable) is training
//         state and is ignored; "regions" means control flow (rejected).
//   the parameter op, compressed: {"#": "p", "A": [is_distributed,
//          is_parameter, need_clip, "parameter_name"], "O": VALUE,
//          "OA": [persistable, stop_gradient, trainable]}; only persistable
//          parameters are in .pdiparams (paddle.nn.LSTM's dropout state is
//          a non-persistable one). The uncompressed form, "0.parameter"
//          with a `parameter_name` attribute and a `persistable` entry in
//          "OA", is read the same way.
//   VALUE {"%": id, "TT": TYPE}
//   TYPE  {"#": "0.t_dtensor", "D": [ELEMENT, dims, layout, lod, offset]}
//         | {"#": "0.t_vec", "D": [TYPE...]} | {"#": "NULL"};
//         ELEMENT {"#": "0.t_f32"} (t_f32 t_f64 t_f16 t_bf16 t_i8 t_ui8
//         t_i16 t_i32 t_i64 t_bool)
//   ATTR  {"#": "0.a_i32", "D": 1}: builtin a_bool a_i32 a_i64 a_index
//         a_f32 a_f64 a_str a_tensorname a_array (D: [ATTR...]) a_type
//         (D: TYPE); pd_op a_intarray (D: [ints]) a_dtype (D: "float32")
//         a_place (D: [type, device id, device type]) a_layout (D: "NCHW")
//         a_scalar (D: ["float32", value]).
//
// What the reader fills in the Program (see PaddleProgram.h): ops with their
// full names ("pd_op.conv2d", "builtin.combine") and positional slots "0",
// "1", ... (an absent optional operand is a slot with no values); values
// named "%<id>", except that `builtin.parameter` results take the parameter
// name and `pd_op.data` results their `name`; those two ops and
// `pd_op.fetch` are dropped (feeds in data order, fetches by `col`). vars:
// every dense tensor value (persistable parameters persistable); vector values
// (builtin.combine results, t_vec) get no Var. Attributes map onto AttrValue
// as: a_bool -> bool; a_i32, a_i64, a_index -> int64_t; a_f32, a_f64 ->
// double; a_str, a_tensorname, a_dtype, a_layout -> string; a_intarray ->
// vector<int64_t>; a_array -> the vector of its elements' kind (an empty
// array is vector<int64_t>); a_scalar -> bool, int64_t or double by its
// dtype; a_place -> vector<int64_t>{type, device id}; a_type -> the dtype
// name ("float32"). Paddle writes NaN and infinities as JSON null; a null
// float is reported, not guessed.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PADDLE_PIRJSONREADER_H
#define KILN_COMPILER_PADDLE_PIRJSONREADER_H

#include "compiler/paddle/PaddleProgram.h"

#include <string>

namespace kiln::paddle {

/// Reads the PIR JSON program at `path` into `out` (format, modelPath, ops,
/// vars, feeds, fetches; not the parameters). Returns false and sets
/// `error`, naming the file and the op at fault, for an unreadable file,
/// text that is not JSON or not a PIR program (magic), more than one block,
/// control flow (regions), unknown dialect ids, type or attribute codes,
/// operands that refer to no earlier value, and fetch columns that are
/// missing or repeated.
bool readPirJson(const std::string &path, Program &out, std::string &error);

/// Same, from text in memory; `path` is used in messages.
bool parsePirJson(const std::string &text, const std::string &path,
                  Program &out, std::string &error);

} // namespace kiln::paddle

#endif // KILN_COMPILER_PADDLE_PIRJSONREADER_H
