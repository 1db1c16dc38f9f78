/// \file
/// The checks of a soak (`vkphys soak`): a scene run for a long time, sampled every so many
/// steps, must keep its energy bounded and leak neither host memory, files nor device memory.
/// Pure functions over the samples, so a program that runs its own long test (and the rules'
/// own tests) applies the same rules; `vkphys soak` gathers the samples from World::metrics,
/// World::statistics and the process, and replays the end for determinism (docs/soak.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vkphys/export.h"

namespace vkphys {

/// One sample of a soak, taken after step `step`.
struct SoakSample {
  std::uint64_t step = 0;              ///< steps taken when it was sampled
  double energy = 0.0;                 ///< kinetic + potential [J]
  double kinetic = 0.0;                ///< [J]
  double max_penetration = 0.0;        ///< deepest particle overlap [m]
  std::uint64_t rss_bytes = 0;         ///< the process's resident memory
  std::uint32_t open_files = 0;        ///< the process's file descriptors
  std::uint64_t device_bytes = 0;      ///< device memory the GPU backend holds (0 on the CPU)
  std::uint32_t pair_capacity = 0;     ///< the pair list's size (it only grows)
  std::uint32_t contact_capacity = 0;  ///< the contact list's size (it only grows)
};

/// The bounds soak_failures holds the samples to.
struct SoakLimits {
  /// The checks start at the reference sample: the first at or after this step.
  std::uint64_t settle_step = 0;
  /// Energy bounded after settling: no sample's energy exceeds the reference sample's by more
  /// than energy_tol x max(|E(0)|, |E(ref)|, energy_floor).
  double energy_tol = 0.01;
  double energy_floor = 1e-3;  ///< [J]: a scene with almost no energy is held to this scale
  /// Host memory: resident memory may grow by at most this much from the reference sample on
  /// (allocator noise; a leak of a few hundred bytes per step passes this in a short soak, which
  /// is why the long soak matters).
  std::uint64_t max_rss_growth = 16u << 20;
  /// Resident memory, open files and device memory are held from the first sample at or after
  /// the later of settle_step and this step: a resumed soak's samples before it were taken by
  /// another process.
  std::uint64_t memory_from_step = 0;
};

/// One line per failed check, none when every check passed: the energy bound, resident memory,
/// open files (no more than at the reference sample, or at the first sample from
/// limits.memory_from_step) and device memory (it may grow only with a list's capacity). One line
/// saying so when no sample is at or after limits.settle_step.
VKPHYS_API std::vector<std::string> soak_failures(const std::vector<SoakSample>& samples,
                                                  const SoakLimits& limits);

}  // namespace vkphys
