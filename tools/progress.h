// A one-line progress report on stderr for runs that take more than a few seconds.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace vkphys::tools {

class Progress {
 public:
  explicit Progress(std::uint64_t total) : total_(total), start_(Clock::now()), last_(start_) {}
  void update(std::uint64_t done) {
    auto now = Clock::now();
    double elapsed = seconds(now - start_);
    if (elapsed < 2.0 || seconds(now - last_) < 0.5) return;
    last_ = now;
    shown_ = true;
    double rate = static_cast<double>(done) / elapsed;
    double eta = rate > 0 ? static_cast<double>(total_ - done) / rate : 0.0;
    std::fprintf(stderr, "\rstep %llu/%llu  %.1f steps/s  %.0f s left   ",
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
                 rate, eta);
    std::fflush(stderr);
  }
  void finish() {
    if (shown_) std::fprintf(stderr, "\n");
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
  std::uint64_t total_;
  Clock::time_point start_, last_;
  bool shown_ = false;
};

}  // namespace vkphys::tools
