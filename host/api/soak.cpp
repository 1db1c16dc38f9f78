// The soak rules (vkphys/soak.h).
#include "vkphys/soak.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace vkphys {

std::vector<std::string> soak_failures(const std::vector<SoakSample>& samples,
                                       const SoakLimits& limits) {
  std::vector<std::string> failed;
  const auto ref = std::find_if(samples.begin(), samples.end(),
                                [&](const SoakSample& s) { return s.step >= limits.settle_step; });
  if (ref == samples.end()) {
    failed.push_back(fmt::format("no sample at or after the settling step {}", limits.settle_step));
    return failed;
  }
  const double scale =
      std::max({std::abs(samples.front().energy), std::abs(ref->energy), limits.energy_floor});
  const double energy_limit = ref->energy + limits.energy_tol * scale;
  for (auto s = ref; s != samples.end(); ++s) {
    if (!(s->energy <= energy_limit)) {
      failed.push_back(fmt::format(
          "energy at step {} is {:.6g} J, above the settled {:.6g} J (step {}) + {} x {:.6g} J",
          s->step, s->energy, ref->energy, ref->step, limits.energy_tol, scale));
      break;
    }
  }
  const SoakSample& last = samples.back();
  // The memory checks' own reference: the process that took the last sample took it.
  const auto mem = std::find_if(
      ref, samples.end(), [&](const SoakSample& s) { return s.step >= limits.memory_from_step; });
  if (mem == samples.end()) return failed;
  if (last.rss_bytes > mem->rss_bytes + limits.max_rss_growth) {
    failed.push_back(
        fmt::format("resident memory grew by {:.1f} MiB from step {} to step {} (limit {:.1f} MiB)",
                    static_cast<double>(last.rss_bytes - mem->rss_bytes) / (1 << 20), mem->step,
                    last.step, static_cast<double>(limits.max_rss_growth) / (1 << 20)));
  }
  if (last.open_files > mem->open_files) {
    failed.push_back(fmt::format("open files grew from {} at step {} to {} at step {}",
                                 mem->open_files, mem->step, last.open_files, last.step));
  }
  for (auto s = mem + 1; s != samples.end(); ++s) {
    const SoakSample& p = *(s - 1);
    const bool capacity_grew =
        s->pair_capacity > p.pair_capacity || s->contact_capacity > p.contact_capacity;
    if (s->device_bytes > p.device_bytes && !capacity_grew) {
      failed.push_back(fmt::format(
          "device memory grew from {} to {} bytes between steps {} and {} with no list grown",
          p.device_bytes, s->device_bytes, p.step, s->step));
      break;
    }
  }
  return failed;
}

}  // namespace vkphys
