// `vkphys run` and `vkphys resume`: a scene stepped through the public World, writing frames and
// metrics with the public Recorder (vkphys/recorder.h) and, with --checkpoint-every N, a
// checkpoint every N steps that `vkphys resume DIR` continues from bit-identically on the same
// backend and device. It uses the public API alone (the CLI is the library's first client).
//
// A checkpoint is written after its step's metrics row and frame, whole under a temporary name
// and then renamed (Snapshot::write), so a run killed at any moment leaves the last complete
// checkpoint; the resume drops whatever the killed run wrote after it (Recorder::resume).
//
// A World with rigid bodies records each step's contacts (WorldOptions::record_contacts):
// metrics.csv's rigid penetration is measured on them, and --vtk-contacts writes them.
//
// --png draws the last state to DIR/last.png (World::render, the renderer of `vkphys render`)
// on the Vulkan device (lavapipe without a GPU), through the scene's camera or the one that
// frames the loaded state, as `vkphys render` draws its frames: the picture the README shows.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "tools/commands.h"
#include "tools/progress.h"
#include "tools/run_plan.h"
#include "vkphys/error.h"
#include "vkphys/recorder.h"
#include "vkphys/scene_file.h"
#include "vkphys/snapshot.h"
#include "vkphys/world.h"

namespace vkphys::tools {
namespace {

namespace fs = std::filesystem;

void print_world(const World& world) {
  const SolverSettings& solver = world.scene().settings.solver;
  std::printf("%s\nbackend: %s, scheme %s, %u substep(s) x (%u iterations + %u relax)\n",
              scene_summary(world.scene()).c_str(), world.backend_name().c_str(),
              scheme_name(solver.scheme), solver.substeps, solver.iterations,
              solver.relax_iterations);
  if (world.device_type() == "cpu") {
    std::printf("(a CPU Vulkan driver: step times are not GPU timings)\n");
  }
}

// The World a run of `scene` steps: one with rigid bodies or --vtk-contacts records contacts.
WorldOptions run_options(WorldOptions options, const Scene& scene, const RunPlan& plan) {
  options.record_contacts = !scene.bodies.empty() || plan.vtk_contacts;
  return options;
}

RecorderOptions recorder_options(const RunPlan& plan, bool replace) {
  return {.replace = replace, .vtk = plan.vtk, .vtk_contacts = plan.vtk_contacts};
}

// The implicit integrator's solves that ended above solver.cg_tolerance over a run
// (StepStatistics::cg_unmet): each step used such a solve's result as it was, so the run says so
// at its end.
struct UnmetSolves {
  std::uint64_t solves = 0, steps = 0, first_step = 0;
  float worst = 0.0f;  // the largest relative residual of those steps

  void add(std::uint64_t step, const StepStatistics& st) {
    if (st.cg_unmet == 0) return;
    if (steps++ == 0) first_step = step;
    solves += st.cg_unmet;
    worst = std::max(worst, st.cg_residual);
  }

  void report(const SolverSettings& solver) const {
    if (solves == 0) return;
    std::fprintf(stderr,
                 "warning: %llu implicit solve(s) in %llu step(s), the first at step %llu, ended "
                 "above solver.cg_tolerance %g (the worst at a relative residual of %.3g): raise "
                 "solver.cg_max_iterations (%u) or solver.substeps (%u); metrics.csv's cg_unmet "
                 "and cg_residual give each step\n",
                 static_cast<unsigned long long>(solves), static_cast<unsigned long long>(steps),
                 static_cast<unsigned long long>(first_step),
                 static_cast<double>(solver.cg_tolerance), static_cast<double>(worst),
                 solver.cg_max_iterations, solver.substeps);
  }
};

// Steps `world` from its current step to plan.steps, writing each step's metrics row, the frames
// and the checkpoints the plan asks for. `frame_at`: the step whose frame is already on disk
// from this process (none on a resume), so that a NaN stop does not write it twice.
void run_steps(World& world, Recorder& recorder, const RunPlan& plan, const fs::path& dir,
               std::optional<std::uint64_t> frame_at) {
  const std::uint64_t first = world.steps() + 1;
  Progress progress(plan.steps - world.steps());
  std::uint64_t checkpoint_at = world.steps();  // a run or a resume starts at a checkpoint
  UnmetSolves unmet;
  // The GPU failed (device lost, out of memory) with the World holding step `good`: that state
  // goes to disk as a frame; the checkpoint on disk is whole (only ever replaced by a rename).
  auto stopped = [&](const Error& e, std::uint64_t good) {
    if (frame_at != good) recorder.frame(world);
    progress.finish();
    const std::string resume =
        plan.checkpoint_every
            ? fmt::format("; `vkphys resume {}` continues from its last checkpoint (step {})",
                          dir.string(), checkpoint_at)
            : std::string();
    return std::runtime_error(
        fmt::format("{} (frame_{:06d}.csv holds the last good state{})", e.what(), good, resume));
  };
  // The steps between checkpoints go to the World together (step(n, after_each)): the GPU
  // backend runs step k + 1 while this writes step k's row and frame. A failure to write them
  // leaves as std::runtime_error, not as the World's Error (a failed step) that `stopped` takes.
  auto t0 = std::chrono::steady_clock::now();
  auto after_each = [&] {
    const std::uint64_t k = world.steps();
    const auto t1 = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    t0 = t1;
    try {
      recorder.metrics(world, ms);
      unmet.add(k, world.statistics());
      if ((plan.every && k % plan.every == 0) || k == plan.steps) {
        recorder.frame(world);
        frame_at = k;
      }
    } catch (const Error& e) {
      throw std::runtime_error(e.what());
    }
    progress.update(k - first + 1);
  };
  while (world.steps() < plan.steps) {
    std::uint64_t until = plan.steps;
    if (plan.checkpoint_every) {
      until = std::min(until, (world.steps() / plan.checkpoint_every + 1) * plan.checkpoint_every);
    }
    const std::uint64_t before = world.steps();
    const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(until - before, 1u << 30));
    t0 = std::chrono::steady_clock::now();
    try {
      world.step(n, after_each);
    } catch (const NonFiniteError& e) {
      // Stops the run: the last finite state (step k - 1), which the World still holds, goes to
      // disk first.
      const std::uint64_t k = e.step;
      if (frame_at != k - 1u) recorder.frame(world);
      progress.finish();
      throw std::runtime_error(fmt::format(
          "step {}: {}{}; stopping (frame_{:06d}.csv holds the last finite state; check "
          "time_step, spook_k, masses and forces)",
          k, e.where,
          plan.backend == "gpu" ? " (run it with --backend cpu to learn which stage)" : "",
          k - 1u));
    } catch (const Error& e) {
      throw stopped(e, world.steps());
    }
    const std::uint64_t k = world.steps();
    if (plan.checkpoint_every && (k % plan.checkpoint_every == 0 || k == plan.steps)) {
      try {
        world.save().write(dir / kCheckpointFile);
      } catch (const Error& e) {
        throw stopped(e, k);
      }
      checkpoint_at = k;
    }
  }
  progress.finish();
  const Metrics m = world.metrics();
  const Contacts c = world.contacts();
  std::printf(
      "%llu steps: kinetic %.6g J (rotational %.6g J), potential %.6g J, max penetration %.4g m, "
      "%u pairs, %u contact points, %u particle contacts, %u rows; output in %s\n",
      static_cast<unsigned long long>(plan.steps), m.kinetic(), m.kinetic_rotational, m.potential,
      m.max_penetration, c.pairs, c.points, c.particle_contacts, c.rows, dir.string().c_str());
  unmet.report(world.scene().settings.solver);
}

}  // namespace

int cmd_run(const Options& opt) {
  Scene scene = read_scene_file(opt.scene);
  SolverSettings& solver = scene.settings.solver;
  if (!opt.scheme.empty()) solver.scheme = parse_scheme(opt.scheme);
  apply_solver_overrides(opt, solver);
  if (opt.backend == "gpu" && solver.scheme == SolverScheme::sequential) {
    throw std::runtime_error(
        opt.scheme.empty()
            ? fmt::format("{} uses solver.scheme \"sequential\", which only the CPU backend runs: "
                          "use --backend cpu, or --scheme colored|jacobi on the GPU",
                          opt.scene)
            : "--scheme sequential runs on the CPU backend only: use --backend cpu, or --scheme "
              "colored|jacobi on the GPU");
  }
  const bool vtk = opt.vtk || opt.vtk_contacts;
  const RunPlan plan{opt.scene, opt.backend, opt.device,       opt.steps,
                     opt.every, vtk,         opt.vtk_contacts, opt.checkpoint_every};
  World world(scene, run_options(world_options(opt, opt.backend, opt.device), scene, plan));
  // Refuses a non-empty folder before any step.
  Recorder recorder(opt.out, world, recorder_options(plan, opt.force));
  print_world(world);
  warn_stability(world.scene());
  recorder.frame(world);  // step 0: no step has touched anything, its contacts are none
  recorder.metrics(world, 0.0);
  if (plan.checkpoint_every) {
    // The plan first, then a checkpoint at step 0: a resume always finds both.
    write_run_plan(opt.out, plan);
    world.save().write(fs::path(opt.out) / kCheckpointFile);
  }
  const SceneCamera camera = world.camera();  // framing the loaded state, as `vkphys render`
  run_steps(world, recorder, plan, opt.out, 0);
  if (opt.png) {
    const Picture picture = world.render(opt.width, opt.height, camera);
    const fs::path file = fs::path(opt.out) / kPictureFile;
    picture.write_png(file);
    std::printf("picture of step %u: %s (%ux%u, %s)\n", opt.steps, file.string().c_str(),
                picture.width, picture.height, picture.device.c_str());
  }
  return 0;
}

int cmd_resume(const Options& opt) {
  const fs::path dir = opt.out;
  if (fs::exists(dir / kSoakSamplesFile)) {
    throw std::runtime_error(dir.string() + " holds a soak: `vkphys soak --resume " + dir.string() +
                             "` continues it");
  }
  RunPlan plan = read_run_plan(dir);
  const fs::path file = dir / kCheckpointFile;
  if (!fs::exists(file)) {
    throw std::runtime_error(file.string() + ": no checkpoint to resume from");
  }
  const Snapshot snapshot = Snapshot::read(file);
  if (opt.steps_given) {
    if (opt.steps < snapshot.step()) {
      throw std::runtime_error(fmt::format("--steps {}: the checkpoint in {} is already at step {}",
                                           opt.steps, dir.string(), snapshot.step()));
    }
    plan.steps = opt.steps;
  }
  if (snapshot.step() >= plan.steps) {
    std::printf("%s: the run is complete (step %llu of %llu); --steps N continues it to step N\n",
                dir.string().c_str(), static_cast<unsigned long long>(snapshot.step()),
                static_cast<unsigned long long>(plan.steps));
    return 0;
  }
  // The device the run started on unless --device names another: the GPU backend resumes bit
  // for bit only on the device that saved the checkpoint.
  const WorldOptions options =
      world_options(opt, plan.backend, opt.device.empty() ? plan.device : opt.device);
  World world = World::load(snapshot, run_options(options, snapshot.scene(), plan));
  print_world(world);
  warn_stability(world.scene());
  std::printf("resuming %s from step %llu to step %llu\n", dir.string().c_str(),
              static_cast<unsigned long long>(snapshot.step()),
              static_cast<unsigned long long>(plan.steps));
  Recorder recorder = Recorder::resume(dir, world, recorder_options(plan, false));
  if (opt.steps_given) write_run_plan(dir, plan);  // a later resume continues to the new end
  run_steps(world, recorder, plan, dir, std::nullopt);
  return 0;
}

}  // namespace vkphys::tools
