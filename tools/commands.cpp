// The `vkphys` subcommands other than bench (tools/bench.cpp, tools/bench_rigid.cpp). Scenes
// with rigid bodies go on to tools/rigid_commands.cpp.
#include "tools/commands.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <utility>

#include "host/io/output.h"
#include "host/io/scene_file.h"
#include "host/sim/backend.h"
#include "host/sim/compare.h"
#include "host/sim/metrics.h"
#include "host/vk/context.h"
#include "tools/progress.h"

namespace vkphys::tools {

int cmd_info(const Options&) {
  std::vector<vk::DeviceInfo> devices;
  try {
    devices = vk::Context::list_devices();
  } catch (const vk::Unavailable& e) {
    std::printf("%s\n", e.what());
    return 1;
  }
  if (devices.empty()) std::printf("no Vulkan device with a compute queue\n");
  for (const vk::DeviceInfo& d : devices) {
    std::printf("[%u] %s (%s)\n", d.index, d.name.c_str(), d.type.c_str());
    std::printf("    driver %s, Vulkan %u.%u.%u\n", d.driver.c_str(),
                VK_API_VERSION_MAJOR(d.api_version), VK_API_VERSION_MINOR(d.api_version),
                VK_API_VERSION_PATCH(d.api_version));
    std::printf("    device-local memory %.1f GiB, max storage buffer range %.1f MiB\n",
                static_cast<double>(d.device_local_bytes) / (1u << 30),
                static_cast<double>(d.max_storage_buffer_range) / (1u << 20));
    std::printf("    workgroup: %u invocations, %u KiB shared memory, subgroup %u; timestamps %s\n",
                d.max_workgroup_invocations, d.max_compute_shared_memory / 1024, d.subgroup_size,
                d.timestamps ? "yes" : "no");
  }
  return 0;
}

namespace {

struct BackendHandle {
  std::unique_ptr<vk::Context> ctx;
  std::unique_ptr<Backend> backend;
};

BackendHandle open_backend(const std::string& which, const Options& opt) {
  BackendHandle h;
  if (which == "cpu") {
    h.backend = make_cpu_backend();
  } else {
    h.ctx = vk::Context::create({opt.device, opt.validation});
    h.backend = make_gpu_backend(*h.ctx);
  }
  return h;
}

}  // namespace

int cmd_run(const Options& opt) {
  Scene scene = io::load_scene(opt.scene);
  if (!scene.bodies.empty()) return cmd_run_rigid(opt, std::move(scene));
  if (!opt.scheme.empty()) {
    throw std::runtime_error(fmt::format(
        "--scheme applies to rigid-body scenes only; {} is a particle scene", opt.scene));
  }
  BackendHandle h = open_backend(opt.backend, opt);
  std::printf("%s\nbackend: %s\n", io::scene_summary(scene).c_str(), h.backend->name().c_str());
  h.backend->load(scene);
  io::RunWriter writer(opt.out);
  Particles state = scene.particles;
  writer.frame(0, state);
  writer.metrics(0, 0.0, measure(scene, state), h.backend->stats(), 0.0);
  Progress progress(opt.steps);
  const double h_step = static_cast<double>(scene.settings.time_step);
  for (std::uint32_t k = 1; k <= opt.steps; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    h.backend->step();
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    h.backend->read(state);
    Metrics m = measure(scene, state);
    if (!m.finite) {
      throw std::runtime_error(fmt::format(
          "step {}: a position or velocity became NaN or infinite; stopping (last good frame "
          "written; check time_step, spook_k and masses)",
          k));
    }
    writer.metrics(k, h_step * k, m, h.backend->stats(), ms);
    if ((opt.every && k % opt.every == 0) || k == opt.steps) writer.frame(k, state);
    progress.update(k);
  }
  progress.finish();
  Metrics last = measure(scene, state);
  std::printf("%u steps: kinetic %.6g J, max penetration %.4g m, %u contacts; output in %s\n",
              opt.steps, last.kinetic, last.max_penetration, h.backend->stats().contacts,
              opt.out.c_str());
  return 0;
}

int cmd_compare(const Options& opt) {
  Scene scene = io::load_scene(opt.scene);
  if (!scene.bodies.empty()) return cmd_compare_rigid(opt, std::move(scene));
  if (!opt.scheme.empty() || opt.rot_tol_given) {
    throw std::runtime_error(fmt::format(
        "--scheme and --rot-tol apply to rigid-body scenes only; {} is a particle scene",
        opt.scene));
  }
  BackendHandle gpu = open_backend("gpu", opt);
  BackendHandle cpu = open_backend("cpu", opt);
  gpu.backend->load(scene);
  cpu.backend->load(scene);
  std::printf("%s\ncomparing %s against %s, tolerance %.3g m / %.3g m/s\n",
              io::scene_summary(scene).c_str(), gpu.backend->name().c_str(),
              cpu.backend->name().c_str(), opt.pos_tol, opt.vel_tol);
  CompareResult r =
      compare_backends(*gpu.backend, *cpu.backend, opt.steps, {opt.pos_tol, opt.vel_tol});
  std::printf("%6s %12s %12s %12s %12s %9s %9s\n", "step", "max|dx|", "mean|dx|", "max|dv|",
              "mean|dv|", "contacts", "(cpu)");
  for (std::size_t k = 0; k < r.steps.size(); ++k) {
    const StepError& e = r.steps[k];
    std::printf("%6zu %12.4g %12.4g %12.4g %12.4g %9u %9u\n", k + 1, e.max_pos, e.mean_pos,
                e.max_vel, e.mean_vel, e.contacts_a, e.contacts_b);
  }
  if (r.first_bad) {
    std::printf("FAIL: first step past tolerance: %u\n", *r.first_bad);
    return 1;
  }
  std::printf("OK: all %u steps within tolerance\n", opt.steps);
  return 0;
}

}  // namespace vkphys::tools
