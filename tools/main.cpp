// vkphys: the command line.
//
//   vkphys info                               Vulkan devices and their limits
//   vkphys run SCENE [--backend gpu|cpu] [--steps N] [--out DIR] [--force] [--every K]
//                    [--scheme sequential|colored|jacobi] [--iterations N] [--substeps N]
//                    [--relax N] [--particle-reorder N] [--vtk] [--vtk-contacts] [--png]
//                    [--checkpoint-every N]
//   vkphys resume DIR [--steps N]            continue a checkpointed run from its last checkpoint
//   vkphys soak SCENE [--backend gpu|cpu] [--steps N] [--sample-every K] [--settle S]
//                     [--energy-tol F] [--max-growth MIB] [--out DIR]   a long run that checks
//                     itself: no NaN, bounded energy, no memory growth, determinism
//   vkphys soak --resume DIR [--steps N] [--settle S] [--energy-tol F] [--max-growth MIB]
//                                            continue a soak from its last checkpoint
//   vkphys compare SCENE [--steps N] [--pos-tol M] [--vel-tol M]
//                        [--rot-tol RAD] [--scheme colored|jacobi] [--seeds N] [--factor F]
//                        [--checks N] [--no-envelope] [--report FILE.html]
//   vkphys bench
//   [particles|mixed|pyramid|pyramids|boxes|cloth|cloth_self|cloth_hang|flag|rigid|all]
//                [--sizes N,...]
//                [--backend gpu|cpu|both] [--scheme colored|jacobi|sequential|all] [--warmup N]
//                [--steps N] [--batch N] [--fused auto|never|always]
//                [--tethers none|euclidean|geodesic]
//                [--cg-preconditioner block_jacobi|lines] [--shuffle] [--particle-reorder N]
//   vkphys export-scene NAME [--size N] [--out FILE]   a built-in scene as JSON
//   vkphys plot RUN_DIR                       SVG plots of RUN_DIR/metrics.csv in RUN_DIR/plots
//   vkphys render SCENE [--frames N] [--every K] [--out DIR] [--backend gpu|cpu]
//                       [--width W] [--height H] [--video FILE]   PNG frames of a run
//   vkphys view SCENE [--backend gpu|cpu] [--frames N] [--screenshot FILE.png] [--width W]
//                     [--height H]   a live window (tools/view.cpp has the controls)
//
// run and compare take every scene (rigid bodies, planes, joints and particles in any mix);
// --scheme overrides the scene's solver.scheme. The sequential scheme runs on the CPU backend
// only. compare runs both backends with one scheme: --scheme, else the scene's (colored if the
// scene asks for sequential).
//
// bench workloads (default: all): particles (--sizes = particle counts, default
// 1000,10000,100000), mixed (particles poured on a ramp, --sizes = particle counts, default
// 2000,20000), pyramid (--sizes = base rows, default 20,40), pyramids (base-10 pyramids
// side by side, --sizes = copies, default 10), boxes (box rain, --sizes = box counts, default
// 10000,100000 on a GPU, 1000,10000 on the CPU backend and 1000,4000 on a CPU Vulkan driver such
// as lavapipe), cloth (an n x n cloth dropped on a ball, --sizes = n, default 64,128,256 on a
// GPU, 32,64 on the CPU backend and lavapipe), cloth_self (the same with self-collision, a
// thickness of 0.75 spacings), cloth_hang (Bullet's cloth bench: a 10 m cloth
// pinned at two corners, --sizes = n, default 64,128,256 on a GPU, 64 on the CPU backend and
// lavapipe), flag (scenes/flag.json's flag in the wind at n x ceil(2n/3) vertices, --sizes = n,
// default 64,128,256 on a GPU, 64 elsewhere); rigid = pyramid, pyramids and boxes. --warmup
// defaults to 30 steps (particles), 60 (pyramids, cloth) and 120 (boxes); --steps to 20.
// --batch N times the steps N to a World::step(N) call: on the GPU backend each step is then
// submitted before the host reads the one before it (pipelined steps); the stage times and the
// redo counts are those of each call's last step.
//
// --device N|NAME picks the Vulkan device for the GPU backend (default: discrete GPU first,
// otherwise any Vulkan device, e.g. lavapipe).
// --validation and --sync-validation run it under the Vulkan validation layer: each error is
// printed as it happens, and a command that succeeded otherwise exits with status 3 if there
// were any (1: a check failed, such as compare's verdict; 2: an error stopped the command).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>

#include "tools/commands.h"
#include "vkphys/builtin_scenes.h"
#include "vkphys/devices.h"

namespace {

// A tolerance: a finite number >= 0 (NaN would pass every comparison, a negative one fail them).
const CLI::Validator kTolerance(
    [](std::string& text) -> std::string {
      double v = 0.0;
      try {
        v = std::stod(text);
      } catch (const std::exception&) {
        return "must be a number, not " + text;
      }
      return std::isfinite(v) && v >= 0.0 ? std::string()
                                          : "must be a finite number >= 0, not " + text;
    },
    "TOL >= 0");

const CLI::Validator kNonEmptyPath(
    [](std::string& text) {
      return text.empty() ? std::string("must not be empty (name a path)") : std::string();
    },
    "PATH");

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vkphys: GPU physics on Vulkan compute, checked against a CPU reference"};
  app.require_subcommand(1);
  vkphys::tools::Options opt;
  app.add_option("--device", opt.device, "Vulkan device: index from `vkphys info` or name part");
  app.add_flag("--validation", opt.validation, "enable the Vulkan validation layer");
  app.add_flag("--sync-validation", opt.sync_validation,
               "enable the Vulkan validation layer with its synchronization validation (a missing "
               "barrier between two commands is an error; slower)");

  auto* info = app.add_subcommand("info", "list Vulkan devices with their key limits");

  auto* run = app.add_subcommand("run", "run a scene and write frames and metrics");
  run->add_option("scene", opt.scene, "scene file (JSON)")->required();
  run->add_option("--backend", opt.backend, "gpu or cpu")->check(CLI::IsMember({"gpu", "cpu"}));
  run->add_option("--steps", opt.steps, "number of steps");
  run->add_option("--out", opt.out, "output folder (new or empty)")->check(kNonEmptyPath);
  run->add_flag("--force", opt.force,
                "write into a non-empty --out, replacing an earlier run's frames and metrics");
  run->add_option("--every", opt.every, "write a frame every K steps (0: first and last only)");
  run->add_flag("--vtk", opt.vtk,
                "also write each frame as VTK XML (DIR/vtk/frame_NNNNNN.vtp) and DIR/run.pvd");
  run->add_flag("--vtk-contacts", opt.vtk_contacts,
                "with --vtk (implied), also each frame's contact points with their normals, normal "
                "impulses and bodies (DIR/vtk/contacts_NNNNNN.vtp, listed in DIR/run.pvd)");
  run->add_flag("--png", opt.png,
                "also draw the last state to DIR/last.png (640x480) with the Vulkan device, as "
                "`vkphys render` draws");
  run->add_option("--scheme", opt.scheme, "solver scheme (overrides the scene's)")
      ->check(CLI::IsMember({"sequential", "colored", "jacobi"}));
  run->add_option("--checkpoint-every", opt.checkpoint_every,
                  "write DIR/checkpoint.snapshot every N steps (and at the first and last), which "
                  "`vkphys resume DIR` continues from")
      ->check(CLI::Range(1u, UINT32_MAX));

  auto* resume = app.add_subcommand(
      "resume", "continue a run started with --checkpoint-every from its last checkpoint");
  resume->add_option("dir", opt.out, "the run's output folder")->required()->check(kNonEmptyPath);
  resume->add_option("--steps", opt.steps, "run to step N (default: the run's own last step)");

  // The solver overrides run, compare and bench share.
  auto add_solver_overrides = [&opt](CLI::App* sub) {
    sub->add_option("--iterations", opt.iterations, "override solver.iterations")
        ->check(CLI::Range(1, 1000));
    sub->add_option("--substeps", opt.substeps, "override solver.substeps")
        ->check(CLI::Range(1, 64));
    sub->add_option("--relax", opt.relax, "override solver.relax_iterations")
        ->check(CLI::Range(0, 1000));
    sub->add_option("--particle-reorder", opt.particle_reorder,
                    "override solver.particle_reorder: particles in Morton order, sorted at load "
                    "and every N steps (0: the scene's order)")
        ->check(CLI::Range(0, 1000000000));
  };
  add_solver_overrides(run);

  auto* soak = app.add_subcommand(
      "soak", "a long run that checks for NaN, energy growth, memory growth and determinism");
  soak->add_option("scene", opt.scene, "scene file (JSON); not with --resume");
  soak->add_option("--resume", opt.resume,
                   "continue the soak in this folder from its last checkpoint, to --steps N "
                   "(default: its own last step)")
      ->check(kNonEmptyPath);
  soak->add_option("--backend", opt.backend, "gpu or cpu")->check(CLI::IsMember({"gpu", "cpu"}));
  soak->add_option("--steps", opt.steps, "number of steps");
  soak->add_option("--scheme", opt.scheme, "solver scheme (overrides the scene's)")
      ->check(CLI::IsMember({"sequential", "colored", "jacobi"}));
  soak->add_option("--sample-every", opt.sample_every,
                   "steps between samples (DIR/soak.csv) and checkpoints")
      ->check(CLI::Range(1u, UINT32_MAX));
  soak->add_option("--settle", opt.settle,
                   "the step from which energy and memory are held (default steps / 10)");
  soak->add_option("--energy-tol", opt.energy_tol,
                   "energy may rise above the settled value by F x max(|E(0)|, |E(settled)|, "
                   "1 mJ)")
      ->check(CLI::Range(0.0, 1e6));
  soak->add_option("--max-growth", opt.max_growth_mib,
                   "resident memory may grow by this many MiB after settling")
      ->check(CLI::Range(0.0, 1e6));
  soak->add_option("--out", opt.out, "folder for soak.csv and the checkpoint (default out/soak)")
      ->check(kNonEmptyPath);
  add_solver_overrides(soak);

  auto* cmp = app.add_subcommand("compare", "run both backends and report their differences");
  cmp->add_option("scene", opt.scene, "scene file (JSON)")->required();
  cmp->add_option("--steps", opt.steps, "number of steps");
  cmp->add_option("--pos-tol", opt.pos_tol, "position tolerance [m]")->check(kTolerance);
  cmp->add_option("--vel-tol", opt.vel_tol,
                  "velocity tolerance [m/s] (rigid bodies: also angular velocity [rad/s])")
      ->check(kTolerance);
  cmp->add_option("--rot-tol", opt.rot_tol, "rigid bodies: orientation tolerance [rad]")
      ->check(kTolerance);
  cmp->add_option("--scheme", opt.scheme, "solver scheme for both backends (default: the scene's)")
      ->check(CLI::IsMember({"sequential", "colored", "jacobi"}));
  cmp->add_flag("!--no-envelope", opt.envelope,
                "fixed tolerances only (by default a run may also differ by twice what rounding "
                "alone makes of it: three CPU runs nudged by 1 ulp)");
  cmp->add_option("--seeds", opt.seeds, "CPU runs nudged by 1 ulp that measure the envelope")
      ->check(CLI::Range(1, 64));
  cmp->add_option("--factor", opt.factor, "how many times the envelope a run may differ by")
      ->check(CLI::Range(1.0, 1e6));
  cmp->add_option("--checks", opt.checks,
                  "one-step checks of every stage from the CPU's state, spread over the run")
      ->check(CLI::Range(0, 1000));
  cmp->add_option("--report", opt.report,
                  "HTML report (default out/compare/SCENE.html, SCENE the file's name)");

  add_solver_overrides(cmp);

  auto* bench = app.add_subcommand("bench", "time the pipeline per stage");
  add_solver_overrides(bench);
  bench
      ->add_option(
          "workload", opt.workload,
          "particles, mixed, pyramid, pyramids, boxes, cloth, cloth_self, cloth_hang, flag, rigid "
          "(the three rigid ones) or all")
      ->check(CLI::IsMember({"particles", "mixed", "pyramid", "pyramids", "boxes", "cloth",
                             "cloth_self", "cloth_hang", "flag", "rigid", "all"}));
  bench
      ->add_option("--sizes", opt.sizes,
                   "particle counts, pyramid bases, pyramid copies or box counts")
      ->delimiter(',');
  bench->add_option("--scheme", opt.scheme, "solver scheme (default colored)")
      ->check(CLI::IsMember({"colored", "jacobi", "sequential", "all"}));
  bench->add_option("--warmup", opt.warmup,
                    "warm-up steps before timing (default 30 particles, 60 pyramids, 120 boxes)");
  bench->add_option("--backend", opt.backend, "gpu, cpu or both")
      ->check(CLI::IsMember({"gpu", "cpu", "both"}));
  bench->add_option("--steps", opt.steps, "timed steps per size");
  bench
      ->add_option("--batch", opt.batch,
                   "timed steps per World::step call (default 1); the GPU backend pipelines the "
                   "steps of a call, and the stage times are the mean of its steps' own")
      ->check(CLI::Range(1u, 1000000u));
  bench
      ->add_option("--fused", opt.fused,
                   "GPU: colouring and sweeps in one workgroup: auto (where each colour fits "
                   "one round; never on a CPU Vulkan driver), never or always")
      ->check(CLI::IsMember({"auto", "never", "always"}));
  bench
      ->add_option("--method", opt.method,
                   "how the springs are solved: compliant (SPOOK rows), force (forces, symplectic "
                   "Euler), implicit (forces, backward Euler) or all (default: the scene's)")
      ->check(CLI::IsMember({"compliant", "force", "implicit", "all"}));
  bench
      ->add_option("--tethers", opt.tethers,
                   "tethers (long-range attachments) from each free vertex to its nearest pin: "
                   "none, euclidean or geodesic (default none; workloads without pins run "
                   "without)")
      ->check(CLI::IsMember({"none", "euclidean", "geodesic"}));
  bench
      ->add_option("--cg-preconditioner", opt.cg_preconditioner,
                   "the implicit method's CG preconditioner: block_jacobi or lines (default: the "
                   "scene's solver.cg_preconditioner)")
      ->check(CLI::IsMember({"block_jacobi", "lines"}));
  bench
      ->add_option("--strain-limit", opt.strain_limit,
                   "strain-limit the force springs at this stretch (solver.strain_limit, default "
                   "passes; default: the scene's)")
      ->check(CLI::Range(0.0f, 10.0f));
  bench->add_flag("--shuffle", opt.shuffle,
                  "list the particles in random order (seed 7), as a poured pile or a user's list "
                  "may be (workloads whose particles are named by springs, triangles or drives "
                  "keep their order)");
  bench->add_option("--plot", opt.plot,
                    "folder for SVG plots: ms/step per stage against size, per backend and scheme");

  auto* render = app.add_subcommand("render", "draw a scene's run to PNG frames");
  render->add_option("scene", opt.scene, "scene file (JSON)")->required();
  render->add_option("--frames", opt.frames, "pictures (the first is the loaded state)");
  render->add_option("--every", opt.every, "steps between pictures (default 1)");
  render->add_option("--out", opt.out, "output folder");
  render->add_option("--backend", opt.backend, "gpu or cpu: which one simulates")
      ->check(CLI::IsMember({"gpu", "cpu"}));
  render->add_option("--scheme", opt.scheme, "solver scheme (overrides the scene's)")
      ->check(CLI::IsMember({"sequential", "colored", "jacobi"}));
  render->add_option("--width", opt.width, "picture width [pixels]")->check(CLI::Range(16, 8192));
  render->add_option("--height", opt.height, "picture height [pixels]")
      ->check(CLI::Range(16, 8192));
  render->add_option("--video", opt.video, "also assemble the frames into FILE with ffmpeg");

  auto* view = app.add_subcommand(
      "view",
      "simulate and draw a scene live in a window: space pause, S or right arrow step, R "
      "restart, left drag orbit (on an object: pull it with a mouse spring), wheel zoom, Esc or "
      "Q quit\n  example: vkphys view scenes/stack_5.json --backend cpu");
  view->add_option("scene", opt.scene, "scene file (JSON)")->required();
  view->add_option("--backend", opt.backend, "gpu or cpu: which one simulates")
      ->check(CLI::IsMember({"gpu", "cpu"}));
  view->add_option("--scheme", opt.scheme, "solver scheme (overrides the scene's)")
      ->check(CLI::IsMember({"sequential", "colored", "jacobi"}));
  view->add_option("--frames", opt.frames, "quit after N frames (default: when closed)");
  view->add_option("--screenshot", opt.screenshot, "write the last presented frame to FILE.png")
      ->check(kNonEmptyPath);
  view->add_option("--width", opt.width, "window width [pixels]")->check(CLI::Range(16, 8192));
  view->add_option("--height", opt.height, "window height [pixels]")->check(CLI::Range(16, 8192));

  auto* plot = app.add_subcommand("plot", "SVG plots of a run's metrics over time");
  plot->add_option("run_dir", opt.scene, "a `vkphys run` output folder (with metrics.csv)")
      ->required();

  auto* export_cmd = app.add_subcommand("export-scene", "write a built-in scene as JSON");
  export_cmd->add_option("name", opt.scene, "scene name")
      ->required()
      ->check(CLI::IsMember(vkphys::builtin_scene_names()));
  export_cmd->add_option("--size", opt.size, "count or base size, where the scene has one");
  export_cmd->add_option("--out", opt.export_out, "output file (default: standard output)")
      ->check(kNonEmptyPath);

  CLI11_PARSE(app, argc, argv);
  // The chosen command's own status, then the validation layer's verdict on it.
  const auto command = [&]() -> int {
    if (info->parsed()) return vkphys::tools::cmd_info(opt);
    if (run->parsed()) return vkphys::tools::cmd_run(opt);
    if (soak->parsed()) {
      if (!soak->count("--out")) opt.out = "out/soak";
      opt.steps_given = soak->count("--steps") > 0;
      opt.overrides_given = soak->count("--scheme") + soak->count("--backend") +
                                soak->count("--iterations") + soak->count("--substeps") +
                                soak->count("--relax") + soak->count("--particle-reorder") +
                                soak->count("--out") + soak->count("--sample-every") >
                            0;
      return vkphys::tools::cmd_soak(opt);
    }
    if (resume->parsed()) {
      opt.steps_given = resume->count("--steps") > 0;
      return vkphys::tools::cmd_resume(opt);
    }
    if (cmp->parsed()) return vkphys::tools::cmd_compare(opt);
    if (export_cmd->parsed()) return vkphys::tools::cmd_export_scene(opt);
    if (plot->parsed()) return vkphys::tools::cmd_plot(opt);
    if (render->parsed()) {
      if (!render->count("--every")) opt.every = 1;
      return vkphys::tools::cmd_render(opt);
    }
    if (view->parsed()) {
      if (!view->count("--frames")) opt.frames = 0;
      return vkphys::tools::cmd_view(opt);
    }
    if (bench->parsed()) {
      if (opt.backend == "gpu" && !bench->count("--backend")) opt.backend = "both";
      if (!bench->count("--steps")) opt.steps = 20;
      opt.sizes_given = bench->count("--sizes") > 0;
      opt.warmup_given = bench->count("--warmup") > 0;
      return vkphys::tools::cmd_bench(opt);
    }
    return 0;
  };
  int status = 0;
  try {
    status = command();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vkphys: %s\n", e.what());
    status = 2;
  }
  // A command that ran under --validation or --sync-validation fails when the layer found
  // anything: its errors scroll by on stderr, and a script only sees the status.
  if (const std::uint64_t errors = vkphys::validation_errors_reported(); errors > 0) {
    std::fprintf(stderr, "vkphys: the Vulkan validation layer reported %llu error(s) (above)\n",
                 static_cast<unsigned long long>(errors));
    if (status == 0) status = 3;
  }
  return status;
}
