// A model of the bytes a world step's kernels read and write, per stage, from the buffer layouts
// (kernels/world_layout.h) and the step's counts. Divided by a device's measured copy bandwidth
// (SharedDevice::measure_speed) it is the step's bandwidth floor, which `vkphys bench` prints
// beside the measured time together with the dispatch floor (dispatches x the device's measured
// cost of one dispatch and barrier): a stage far above both has work to find; a stage at its
// floor can only get faster by moving fewer bytes or recording fewer dispatches.
//
// It counts each buffer element a kernel must touch once per pass over it, as the layouts store
// them today (not an ideal minimum): a contact point's sweep reads 13 of its 15 prepared vec4
// and its impulses, a manifold reads and writes both bodies' velocities, and so on (the terms
// are in host/sim/traffic_model.cpp beside their derivations). Caches, coalescing and atomics
// are not modelled, and neither are work whose size the counts do not give: the sweep's and the
// grid's candidate tests (bounded below by the pairs and contacts they find) and the explicit
// integrators' ODE passes. It is a lower bound on traffic, good to about a factor of two.
#pragma once

#include <array>
#include <cstdint>

#include "host/sim/backend.h"
#include "host/sim/world_setup.h"

namespace vkphys {

struct StepTraffic {
  std::array<std::uint64_t, kStageCount> bytes{};  // per stage, in step order
  std::uint64_t total() const;
};

// `st`: the step's counts as fill_world_stats left them (pairs, manifolds, points, particle
// contacts, colours, CG iterations).
StepTraffic step_traffic(const StepStats& st, const Scene& scene, const WorldArrays& world,
                         const Capacities& cap);

}  // namespace vkphys
