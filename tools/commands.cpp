// The `vkphys` subcommands info and compare, and what the others share (run and resume are in
// tools/run.cpp, bench in tools/bench.cpp, export-scene in tools/export_scene.cpp). info and
// compare use the public API alone (vkphys/devices.h, vkphys/compare.h); check_size quotes the
// scene loader's limits (vkphys/limits.h).
#include "tools/commands.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "tools/progress.h"
#include "vkphys/compare.h"
#include "vkphys/devices.h"
#include "vkphys/error.h"
#include "vkphys/limits.h"
#include "vkphys/scene_file.h"
#include "vkphys/stability.h"

namespace vkphys::tools {

int cmd_info(const Options&) {
  std::vector<GpuDevice> devices;
  try {
    devices = gpu_devices();
  } catch (const Error& e) {
    std::printf("%s\n", e.what());
    return 1;
  }
  if (devices.empty()) std::printf("no Vulkan device with a compute queue\n");
  for (const GpuDevice& d : devices) {
    std::printf("[%u] %s (%s)\n", d.index, d.name.c_str(), d.type.c_str());
    std::printf("    driver %s, Vulkan %u.%u.%u\n", d.driver.c_str(), d.api_major, d.api_minor,
                d.api_patch);
    std::printf("    device-local memory %.1f GiB, max storage buffer range %.1f MiB\n",
                static_cast<double>(d.device_local_bytes) / (1u << 30),
                static_cast<double>(d.max_storage_buffer_range) / (1u << 20));
    std::printf("    workgroup: %u invocations, %u KiB shared memory, subgroup %u; timestamps %s\n",
                d.max_workgroup_invocations, d.max_compute_shared_memory / 1024, d.subgroup_size,
                d.timestamps ? "yes" : "no");
  }
  return 0;
}

WorldOptions world_options(const Options& opt, const std::string& backend,
                           const std::string& device) {
  return {.backend = backend,
          .device = device,
          .validation = opt.validation,
          .sync_validation = opt.sync_validation};
}

SolverScheme parse_scheme(const std::string& name) {
  if (name == "sequential") return SolverScheme::sequential;
  if (name == "colored") return SolverScheme::colored;
  if (name == "jacobi") return SolverScheme::jacobi;
  throw std::runtime_error(
      fmt::format("--scheme {}: expected sequential, colored or jacobi", name));
}

void apply_solver_overrides(const Options& opt, SolverSettings& solver) {
  if (opt.iterations) solver.iterations = *opt.iterations;
  if (opt.substeps) solver.substeps = *opt.substeps;
  if (opt.relax) solver.relax_iterations = *opt.relax;
  if (opt.particle_reorder) solver.particle_reorder = *opt.particle_reorder;
}

void warn_stability(const Scene& scene) {
  const std::string warning = stability_warning(spring_stability(scene));
  if (warning.empty()) return;
  std::fflush(stdout);  // after what the command printed before it, in a log of both streams
  std::fprintf(stderr, "vkphys: warning: %s\n", warning.c_str());
}

int cmd_compare(const Options& opt) {
  Scene scene = read_scene_file(opt.scene);
  SolverSettings& solver = scene.settings.solver;
  apply_solver_overrides(opt, solver);
  if (!opt.scheme.empty()) {
    solver.scheme = parse_scheme(opt.scheme);
    if (solver.scheme == SolverScheme::sequential) {
      throw std::runtime_error(
          "--scheme sequential runs on the CPU backend only, so there is no GPU run to compare "
          "it with: use --scheme colored or jacobi");
    }
  } else if (solver.scheme == SolverScheme::sequential) {
    std::printf(
        "%s uses solver.scheme \"sequential\" (CPU backend only): comparing with "
        "colored\n",
        opt.scene.c_str());
    solver.scheme = SolverScheme::colored;
  }
  BackendCompareOptions copt;
  copt.tolerance.position = opt.pos_tol;
  copt.tolerance.rotation = opt.rot_tol;
  copt.tolerance.velocity = opt.vel_tol;
  copt.tolerance.angular_velocity = opt.vel_tol;
  copt.seeds = opt.envelope ? opt.seeds : 0;
  copt.factor = opt.factor;
  copt.checks = opt.checks;
  copt.device = opt.device;
  copt.validation = opt.validation;
  copt.sync_validation = opt.sync_validation;
  const Tolerance& tol = copt.tolerance;
  std::printf("%s\n", scene_summary(scene).c_str());
  warn_stability(scene);
  Progress progress(opt.steps);
  const BackendComparison r(scene, opt.steps, copt,
                            [&progress](std::uint32_t k) { progress.update(k); });
  progress.finish();
  std::printf(
      "comparing %s against %s, scheme %s, tolerance %.3g m / %.3g rad / %.3g m/s and rad/s\n",
      r.gpu_name().c_str(), r.cpu_name().c_str(), scheme_name(solver.scheme), tol.position,
      tol.rotation, tol.velocity);
  const bool env = copt.seeds > 0;
  std::printf("%6s %11s %11s %11s %11s %11s %11s %11s %11s %6s %7s %7s", "step", "max|dx|",
              "mean|dx|", "max angle", "mean angle", "max|dv|", "mean|dv|", "max|dw|", "mean|dw|",
              "worst", "points", "(cpu)");
  if (env) std::printf(" %11s %11s %11s %11s", "env|dx|", "env angle", "env|dv|", "env|dw|");
  std::printf("\n");
  for (std::size_t k = 0; k < r.steps().size(); ++k) {
    const StepError& e = r.steps()[k];
    std::printf("%6zu %11.4g %11.4g %11.4g %11.4g %11.4g %11.4g %11.4g %11.4g %5s%u %7u %7u", k + 1,
                e.max_pos, e.mean_pos, e.max_rot, e.mean_rot, e.max_vel, e.mean_vel, e.max_omega,
                e.mean_omega, e.worst_pos.particle ? "p" : "b", e.worst_pos.index, e.points_a,
                e.points_b);
    if (env) {
      const StepError& v = r.envelope()[k];
      std::printf(" %11.4g %11.4g %11.4g %11.4g", v.max_pos, v.max_rot, v.max_vel, v.max_omega);
    }
    std::printf("\n");
  }
  std::printf(
      "(worst: the body bN or particle pN with the largest position difference; points: manifold "
      "points + particle contacts; angles in rad%s)\n",
      env ? "; env: the CPU's own runs nudged by 1 ulp against it, the rounding envelope" : "");
  if (env) {
    std::printf(
        "held to max(tolerance, %g x the run's rounding envelope over %u seeds): %.3g m / %.3g rad "
        "/ %.3g m/s / %.3g rad/s\n",
        copt.factor, copt.seeds, r.allowed().position, r.allowed().rotation, r.allowed().velocity,
        r.allowed().angular_velocity);
  }
  std::printf("%s\n", r.verdict().c_str());
  const std::string report =
      opt.report.empty()
          ? "out/compare/" + std::filesystem::path(opt.scene).stem().string() + ".html"
          : opt.report;
  r.write_report(report, opt.scene);
  std::printf("report: %s\n", report.c_str());
  return r.passed() ? 0 : 1;
}

void check_size(const char* flag, std::uint64_t size, const std::string& what, std::uint64_t max) {
  if (size <= max) return;
  throw std::runtime_error(
      fmt::format("{} {}: {} takes at most {} (the scene loader's limits: "
                  "kMaxBodies = {}, kMaxParticles = {})",
                  flag, size, what, max, kMaxBodies, kMaxParticles));
}

}  // namespace vkphys::tools
