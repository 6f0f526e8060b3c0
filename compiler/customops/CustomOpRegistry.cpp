//===- CustomOpRegistry.cpp - Operators that plugins add to Kiln ----------===//
#include "compiler/customops/CustomOpRegistry.h"

#include <deque>
#include <mutex>

namespace mlir::kiln {

namespace {

std::string normalizeDomain(llvm::StringRef domain) {
  return domain == "ai.onnx" ? std::string() : domain.str();
}

struct Registry {
  std::mutex mutex;
  // A deque keeps the addresses lookups hand out stable.
  std::deque<CustomOpDefinition> definitions;
};

Registry &registry() {
  static Registry *instance = new Registry(); // never destroyed: plugins may
                                              // look up during exit
  return *instance;
}

} // namespace

LogicalResult registerCustomOp(CustomOpDefinition definition,
                               std::string &error) {
  definition.domain = normalizeDomain(definition.domain);
  std::string display =
      (definition.domain.empty() ? "ai.onnx" : definition.domain) +
      "::" + definition.opType;
  if (definition.opType.empty()) {
    error = "a custom op needs an ONNX op type";
    return failure();
  }
  if (!definition.inferTypes) {
    error = "custom op " + display + " has no shape and type function";
    return failure();
  }
  if (definition.name.empty())
    definition.name =
        (definition.domain.empty() ? "ai.onnx" : definition.domain) + "." +
        definition.opType;
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const CustomOpDefinition &other : r.definitions) {
    if (other.domain == definition.domain &&
        other.opType == definition.opType) {
      error = "custom op " + display + " is already registered";
      return failure();
    }
    if (other.name == definition.name) {
      error = "custom op " + display + ": the name '" + definition.name +
              "' is already registered (for " +
              (other.domain.empty() ? "ai.onnx" : other.domain) +
              "::" + other.opType + ")";
      return failure();
    }
  }
  r.definitions.push_back(std::move(definition));
  return success();
}

const CustomOpDefinition *lookupCustomOpForNode(llvm::StringRef domain,
                                                llvm::StringRef opType) {
  std::string normalized = normalizeDomain(domain);
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const CustomOpDefinition &d : r.definitions)
    if (d.domain == normalized && d.opType == opType)
      return &d;
  return nullptr;
}

const CustomOpDefinition *lookupCustomOp(llvm::StringRef name) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const CustomOpDefinition &d : r.definitions)
    if (d.name == name)
      return &d;
  return nullptr;
}

std::vector<const CustomOpDefinition *> registeredCustomOps() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<const CustomOpDefinition *> all;
  for (const CustomOpDefinition &d : r.definitions)
    all.push_back(&d);
  return all;
}

} // namespace mlir::kiln
