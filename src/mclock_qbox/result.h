#pragma once
// Errors as values: every fallible call across this library's boundary returns a Result naming the
// offending field and the range it accepts, so callers (CLI tools, an OSD adapter) can report it
// verbatim without exceptions crossing module boundaries.

#include <string>
#include <utility>
#include <variant>

namespace qbox {

struct Error {
  std::string field;    // the key, flag or record the caller got wrong, e.g. "utilization"
  std::string message;  // what was wrong and what is accepted

  std::string to_string() const { return field + ": " + message; }
};

// Marker value for calls that return nothing on success.
struct Ok {};

template <class T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Precondition: ok().
  const T& value() const& { return std::get<0>(state_); }
  T& value() & { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }

  // Precondition: !ok().
  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

using Status = Result<Ok>;

}  // namespace qbox
