// Errors as values, for every library of the project: a failure names the key (profile key,
// config key, command-line flag, trace field) the caller got wrong and says what is accepted, so
// the plugin, the mgr, the tools and the simulator report it verbatim and no exception crosses a
// library boundary (a Ceph daemon must never be brought down by bad input).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace erails {

struct Error {
  std::string key;      // what was wrong, as the operator wrote it: "rails-readers", "utilization"
  std::string message;  // what was wrong and the accepted values

  std::string to_string() const { return key + ": " + message; }
};

// The value of a call that returns nothing on success.
struct Ok {};

// Either a T or an Error. Reading the wrong alternative is a precondition violation (it throws
// std::bad_variant_access), so callers test ok() first.
template <class T>
class Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}
  Expected(Error error) : state_(std::move(error)) {}

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

using Status = Expected<Ok>;

}  // namespace erails
