// kiln_test_util.h - runs the kiln binary from a test's runfiles.
#ifndef KILN_TOOLS_KILN_KILN_TEST_UTIL_H_
#define KILN_TOOLS_KILN_KILN_TEST_UTIL_H_

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace kiln::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// `args` is appended to the kiln binary's path as shell words.
inline CommandResult RunKiln(const std::string& args) {
  CommandResult result;
  std::string command = "tools/kiln/kiln " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace kiln::testing

#endif  // KILN_TOOLS_KILN_KILN_TEST_UTIL_H_
