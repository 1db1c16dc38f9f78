// An environment variable set for a scope and restored after it, for the tests that steer the
// library or the command line through the environment (tests/test_pipeline_cache.cpp,
// tests/test_gpu_faults.cpp).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace vkphys::test {

// Sets (or with nullopt unsets) an environment variable for the test's lifetime.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~ScopedEnv() { set(old_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void set(const std::optional<std::string>& value) {
    if (value) {
      setenv(name_, value->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace vkphys::test
