// splitmix64 (Steele, Lea and Flood 2014): the one random number generator for generated scenes
// and randomised tests. Tiny, full-period and defined by integer maths alone, so a seed gives the
// same numbers on every platform, which the std:: distributions do not promise.
#pragma once

#include <cstdint>

namespace vkphys {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) in steps of 2^-24 (the top 24 bits of next()): exact in double and still
  // exact after a cast to float, so float users get the same numbers as double users.
  double unit() { return static_cast<double>(next() >> 40) * 0x1.0p-24; }

 private:
  std::uint64_t state_;
};

}  // namespace vkphys
