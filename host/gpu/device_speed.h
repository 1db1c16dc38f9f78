// Figures of a device that bound any recorded step from below, measured with its own timestamps:
// the bandwidth of a large buffer-to-buffer copy and of a compute kernel streaming the same
// bytes (bytes read plus bytes written per second), and the cost of one small dispatch with the
// compute-only barrier after it, which the world step records after nearly every dispatch
// (host/gpu/step_recording.cpp, vk::compute_barrier). `vkphys bench` divides the traffic model's bytes
// (host/sim/traffic_model.h) by the faster bandwidth and multiplies the step's dispatches by the
// dispatch cost: the step's floors on this device. The copy may be a copy engine's or a driver's
// special path, the scan is the kind of kernel the step runs; on an H200 they moved 846 and 935
// GB/s (docs/benchmarks.md, 2026-11-28).
#pragma once

#include "host/vk/context.h"
#include "vkphys/devices.h"

namespace vkphys::gpu {

// Best of a few repeats of each. Throws Error when the device has no timestamps.
DeviceSpeed measure_device_speed(const vk::Context& ctx);

}  // namespace vkphys::gpu
