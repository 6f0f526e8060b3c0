//===- PaddleLoader.cpp - Loading a Paddle inference model ----------------===//

#include "compiler/paddle/PaddleLoader.h"

#include "compiler/paddle/ParamsReader.h"
#include "compiler/paddle/PirJsonReader.h"
#include "compiler/paddle/ProgramDescReader.h"

#include <fstream>
#include <sys/stat.h>

namespace kiln::paddle {

namespace {

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// True when the first non-blank byte of the file is '{'.
bool looksLikeJson(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  char c;
  while (file.get(c))
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
      return c == '{';
  return false;
}

} // namespace

std::string defaultParamsPath(const std::string &modelPath) {
  size_t slash = modelPath.rfind('/');
  size_t dot = modelPath.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return modelPath + ".pdiparams";
  return modelPath.substr(0, dot) + ".pdiparams";
}

bool loadPaddleModel(const std::string &modelPath,
                     const std::string &paramsPath, Program &out,
                     std::string &error) {
  struct stat info;
  if (::stat(modelPath.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    error = modelPath + ": no such model file";
    return false;
  }
  bool pir = endsWith(modelPath, ".json") ||
             (!endsWith(modelPath, ".pdmodel") && looksLikeJson(modelPath));
  Program program;
  if (!(pir ? readPirJson(modelPath, program, error)
            : readProgramDesc(modelPath, program, error)))
    return false;

  program.paramsPath =
      paramsPath.empty() ? defaultParamsPath(modelPath) : paramsPath;
  std::vector<std::string> names = paramFileOrder(program);
  if (!names.empty()) {
    if (::stat(program.paramsPath.c_str(), &info) != 0) {
      error = program.paramsPath + ": the parameters file of " + modelPath +
              " is missing (the program has " + std::to_string(names.size()) +
              " parameters; give it with --params=FILE)";
      return false;
    }
    if (!readParams(program, names, error))
      return false;
  }
  out = std::move(program);
  return true;
}

} // namespace kiln::paddle
