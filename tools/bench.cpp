// `vkphys bench [WORKLOAD]`: ms/step per stage of the world step, for every workload through the
// one world.
//
//   particles a block of particles falling into a closed box (particle_box_scene), --sizes =
//             particle counts (default 1000,10000,100000; 1000,10000 on lavapipe)
//   pyramid   one pyramid of boxes (pyramid_scene), --sizes = base rows   (default 20,40)
//   pyramids  base-10 pyramids side by side, --sizes = copies               (default 10)
//   boxes     box_rain_scene, --sizes = box counts (default 10000,100000 on a GPU; smaller where
//             the GPU sizes would take many minutes on a small machine: 1000,10000 on the CPU
//             backend, 1000,4000 on a CPU Vulkan driver such as lavapipe)
//   mixed     particles poured onto a static ramp into a box of static walls (ramp_scene),
//             --sizes = particle counts (default 2000,20000; 2000 on lavapipe)
//   cloth     cloth_drape_scene: an n x n cloth dropped on a ball, --sizes = n (default
//             64,128,256; 32,64 on the CPU backend and on lavapipe)
//   cloth_self  the same drape with self-collision: thickness 0.75 of the vertex spacing
//             (cloth_drape_scene's self_collision), --sizes as cloth
//   cloth_hang  cloth_hang_scene: Bullet's cloth bench, a 10 m cloth pinned at two corners,
//             --sizes = n (default 64,128,256; 64 on the CPU backend and on lavapipe)
//   flag      flag_scene: scenes/flag.json's flag in the wind at n x ceil(2n/3) vertices, --sizes =
//             n (default 64,128,256; 64 on the CPU backend and on lavapipe)
//   rigid     pyramid, pyramids and boxes;   all: every workload (the default)
//
// --tethers euclidean|geodesic gives each free particle of a workload with pins a tether to its
// nearest pin (vkphys/cloth.h, add_tethers) with the stiffest spring's k and d: cloth_hang with
// long-range attachments (docs/benchmarks.md, "Tethers"). Workloads without pins run without.
//
// --method sets how a workload's springs are solved (issue 9's three methods): compliant (each
// spring a SPOOK row in the solver), force (a force, symplectic Euler over the scene's substeps)
// or implicit (a force, backward Euler by conjugate gradient), or all three; by default the
// scene's own. Workloads without springs run once. An explicit method past its stable step
// (vkphys/stability.h; its warning follows the row's progress line on stderr) diverges: a state
// that is no longer finite is refused at the World's next read (that row prints the error and the
// bench goes on), and strains that overflow are reported as diverged.
//
// --shuffle lists a workload's particles in random order (seed 7) where nothing names them by
// index, as a pile poured from several places or mixed by a long run may be; --particle-reorder
// N (as run's) holds them in Morton order, sorted at load and every N steps
// (host/sim/particle_order.h). The stage times leave the reorder out; "wall" holds it, in the
// steps that make one.
//
// Each workload/size/backend/scheme first runs --warmup steps (default 30 for the particles,
// which fall and compress into a pile; 120 for the mixed pour, while the particles land on the
// ramp; 60 for the pyramids, which settle; 120 for the box rain, long enough for the top layer
// to land from 5.5 m and the pile to settle), then times --steps steps. Stage times come from GPU
// timestamps on the GPU backend and from the host clock on the CPU backend; "wall" is the
// host-measured time of the whole step including submit and wait. Counts (pairs, points, rows,
// colours, overflow) are the last timed step's. Workloads with springs get a second table: the
// springs' strain after the last timed step (max of length / rest, mean of length / rest - 1,
// as Bullet's bench reports its links') and springs x steps per second of wall time. Output is
// Markdown tables for docs/benchmarks.md;
// progress goes to stderr. --plot DIR also writes DIR/bench_WORKLOAD_BACKEND_SCHEME.svg: ms/step
// of every stage and of the whole step against size, log axes (backend gpus: gpu* rows).
//
// Public API only: every workload is a World on one SharedDevice, built from a built-in scene,
// that reads its state back only when the springs table asks (ReadBack::on_demand), so a timed
// step is the backend's step alone.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "tools/progress.h"
#include "vkphys/builtin_scenes.h"
#include "vkphys/cloth.h"
#include "vkphys/devices.h"
#include "vkphys/error.h"
#include "vkphys/files.h"
#include "vkphys/limits.h"
#include "vkphys/plot.h"
#include "vkphys/world.h"

namespace vkphys::tools {

namespace {

struct Workload {
  const char* name;
  const char* scene;                            // its built-in scene (vkphys/builtin_scenes.h)
  std::vector<std::uint32_t> gpu_sizes;         // default sizes on a GPU
  std::vector<std::uint32_t> cpu_sizes;         // ... on the CPU backend
  std::vector<std::uint32_t> cpu_driver_sizes;  // ... on a CPU Vulkan driver (lavapipe)
  std::uint32_t warmup;
};

const std::array<Workload, 9>& workloads() {
  static const std::array<Workload, 9> w{{
      {"particles",
       "particle-box",
       {1000, 10000, 100000},
       {1000, 10000, 100000},
       {1000, 10000},
       30},
      {"mixed", "ramp", {2000, 20000}, {2000, 20000}, {2000}, 120},
      {"pyramid", "pyramid", {20, 40}, {20, 40}, {20, 40}, 60},
      {"pyramids", "pyramids", {10}, {10}, {10}, 60},
      {"boxes", "box-rain", {10000, 100000}, {1000, 10000}, {1000, 4000}, 120},
      {"cloth", "cloth-drape", {64, 128, 256}, {32, 64}, {32, 64}, 60},
      {"cloth_self", "cloth-drape-self", {64, 128, 256}, {32, 64}, {32, 64}, 60},
      {"cloth_hang", "cloth-hang", {64, 128, 256}, {64}, {64}, 60},
      {"flag", "flag", {64, 128, 256}, {64}, {64}, 60},
  }};
  return w;
}

// The particles fall with seed 7's jitter, as the published figures (docs/benchmarks.md) did.
Scene build(const Workload& w, std::uint32_t size) {
  return builtin_scene(w.scene, size, std::string_view(w.scene) == "particle-box" ? 7 : 0);
}

// 12345 -> "12,345".
std::string thousands(std::uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// One table row, kept for --plot.
struct Timed {
  std::string workload, backend, scheme;
  double size = 0;
  std::vector<double> stage_ms;  // per stage, in step_stage_names()'s order
  double wall_ms = 0;
};

// --plot DIR: per workload, backend and scheme, ms/step of every stage and of the whole step
// against size, both axes logarithmic.
void plot_bench(const std::filesystem::path& dir, const std::vector<Timed>& rows,
                const std::string& device_note) {
  std::filesystem::create_directories(dir);
  std::map<std::string, std::vector<const Timed*>> groups;
  for (const Timed& r : rows) groups[r.workload + "_" + r.backend + "_" + r.scheme].push_back(&r);
  for (const auto& entry : groups) {
    const std::vector<const Timed*>& group = entry.second;  // a lambda may not capture a binding
    Plot p;
    const Timed& first = *group.front();
    p.title = fmt::format("{}: {} backend, {}{}", first.workload, first.backend, first.scheme,
                          first.backend == "gpu*" ? device_note : "");
    p.x_label = "size (log)";
    p.y_label = "ms/step (log)";
    p.log_x = p.log_y = true;
    auto series = [&](const std::string& label, auto value) {
      PlotSeries s{label, {}, {}, plot_color(p.series.size()), label == "wall"};
      for (const Timed* r : group) {
        s.x.push_back(r->size);
        s.y.push_back(value(*r));
      }
      p.series.push_back(std::move(s));
    };
    const std::vector<const char*> stages = step_stage_names();
    for (std::size_t s = 0; s < stages.size(); ++s) {
      series(stages[s], [s](const Timed& r) { return r.stage_ms[s]; });
    }
    series("wall", [](const Timed& r) { return r.wall_ms; });
    std::string file = entry.first;
    for (char& c : file) {
      if (c == '*') c = 's';  // gpu* -> gpus: a CPU Vulkan driver's rows
    }
    const std::filesystem::path out = dir / ("bench_" + file + ".svg");
    write_file_atomic(out, svg_plot(p));
    std::printf("plot: %s\n", out.c_str());
  }
}

// The --method values to run: the scene's own (""), one, or all three.
std::vector<std::string> bench_methods(const std::string& asked) {
  if (asked.empty()) return {""};
  if (asked == "all") return {"compliant", "force", "implicit"};
  return {asked};
}

// Every spring of `scene` solved by `method` (see the essay above; "" leaves the scene as it is).
void apply_method(const std::string& method, Scene& scene) {
  if (method.empty()) return;
  const SpringModel model = method == "compliant" ? SpringModel::compliant : SpringModel::force;
  for (Spring& spring : scene.springs) {
    if (!spring.tether()) spring.model = model;  // a tether is a row whichever the method
  }
  scene.settings.solver.integrator =
      method == "implicit" ? Integrator::implicit : Integrator::symplectic;
}

bool has_force_springs(const Scene& scene) {
  return std::any_of(scene.springs.begin(), scene.springs.end(),
                     [](const Spring& s) { return s.model == SpringModel::force; });
}

// --tethers: tethers among all of the scene's particles with its stiffest compliant spring's k
// and d; "" when added (or asked for none), else why not (no pin, no compliant spring).
std::string apply_tethers(const std::string& asked, Scene& scene) {
  if (asked == "none" || scene.springs.empty()) return {};
  const Spring* stiffest = nullptr;
  for (const Spring& s : scene.springs) {
    if (s.model == SpringModel::compliant && (!stiffest || s.k > stiffest->k)) stiffest = &s;
  }
  if (!stiffest) return "no compliant spring to take k and d from";
  const float k = stiffest->k, d = stiffest->d;
  try {
    add_tethers(scene, 0, static_cast<std::uint32_t>(scene.particles.size()),
                asked == "geodesic" ? ClothTethers::geodesic : ClothTethers::euclidean, k, d);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

// --shuffle: the scene's particles listed in random order (seed 7), as a pile poured from
// several places, mixed by a long run or listed by a user may come; "" when shuffled, else why
// not. Only a scene whose particles nothing names by index is shuffled, so that no spring,
// triangle or drive needs renumbering.
std::string shuffle_particles(Scene& scene) {
  const bool named = !scene.springs.empty() || !scene.triangles.empty() ||
                     std::any_of(scene.kinematic.begin(), scene.kinematic.end(),
                                 [](const KinematicPath& k) { return k.target.particle; }) ||
                     std::any_of(scene.impulses.begin(), scene.impulses.end(),
                                 [](const ScheduledImpulse& m) { return m.target.particle; });
  if (named) return "springs, triangles or drives name its particles";
  Particles& p = scene.particles;
  std::vector<std::uint32_t> order(p.size());
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937 rng(7u);
  std::shuffle(order.begin(), order.end(), rng);
  auto gather = [&](auto& list) {
    if (list.empty()) return;
    auto copy = list;
    for (std::size_t k = 0; k < order.size(); ++k) list[k] = copy[order[k]];
  };
  gather(p.pos_radius);
  gather(p.vel_invmass);
  gather(p.material);
  gather(p.group);
  gather(p.thickness);
  return {};
}

bool chosen_by(const std::string& asked, const std::string& workload) {
  if (asked == "all" || asked == workload) return true;
  return asked == "rigid" &&
         (workload == "pyramid" || workload == "pyramids" || workload == "boxes");
}

// The backends `--backend cpu|gpu|both` asks for, in that order. Opens the device into `gpu` for
// "gpu" (a device that cannot be opened prints one line and drops "gpu") and prints the device
// line, saying so when it is a CPU Vulkan driver (its rows are marked gpu*).
std::vector<std::string> open_backends(const Options& opt, SharedDevice& gpu) {
  std::vector<std::string> backends;
  if (opt.backend == "cpu" || opt.backend == "both") backends.push_back("cpu");
  if (opt.backend == "gpu" || opt.backend == "both") {
    try {
      gpu = SharedDevice::open(opt.device, opt.validation, opt.sync_validation);
      backends.push_back("gpu");
    } catch (const Error& e) {
      std::printf("GPU backend skipped: %s\n", e.what());
    }
  }
  if (gpu.is_open()) {
    const GpuDevice d = gpu.info();
    std::printf(
        "device: %s (%s), driver %s%s\n", d.name.c_str(), d.type.c_str(), d.driver.c_str(),
        d.type == "cpu" ? "  -- a CPU Vulkan driver: NOT GPU timings (rows marked gpu*)" : "");
  }
  return backends;
}

FusedSolve fused_solve(const std::string& name) {
  return name == "never"    ? FusedSolve::never
         : name == "always" ? FusedSolve::always
                            : FusedSolve::automatic;
}

}  // namespace

int cmd_bench(const Options& opt) {
  std::vector<SolverScheme> schemes;
  if (opt.scheme.empty() || opt.scheme == "colored") {
    schemes = {SolverScheme::colored};
  } else if (opt.scheme == "all") {
    schemes = {SolverScheme::colored, SolverScheme::jacobi, SolverScheme::sequential};
  } else {
    schemes = {parse_scheme(opt.scheme)};
  }
  if (opt.backend == "gpu" && schemes == std::vector{SolverScheme::sequential}) {
    throw std::runtime_error(
        "--scheme sequential runs on the CPU backend only: use --backend cpu or both");
  }
  if (opt.steps == 0) throw std::runtime_error("--steps must be at least 1");
  const std::vector<std::string> methods = bench_methods(opt.method);
  std::vector<const Workload*> chosen;
  for (const Workload& w : workloads()) {
    if (!chosen_by(opt.workload, w.name)) continue;
    chosen.push_back(&w);
    if (!opt.sizes_given) continue;
    for (std::uint32_t size : opt.sizes) {
      check_size("--sizes", size, fmt::format("the {} workload", w.name),
                 builtin_scene_max_size(w.scene));
    }
  }

  SharedDevice gpu;
  const std::vector<std::string> backends = open_backends(opt, gpu);
  const std::string cpu_driver_name =
      gpu.is_open() && gpu.info().type == "cpu" ? gpu.info().name : "";
  const bool cpu_driver = !cpu_driver_name.empty();
  // The device's floors: the traffic model's bytes over the faster of its copy and kernel
  // bandwidths, and its cost of a dispatch times the step's dispatches (vkphys/devices.h,
  // DeviceSpeed).
  std::optional<DeviceSpeed> speed;
  if (gpu.is_open() && gpu.info().timestamps) {
    speed = gpu.measure_speed();
    std::printf(
        "\n%s%s: a copy moves %.1f GB/s and a streaming kernel %.1f GB/s (read + write); a "
        "small dispatch and its barriers take %.2f us (measured at start, best of three)\n",
        gpu.info().name.c_str(), cpu_driver ? " (a CPU Vulkan driver)" : "", speed->copy_gb_per_s,
        speed->kernel_gb_per_s, speed->dispatch_us);
  }
  const std::vector<const char*> stages = step_stage_names();
  std::printf(
      "\n| workload | size | bodies | particles | backend | scheme | pairs | points | particle "
      "contacts | rows | colours | overflow | dispatches | barriers | device MiB | ");
  for (const char* stage : stages) std::printf("%s | ", stage);
  std::printf("stages sum | wall ms/step | steps/s | MB/step (model) | floor ms (model) |\n|");
  for (std::size_t s = 0; s < stages.size() + 20; ++s) std::printf("---|");
  std::printf("\n");
  std::fflush(stdout);

  std::uint32_t regrow_rows = 0;
  std::vector<Timed> timed;
  std::vector<std::string> strain_rows;  // the springs table, printed after the timings
  for (const Workload* w : chosen) {
    const std::uint32_t warmup = opt.warmup_given ? opt.warmup : w->warmup;
    for (const std::string& which : backends) {
      const std::vector<std::uint32_t>& sizes = opt.sizes_given  ? opt.sizes
                                                : which == "cpu" ? w->cpu_sizes
                                                : cpu_driver     ? w->cpu_driver_sizes
                                                                 : w->gpu_sizes;
      for (std::uint32_t size : sizes) {
        Scene scene = build(*w, size);
        const std::string untethered = apply_tethers(opt.tethers, scene);
        if (!untethered.empty())
          std::printf("(%s %u without tethers: %s)\n", w->name, size, untethered.c_str());
        std::string tethered =
            opt.tethers != "none" && untethered.empty() ? ", tethers " + opt.tethers : "";
        if (opt.shuffle) {
          const std::string unshuffled = shuffle_particles(scene);
          if (unshuffled.empty()) {
            tethered += ", shuffled";
          } else {
            std::printf("(%s %u not shuffled: %s)\n", w->name, size, unshuffled.c_str());
          }
        }
        const auto bodies = static_cast<std::uint32_t>(scene.bodies.size());
        const auto particles = static_cast<std::uint32_t>(scene.particles.size());
        const auto joints = static_cast<std::uint32_t>(scene.joints.size());
        for (SolverScheme scheme : schemes) {
          if (which == "gpu" && scheme == SolverScheme::sequential) {
            if (opt.scheme != "all") std::printf("(sequential: CPU backend only, GPU skipped)\n");
            continue;
          }
          scene.settings.solver.scheme = scheme;
          apply_solver_overrides(opt, scene.settings.solver);
          for (const std::string& method : methods) {
            if (scene.springs.empty() && method != methods.front()) continue;
            Scene solved = scene;
            apply_method(method, solved);
            if (!opt.cg_preconditioner.empty()) {
              solved.settings.solver.cg_preconditioner = opt.cg_preconditioner == "lines"
                                                             ? CgPreconditioner::lines
                                                             : CgPreconditioner::block_jacobi;
            }
            // Only force springs are limited (a row holds its own length).
            const bool limited = opt.strain_limit > 0.0f && has_force_springs(solved);
            if (limited) solved.settings.solver.strain_limit.stretch = opt.strain_limit;
            const std::string label =
                (method.empty() || scene.springs.empty()
                     ? std::string(scheme_name(scheme))
                     : std::string(scheme_name(scheme)) + ", " + method) +
                tethered +
                (limited ? fmt::format(", strain limit {}", opt.strain_limit) : std::string()) +
                (solved.settings.solver.particle_reorder > 0 && particles > 0
                     ? fmt::format(", reorder every {}", solved.settings.solver.particle_reorder)
                     : std::string());
            try {
              WorldOptions options{.backend = which, .read_back = ReadBack::on_demand};
              if (which == "gpu") {
                options.fused = fused_solve(opt.fused);
                options.shared_device = gpu;
              }
              std::fprintf(
                  stderr,
                  "%s %u (%u bodies, %u particles), %s, %s: %u warm-up + %u timed steps%s\n",
                  w->name, size, bodies, particles, which.c_str(), label.c_str(), warmup, opt.steps,
                  opt.batch > 1 ? fmt::format(" in calls of {}", opt.batch).c_str() : "");
              warn_stability(solved);  // a force row past its bound is expected to diverge
              World world(solved, options);
              Progress progress(std::uint64_t{warmup} + opt.steps);
              // GPU: steps redone because a solve ran out of its recorded CG iterations
              // (implicit) or the colouring out of its recorded colours (coloured scheme); on
              // stderr, warm-up and timed steps apart.
              std::uint32_t cg_redos_warmup = 0, cg_redos = 0;
              std::uint32_t color_redos_warmup = 0, color_redos = 0;
              for (std::uint32_t k = 0; k < warmup; ++k) {
                world.step();
                cg_redos_warmup += world.statistics().cg_redos;
                color_redos_warmup += world.statistics().color_redos;
                progress.update(k + 1u);
              }
              std::vector<double> stage_sum(stages.size());
              double wall = 0.0;
              std::uint32_t regrows = 0;
              // A swinging cloth's strain at one instant depends on the swing's phase (the hanging
              // 64 x 64 cloth at 8 x 1 read 2.0% at step 300 and 4.6% at step 360), so the strain
              // is also sampled every kStrainEvery timed steps, outside the timed interval.
              constexpr std::uint32_t kStrainEvery = 10;
              double strain_sum = 0.0;
              std::uint32_t strain_samples = 0;
              std::uint64_t cg_iterations = 0;
              for (std::uint32_t k = 0; k < opt.steps;) {
                // A call of n steps (--batch): its stage times are the n steps' mean, its other
                // statistics its last step's, which stand for all n.
                const std::uint32_t n = std::min(opt.batch, opt.steps - k);
                const auto t0 = std::chrono::steady_clock::now();
                world.step(n);
                wall +=
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count();
                const StepStatistics st = world.statistics();
                for (std::size_t s = 0; s < stages.size(); ++s) stage_sum[s] += n * st.stages[s].ms;
                regrows += st.regrows;
                cg_iterations += std::uint64_t{n} * st.cg_iterations;
                cg_redos += st.cg_redos;
                color_redos += st.color_redos;
                if (!scene.springs.empty() && (k + n) / kStrainEvery > k / kStrainEvery) {
                  strain_sum += world.spring_strain().mean;
                  ++strain_samples;
                }
                k += n;
                progress.update(std::uint64_t{warmup} + k);
              }
              progress.finish();
              if (solved.settings.solver.integrator == Integrator::implicit && which == "gpu") {
                std::fprintf(stderr, "CG redos: %u in %u warm-up steps, %u in %u timed steps\n",
                             cg_redos_warmup, warmup, cg_redos, opt.steps);
              }
              if (solved.settings.solver.scheme == SolverScheme::colored && which == "gpu") {
                std::fprintf(stderr, "colour redos: %u in %u warm-up steps, %u in %u timed steps\n",
                             color_redos_warmup, warmup, color_redos, opt.steps);
              }
              const StepStatistics st = world.statistics();
              const Contacts ct = world.contacts();
              const double steps = opt.steps;
              const std::uint32_t units = joints + ct.manifolds + ct.particle_contacts;
              const bool colored = scheme == SolverScheme::colored;
              std::string colours = colored ? std::to_string(st.colors) : "—";
              std::string overflow =
                  !colored
                      ? "—"
                      : fmt::format("{:.2f}%", units ? 100.0 * st.overflow_units / units : 0.0);
              std::string dispatches = which == "gpu" ? std::to_string(st.dispatches) : "—";
              std::string barriers = which == "gpu" ? std::to_string(st.barriers) : "—";
              std::string mib = which == "gpu"
                                    ? fmt::format("{:.1f}", double(st.device_bytes) / (1u << 20))
                                    : "—";
              std::printf(
                  "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | ",
                  w->name, thousands(size).c_str(), thousands(bodies).c_str(),
                  thousands(particles).c_str(),
                  which == "gpu" ? (cpu_driver ? "gpu*" : "gpu") : "cpu", label.c_str(),
                  thousands(ct.pairs).c_str(), thousands(ct.points).c_str(),
                  thousands(ct.particle_contacts).c_str(), thousands(ct.rows).c_str(),
                  colours.c_str(), overflow.c_str(), dispatches.c_str(), barriers.c_str(),
                  mib.c_str());
              double total = 0.0;
              for (double ms : stage_sum) {
                std::printf("%.3f | ", ms / steps);
                total += ms / steps;
              }
              std::uint64_t model_bytes = 0;
              for (const StageTime& stage : st.stages) model_bytes += stage.model_bytes;
              std::string floor = "—";
              if (which == "gpu" && speed) {
                const double bytes_ms = double(model_bytes) / (speed->gb_per_s() * 1e6);
                const double dispatch_ms = st.dispatches * speed->dispatch_us / 1000.0;
                floor = fmt::format("{:.3f} ({})", std::max(bytes_ms, dispatch_ms),
                                    bytes_ms >= dispatch_ms ? "bytes" : "dispatches");
              }
              std::printf("%.3f | %.3f | %.1f | %.2f | %s |\n", total, wall / steps,
                          1000.0 * steps / wall, double(model_bytes) / 1e6, floor.c_str());
              Timed t{w->name, which == "gpu" ? (cpu_driver ? "gpu*" : "gpu") : "cpu",
                      label,   double(size),
                      {},      wall / steps};
              for (double ms : stage_sum) t.stage_ms.push_back(ms / steps);
              timed.push_back(t);
              if (!scene.springs.empty()) {
                const SpringStrain strain = world.spring_strain();
                const std::string sampled =
                    strain_samples
                        ? fmt::format("{:.5f} ({})", strain_sum / strain_samples, strain_samples)
                        : std::string("—");
                const std::string cg = solved.settings.solver.integrator == Integrator::implicit
                                           ? fmt::format("{:.1f}", double(cg_iterations) / steps)
                                           : std::string("—");
                const std::string strains =
                    std::isfinite(strain.max_ratio) && std::isfinite(strain.mean)
                        ? fmt::format("{:.4f} | {:.5f} | {}", strain.max_ratio, strain.mean,
                                      sampled)
                        : std::string("diverged: not finite | — | —");
                strain_rows.push_back(
                    fmt::format("| {} | {} | {} | {} | {} | {} x {} | {} | {} | {:.3g} |", w->name,
                                thousands(size), t.backend, t.scheme, thousands(strain.springs),
                                scene.settings.solver.substeps, scene.settings.solver.iterations,
                                cg, strains, double(strain.springs) * 1000.0 * steps / wall));
              }
              if (regrows) ++regrow_rows;
            } catch (const std::exception& e) {
              std::printf(
                  "| %s | %s | %s | %s | %s | %s | failed: %s |\n", w->name,
                  thousands(size).c_str(), thousands(bodies).c_str(), thousands(particles).c_str(),
                  which == "gpu" ? (cpu_driver ? "gpu*" : "gpu") : "cpu", label.c_str(), e.what());
            }
            std::fflush(stdout);
          }
        }
      }
    }
  }
  if (!strain_rows.empty()) {
    std::printf(
        "\n| workload | size | backend | scheme | springs | substeps x iterations | CG iterations "
        "/ step | max length / rest | mean strain | mean strain over the timed steps (samples) | "
        "springs x steps/s |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const std::string& row : strain_rows) std::printf("%s\n", row.c_str());
  }
  if (regrow_rows) {
    std::printf(
        "\nnote: %u row(s) include steps redone after a pair or contact overflow (regrows) in "
        "the timed steps; raise --warmup\n",
        regrow_rows);
  }
  if (cpu_driver) {
    std::printf("\ngpu*: the GPU backend on %s, a CPU Vulkan driver: not GPU timings\n",
                cpu_driver_name.c_str());
  }
  if (!opt.plot.empty()) {
    plot_bench(opt.plot, timed,
               cpu_driver ? " (" + cpu_driver_name + ": a CPU Vulkan driver, not GPU timings)"
                          : std::string());
  }
  return 0;
}

}  // namespace vkphys::tools
