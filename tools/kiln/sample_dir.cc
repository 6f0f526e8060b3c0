#include "tools/kiln/sample_dir.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include "tools/kiln/tensor_files.h"

namespace kiln::tools {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Status ListEntries(const std::string& dir, std::vector<std::string>* names) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return Status(StatusCode::kNotFound, "cannot read directory '" + dir + "'");
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names->push_back(name);
  }
  ::closedir(d);
  std::sort(names->begin(), names->end());
  return Status::Ok();
}

// "input_12.pb" -> 12; -1 for any other name.
long InputIndex(const std::string& name) {
  if (name.rfind("input_", 0) != 0 || !EndsWith(name, ".pb")) return -1;
  std::string digits = name.substr(6, name.size() - 9);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
    return -1;
  return std::strtol(digits.c_str(), nullptr, 10);
}

std::string InputNames(const std::vector<TensorInfo>& inputs) {
  std::string names;
  for (const TensorInfo& info : inputs) names += (names.empty() ? "" : ", ") + info.name;
  return names;
}

}  // namespace

Status ListSampleFolders(const std::string& dir, std::vector<std::string>* folders) {
  if (!IsDirectory(dir)) return Status(StatusCode::kNotFound, "'" + dir + "' is not a directory");
  std::vector<std::string> names;
  Status s = ListEntries(dir, &names);
  if (!s.ok()) return s;
  folders->clear();
  for (const std::string& name : names)
    if (IsDirectory(dir + "/" + name)) folders->push_back(dir + "/" + name);
  if (folders->empty()) folders->push_back(dir);
  return Status::Ok();
}

Status ReadSample(const std::string& folder, const std::vector<TensorInfo>& inputs,
                  std::vector<Tensor>* out) {
  std::vector<std::string> names;
  Status s = ListEntries(folder, &names);
  if (!s.ok()) return s;
  std::vector<std::string> files(inputs.size());
  std::vector<Tensor> tensors(inputs.size());
  auto assign = [&](size_t input, const std::string& path, Tensor t) -> Status {
    if (!files[input].empty())
      return Status(StatusCode::kInvalidArgument, "sample '" + folder + "': input '" + inputs[input].name +
                                                      "' is given twice (" + files[input] + " and " + path + ")");
    files[input] = path;
    tensors[input] = std::move(t);
    return Status::Ok();
  };
  for (const std::string& name : names) {
    std::string path = folder + "/" + name;
    if (IsDirectory(path)) continue;
    long index = InputIndex(name);
    if (index >= 0) {
      Tensor t;
      std::string proto_name;
      if (!(s = ReadTensorFile(path, &t, &proto_name)).ok()) return s;
      // A name field that names an input wins over the file's index (ONNX's
      // test data names its tensors; other writers may number them only).
      size_t input = static_cast<size_t>(index);
      auto named = std::find_if(inputs.begin(), inputs.end(),
                                [&](const TensorInfo& i) { return i.name == proto_name; });
      if (named != inputs.end()) {
        input = static_cast<size_t>(named - inputs.begin());
      } else if (input >= inputs.size()) {
        return Status(StatusCode::kInvalidArgument, path + ": the model has only " +
                                                        std::to_string(inputs.size()) + " inputs (" +
                                                        InputNames(inputs) + ")");
      }
      if (!(s = assign(input, path, std::move(t))).ok()) return s;
    } else if (EndsWith(name, ".npy")) {
      std::string stem = name.substr(0, name.size() - 4);
      auto named = std::find_if(inputs.begin(), inputs.end(), [&](const TensorInfo& i) {
        return i.name == stem || SafeFileName(i.name) == stem;
      });
      if (named == inputs.end())
        return Status(StatusCode::kInvalidArgument,
                      path + ": names no input of the model (inputs: " + InputNames(inputs) + ")");
      Tensor t;
      if (!(s = ReadTensorFile(path, &t)).ok()) return s;
      if (!(s = assign(static_cast<size_t>(named - inputs.begin()), path, std::move(t))).ok()) return s;
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorInfo& info = inputs[i];
    if (files[i].empty())
      return Status(StatusCode::kNotFound, "sample '" + folder + "' has no file for input '" + info.name +
                                               "' (input_" + std::to_string(i) + ".pb or " +
                                               SafeFileName(info.name) + ".npy)");
    if (tensors[i].dtype() != info.dtype || tensors[i].dims() != info.dims)
      return Status(StatusCode::kInvalidArgument,
                    "input '" + info.name + "' from " + files[i] + ": expected shape " +
                        DescribeShape(info.dims, info.dtype) + ", got " +
                        DescribeShape(tensors[i].dims(), tensors[i].dtype()));
  }
  *out = std::move(tensors);
  return Status::Ok();
}

Status RandomSample(const std::vector<TensorInfo>& inputs, uint64_t seed, std::vector<Tensor>* out) {
  out->clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    Tensor t;
    Status s = Tensor::Allocate(inputs[i].dtype, inputs[i].dims, &t);
    if (!s.ok()) return s;
    FillRandom(&t, seed * 1000003 + i);
    out->push_back(std::move(t));
  }
  return Status::Ok();
}

}  // namespace kiln::tools
