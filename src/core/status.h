// Status and Result: how library calls report failure. A failed status carries a
// message naming what failed and where; only the CLI turns it into an exit code.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace fabscope {

enum class ErrorKind {
  kNone = 0,
  kInvalidInput,  // the user gave a value that is not allowed
  kUnavailable,   // a backend, device or library is absent or cannot run here
  kRuntime,       // a call failed while running (MPI, I/O, ...)
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Invalid(std::string message) { return Status(ErrorKind::kInvalidInput, std::move(message)); }
  static Status Unavailable(std::string message) { return Status(ErrorKind::kUnavailable, std::move(message)); }
  static Status Runtime(std::string message) { return Status(ErrorKind::kRuntime, std::move(message)); }

  bool ok() const { return kind_ == ErrorKind::kNone; }
  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }

 private:
  Status(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  ErrorKind kind_ = ErrorKind::kNone;
  std::string message_;
};

// The first failure of work that goes on after one of its steps failed (the callbacks
// of messages already in flight, the writers of one report): later failures are mostly
// consequences of the first, which names the cause.
class FirstError {
 public:
  // Keeps `next` when it failed and nothing kept has.
  void keep(Status next) {
    if (first_.ok() && !next.ok()) first_ = std::move(next);
  }
  bool ok() const { return first_.ok(); }
  const Status& status() const { return first_; }

 private:
  Status first_;
};

// A value or the status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Status status) : status_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

#define FABSCOPE_RETURN_IF_ERROR(expr) \
  do {                                 \
    ::fabscope::Status _st = (expr);   \
    if (!_st.ok()) return _st;         \
  } while (0)

}  // namespace fabscope
