// Error values for the Rails core: every failure names the offending key so the caller (plugin,
// simulator config, mgr) can report it to the operator without guessing.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace erails::rails {

struct Error {
  std::string key;      // the profile or config key at fault, e.g. "rails-readers"
  std::string message;  // full sentence with the accepted range, ready to print
};

// Either a T or an Error. Reading the wrong alternative is a precondition violation (throws
// std::bad_variant_access), so callers check ok() first.
template <class T>
class Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}
  Expected(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  const T& value() const { return std::get<0>(state_); }
  T& value() { return std::get<0>(state_); }
  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

}  // namespace erails::rails
