// The checks of a soak (`vkphys soak`, tools/soak.cpp): a scene run for a long time, sampled
// every so many steps. Pure functions over the samples, so the rules are tested on their own
// (tests/test_soak.cpp); the tool gathers the samples and replays the end for determinism.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vkphys {

struct SoakSample {
  std::uint64_t step = 0;
  double energy = 0.0;             // kinetic + potential [J]
  double kinetic = 0.0;            // [J]
  double max_penetration = 0.0;    // deepest particle overlap [m]
  std::uint64_t rss_bytes = 0;     // the process's resident memory
  std::uint32_t open_files = 0;    // the process's file descriptors
  std::uint64_t device_bytes = 0;  // device memory the GPU backend holds (0 on the CPU)
  std::uint32_t pair_capacity = 0, contact_capacity = 0;  // the lists' sizes (they only grow)
};

struct SoakLimits {
  std::uint64_t settle_step = 0;  // the checks below start at the first sample at or after it
  // Energy bounded after settling: no sample's energy exceeds the reference sample's (the first
  // at or after settle_step) by more than energy_tol x max(|E(0)|, |E(ref)|, energy_floor).
  double energy_tol = 0.01;
  double energy_floor = 1e-3;  // [J]: a scene with almost no energy is held to this scale
  // Host memory: resident memory may grow by at most this much from the reference sample on
  // (allocator noise; a leak of a few hundred bytes per step passes this in a short soak, which
  // is why the long soak matters).
  std::uint64_t max_rss_growth = 16u << 20;
};

// One line per failed check (none: every check passed): the energy bound, resident memory,
// open files (no more than at the reference sample) and device memory (it may grow only with a
// list's capacity).
std::vector<std::string> soak_failures(const std::vector<SoakSample>& samples,
                                       const SoakLimits& limits);

}  // namespace vkphys
