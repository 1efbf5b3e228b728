// SPDX-License-Identifier: Apache-2.0
// Errors are values. An Error says what failed, where (file, field, line) and
// what the user can do next; Result<T> carries either a value or an Error.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace jetgate {

struct Error {
  std::string what;   // what failed, e.g. "cannot parse L4T release"
  std::string where;  // file, file:line, JSON pointer or field; may be empty
  std::string hint;   // what to do next; may be empty

  // "where: what (hint)" in one line, ready for stderr.
  std::string message() const;
};

Error make_error(std::string what, std::string where = {}, std::string hint = {});

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

// For operations that return nothing but may fail.
struct Ok {};
using Status = Result<Ok>;

}  // namespace jetgate
