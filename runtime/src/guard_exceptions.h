// guard_exceptions.h - keeps exceptions from crossing the runtime's API.
//
// The runtime itself returns Status, but the standard library it uses
// throws: std::bad_alloc (or std::length_error) from any growing container
// or string, and
// std::system_error when a worker thread cannot be started. Every public
// entry point runs its body through GuardExceptions, which turns those into
// a Status.
#ifndef KILN_RUNTIME_SRC_GUARD_EXCEPTIONS_H_
#define KILN_RUNTIME_SRC_GUARD_EXCEPTIONS_H_

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>

#include "kiln/runtime.h"

namespace kiln {

// Builds an error Status without letting a second exception escape: when
// even the message cannot be allocated, the fallback fits the small-string
// buffer of std::string and allocates nothing.
inline Status GuardedError(StatusCode code, const char* prefix, const char* detail) noexcept {
  try {
    return Status(code, std::string(prefix) + detail);
  } catch (...) {
    return Status(StatusCode::kResourceExhausted, "out of memory");
  }
}

template <typename Body>
Status GuardExceptions(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "out of memory");
  } catch (const std::length_error&) {
    // A container asked to grow past max_size(): memory, not a bug.
    return Status(StatusCode::kResourceExhausted, "size too large");
  } catch (const std::system_error& e) {
    // Thread creation (EAGAIN) and other OS resources.
    return GuardedError(StatusCode::kResourceExhausted, "system error: ", e.what());
  } catch (const std::exception& e) {
    return GuardedError(StatusCode::kInternal, "unexpected exception: ", e.what());
  } catch (...) {
    return Status(StatusCode::kInternal, "unknown exception");
  }
}

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_GUARD_EXCEPTIONS_H_
