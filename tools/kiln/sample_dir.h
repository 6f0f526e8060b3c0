// sample_dir.h - input samples for a model read from a directory, in the
// layouts kilnc --calibration and kiln compare --inputs accept:
//
//   DIR/<sample>/input_N.pb   ONNX backend-test layout: one sub-folder per
//                             sample (test_data_set_0, ...), TensorProto N
//                             for input N (or for the input its name field
//                             names); output_N.pb files there are ignored
//   DIR/<sample>/NAME.npy     one .npy per input, named for the input
//                             (characters outside [A-Za-z0-9._-] as '_')
//   DIR/input_N.pb, NAME.npy  no sub-folders: DIR itself is one sample
//
// Sub-folders are samples in name order.
#ifndef KILN_TOOLS_KILN_SAMPLE_DIR_H_
#define KILN_TOOLS_KILN_SAMPLE_DIR_H_

#include <string>
#include <vector>

#include "kiln/runtime.h"

namespace kiln::tools {

// The sample folders of `dir` (sorted), or {dir} when it has none. Fails
// when `dir` is not a readable directory.
Status ListSampleFolders(const std::string& dir, std::vector<std::string>* folders);

// One tensor per model input, in `inputs` order, from `folder`. Fails,
// naming the folder and the input, when an input has no file or two, when a
// file's dtype or shape differs from the input's, or when a .npy file names
// no input.
Status ReadSample(const std::string& folder, const std::vector<TensorInfo>& inputs,
                  std::vector<Tensor>* out);

// Seeded random values for every input (FillRandom); sample k with seed s
// uses the values `kiln run --seed s+k` would.
Status RandomSample(const std::vector<TensorInfo>& inputs, uint64_t seed, std::vector<Tensor>* out);

}  // namespace kiln::tools

#endif  // KILN_TOOLS_KILN_SAMPLE_DIR_H_
