// `vkphys bench particles`: ms/step per stage for particle boxes of several sizes.
//
// Each size runs a warm-up (the block falls and compresses into a pile), then `steps` timed
// steps. Stage times come from GPU timestamps on the GPU backend and from the host clock on the
// CPU backend; "wall" is the host-measured time of the whole step including submit and wait.
// Output is a Markdown table for docs/benchmarks.md.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "host/sim/backend.h"
#include "host/sim/scene_builders.h"
#include "host/vk/context.h"
#include "tools/commands.h"

namespace vkphys::tools {

std::vector<std::string> open_bench_backends(const Options& opt, std::unique_ptr<vk::Context>& ctx,
                                             const char* rows_marked) {
  std::vector<std::string> backends;
  if (opt.backend == "cpu" || opt.backend == "both") backends.push_back("cpu");
  if (opt.backend == "gpu" || opt.backend == "both") {
    try {
      ctx = vk::Context::create({opt.device, opt.validation});
      backends.push_back("gpu");
    } catch (const vk::Unavailable& e) {
      std::printf("GPU backend skipped: %s\n", e.what());
    }
  }
  if (ctx) {
    const vk::DeviceInfo& d = ctx->info();
    const std::string note =
        std::string("  -- a CPU Vulkan driver: NOT GPU timings") +
        (*rows_marked ? std::string(" (rows marked ") + rows_marked + ")" : "");
    std::printf("device: %s (%s), driver %s%s\n", d.name.c_str(), d.type.c_str(), d.driver.c_str(),
                d.type == "cpu" ? note.c_str() : "");
  }
  return backends;
}

int cmd_bench(const Options& opt) {
  std::unique_ptr<vk::Context> ctx;
  const std::vector<std::string> backends = open_bench_backends(opt, ctx, "");
  std::printf("\n| backend | particles | contacts | dispatches | ");
  for (std::size_t s = 0; s < kStageCount; ++s)
    std::printf("%s | ", stage_name(static_cast<Stage>(s)));
  std::printf("stages sum | wall ms/step | steps/s |\n|");
  for (std::size_t s = 0; s < kStageCount + 7; ++s) std::printf("---|");
  std::printf("\n");
  constexpr std::uint32_t kWarmup = 30;
  for (std::uint32_t n : opt.sizes) {
    Scene scene = particle_box_scene(n, 7);
    for (const std::string& which : backends) {
      std::unique_ptr<Backend> backend =
          which == "cpu" ? make_cpu_backend() : make_gpu_backend(*ctx);
      backend->load(scene);
      for (std::uint32_t k = 0; k < kWarmup; ++k) backend->step();
      std::array<double, kStageCount> stage_sum{};
      double wall = 0.0;
      for (std::uint32_t k = 0; k < opt.steps; ++k) {
        auto t0 = std::chrono::steady_clock::now();
        backend->step();
        wall += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
        for (std::size_t s = 0; s < kStageCount; ++s) stage_sum[s] += backend->stats().stage_ms[s];
      }
      const double steps = opt.steps;
      double total = 0.0;
      std::printf("| %s | %u | %u | %u | ", which.c_str(), n, backend->stats().contacts,
                  backend->stats().dispatches);
      for (double ms : stage_sum) {
        std::printf("%.3f | ", ms / steps);
        total += ms / steps;
      }
      std::printf("%.3f | %.3f | %.1f |\n", total, wall / steps, 1000.0 * steps / wall);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace vkphys::tools
