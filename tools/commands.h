// The `vkphys` subcommands and the options they share. Public API only (include/vkphys/), as
// every file in tools/: the CLI is the library's first client.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vkphys/scene.h"
#include "vkphys/world.h"

namespace vkphys::tools {

// A soak's samples, in its folder (`vkphys soak`, tools/soak.cpp).
inline constexpr const char* kSoakSamplesFile = "soak.csv";

struct Options {
  std::string device;
  bool validation = false;       // --validation
  bool sync_validation = false;  // --sync-validation (implies validation)
  std::string scene;
  std::string backend = "gpu";
  std::uint32_t steps = 300;
  std::string out = "out/run";
  bool force = false;  // run: replace the frames and metrics of an earlier run in --out
  std::uint32_t every = 10;
  std::uint32_t checkpoint_every = 0;       // run: a checkpoint every N steps (0: none)
  bool steps_given = false;                 // resume: --steps was on the command line
  std::uint32_t sample_every = 100;         // soak: steps between samples and checkpoints
  std::string resume;                       // soak: continue the soak in this folder
  bool overrides_given = false;             // soak: --scheme, --backend or a solver override
  std::optional<std::uint32_t> settle;      // soak: checks start here (default steps / 10)
  double energy_tol = 0.01;                 // soak: energy bound after settling (SoakLimits)
  double max_growth_mib = 16.0;             // soak: resident memory growth allowed [MiB]
  bool vtk = false;                         // run: also write VTK XML frames and a .pvd series
  bool vtk_contacts = false;                // run: and each frame's contacts (implies vtk)
  bool png = false;                         // run: also draw the last state to DIR/last.png
  std::uint32_t frames = 60;                // render: pictures
  std::uint32_t width = 640, height = 480;  // render, view, run --png: picture size [pixels]
  std::string video;                        // render: assemble the frames with ffmpeg
  std::string screenshot;                   // view: PNG of the last presented frame
  double pos_tol = 1e-3;
  double vel_tol = 1e-2;
  double rot_tol = 1e-3;     // compare, rigid bodies: orientation tolerance [rad]
  bool envelope = true;      // compare: also hold the run to its 1-ulp rounding envelope
  std::uint32_t seeds = 3;   // compare: nudged CPU runs that measure the envelope
  std::uint32_t checks = 6;  // compare: one-step checks from the CPU's state over the run
  double factor = 2.0;       // compare: how many times its envelope a run may differ by
  std::string report;        // compare: HTML report path, empty = out/compare/SCENE.html
  std::string scheme;        // sequential|colored|jacobi (bench: or all); empty = default
  // run, compare, bench: override the scene's solver.iterations, substeps, relax_iterations
  std::optional<std::uint32_t> iterations, substeps, relax;
  std::optional<std::uint32_t> particle_reorder;  // ... and solver.particle_reorder
  bool shuffle = false;                           // bench: the particles listed in random order
  std::string workload = "all";  // bench: particles|pyramid|pyramids|boxes|rigid|all
  std::vector<std::uint32_t> sizes{1000, 10000, 100000};
  bool sizes_given = false;       // --sizes was on the command line
  std::uint32_t warmup = 0;       // bench: warm-up steps
  std::uint32_t batch = 1;        // bench: timed steps per World::step call (pipelined on a GPU)
  std::string plot;               // bench: folder for SVG plots of ms/step against size
  std::string fused = "auto";     // bench: auto|never|always (FusedPolicy, host/sim/backend.h)
  std::string method;             // bench: compliant|force|implicit|all; empty = the scene's
  std::string tethers = "none";   // bench: none|euclidean|geodesic, added to pinned cloths
  std::string cg_preconditioner;  // bench: block_jacobi|lines; empty = the scene's
  float strain_limit = 0.0f;      // bench: solver.strain_limit.stretch; 0 = the scene's
  bool warmup_given = false;      // --warmup was on the command line
  std::uint32_t size = 0;         // export-scene: count/base parameter, 0 = the builder's default
  std::string export_out;         // export-scene: output file, empty = stdout
};

// A World on `backend` and `device` with the validation the global flags ask for.
WorldOptions world_options(const Options& opt, const std::string& backend,
                           const std::string& device);

int cmd_info(const Options& opt);
// `vkphys run` and `vkphys resume DIR` (DIR is opt.out) (tools/run.cpp).
int cmd_run(const Options& opt);
int cmd_resume(const Options& opt);
// `vkphys soak SCENE` (tools/soak.cpp): a long run that checks itself.
int cmd_soak(const Options& opt);
int cmd_compare(const Options& opt);
int cmd_bench(const Options& opt);
// `vkphys plot RUN_DIR` (tools/plot.cpp): RUN_DIR is opt.scene.
int cmd_plot(const Options& opt);
// `vkphys render SCENE --frames N --out DIR` (tools/render.cpp).
int cmd_render(const Options& opt);
// `vkphys view SCENE` (tools/view.cpp): a live window; opt.frames 0 = until closed.
int cmd_view(const Options& opt);

// "sequential", "colored" or "jacobi" to the scheme; throws std::runtime_error otherwise.
SolverScheme parse_scheme(const std::string& name);

// Applies --iterations, --substeps and --relax to the scene's solver settings.
void apply_solver_overrides(const Options& opt, SolverSettings& solver);

// Prints "vkphys: warning: ..." to stderr when the scene's force springs are past their explicit
// stability bound at its step (vkphys/stability.h). The scene still runs as it is: showing an
// explicit method blow up is a use, so the bound is not an error.
void warn_stability(const Scene& scene);

// `vkphys export-scene NAME [--size N] [--out FILE]` (tools/export_scene.cpp): writes a
// built-in scene (vkphys/builtin_scenes.h) as scene JSON.
int cmd_export_scene(const Options& opt);

// Throws std::runtime_error "FLAG N: WHAT takes at most MAX (the scene loader's limits: ...)"
// when size > max (vkphys/limits.h).
void check_size(const char* flag, std::uint64_t size, const std::string& what, std::uint64_t max);

}  // namespace vkphys::tools
