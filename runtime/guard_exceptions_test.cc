// GuardExceptions is what keeps exceptions from crossing the runtime's C++
// and C APIs; each kind of exception the standard library throws maps to
// its Status code.
#include "runtime/src/guard_exceptions.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>
#include <system_error>

namespace kiln {
namespace {

TEST(GuardExceptions, PassesStatusThrough) {
  EXPECT_TRUE(GuardExceptions([] { return Status::Ok(); }).ok());
  Status s = GuardExceptions([] { return Status(StatusCode::kNotFound, "x"); });
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
}

TEST(GuardExceptions, BadAllocIsResourceExhausted) {
  Status s = GuardExceptions([]() -> Status { throw std::bad_alloc(); });
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "out of memory");
  // What a vector asked to grow past max_size() throws (std::length_error).
  s = GuardExceptions([]() -> Status {
    std::vector<char> v;
    v.reserve(v.max_size() + 1);
    return Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s.ToString();
  EXPECT_EQ(s.message(), "size too large");
}

TEST(GuardExceptions, SystemErrorIsResourceExhaustedWithItsMessage) {
  // What std::thread throws when no thread can be created.
  Status s = GuardExceptions([]() -> Status {
    throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                            "thread");
  });
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("system error: thread"), std::string::npos) << s.message();
}

TEST(GuardExceptions, AnythingElseIsInternal) {
  Status s = GuardExceptions([]() -> Status { throw std::runtime_error("boom"); });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.message(), "unexpected exception: boom");
  s = GuardExceptions([]() -> Status { throw 42; });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace kiln
