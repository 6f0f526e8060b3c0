// gtest assertion for the runtime's Status: the tests check the code and
// a piece of the message, since the message is what a user acts on.
#ifndef KILN_RUNTIME_TESTING_STATUS_ASSERTIONS_H_
#define KILN_RUNTIME_TESTING_STATUS_ASSERTIONS_H_

#include <gtest/gtest.h>

#include <string>

#include "kiln/runtime.h"

namespace kiln {
namespace testing {

// Succeeds when `s` failed with `code` and its message contains `text`.
inline ::testing::AssertionResult HasMessage(const Status& s, StatusCode code,
                                             const std::string& text) {
  if (s.ok()) return ::testing::AssertionFailure() << "succeeded, expected '" << text << "'";
  if (s.code() != code || s.message().find(text) == std::string::npos)
    return ::testing::AssertionFailure() << "got " << s.ToString() << "; expected "
                                         << StatusCodeName(code) << " containing '" << text << "'";
  return ::testing::AssertionSuccess();
}

}  // namespace testing
}  // namespace kiln

#endif  // KILN_RUNTIME_TESTING_STATUS_ASSERTIONS_H_
