// `vkphys soak SCENE`: a long run that checks itself (issue 13). Every --sample-every steps it
// records energy, momentum, penetration, the process's resident memory and open files and the
// GPU's device memory into DIR/soak.csv and writes a checkpoint (DIR/checkpoint.snapshot, whole
// then renamed); at the end it replays the last stretch from the checkpoint before the last and
// must land on the same bits. The verdict is one line; the rules are vkphys/soak.h's. The
// public API alone.
// `vkphys soak --resume DIR` continues a soak from its last checkpoint, so that a soak longer
// than a machine session (the 1,000,000 CPU steps: about a day) is run in parts: the
// plan (scene, backend, device, last step, sample interval) is DIR/run.json, the samples so far
// are DIR/soak.csv (rows after the checkpoint, left by a kill between a sample and its
// checkpoint, are dropped), and the steps after the checkpoint are the same bits as one run's.
#include "vkphys/soak.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "tools/progress.h"
#include "tools/run_plan.h"
#include "vkphys/error.h"
#include "vkphys/files.h"
#include "vkphys/recorder.h"
#include "vkphys/scene_file.h"
#include "vkphys/snapshot.h"
#include "vkphys/world.h"

namespace vkphys::tools {
namespace {

namespace fs = std::filesystem;

// Resident memory of this process (Linux: /proc/self/statm, in pages), 0 where unknown.
std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::uint32_t open_files() {
  std::uint32_t n = 0;
  std::error_code ec;
  for (fs::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) {
    ++n;
  }
  return n;
}

// Whether two Worlds' states have the same bits, every field.
bool same_bits(const World& a, const World& b) {
  for (Field f :
       {Field::body_position, Field::body_orientation, Field::body_velocity,
        Field::body_angular_velocity, Field::particle_position, Field::particle_velocity}) {
    const std::span<const glm::vec4> x = a.state(f), y = b.state(f);
    if (x.size() != y.size()) return false;
    // An empty span's data() may be null, which memcmp may not take (UBSan flags it).
    if (!x.empty() && std::memcmp(x.data(), y.data(), x.size_bytes()) != 0) return false;
  }
  return true;
}

SoakSample sample(const World& world) {
  const Metrics m = world.metrics();
  const StepStatistics st = world.statistics();
  SoakSample s;
  s.step = world.steps();
  s.energy = m.energy();
  s.kinetic = m.kinetic();
  s.max_penetration = m.max_penetration;
  s.rss_bytes = resident_bytes();
  s.open_files = open_files();
  s.device_bytes = st.device_bytes;
  s.pair_capacity = st.pair_capacity;
  s.contact_capacity = st.contact_capacity;
  return s;
}

// The header of DIR/soak.csv.
constexpr const char* kSoakHeader =
    "step,wall_s,energy,kinetic,px,py,pz,max_penetration,rss_bytes,open_files,device_bytes,"
    "pair_capacity,contact_capacity";

// An earlier part of a soak, read from its soak.csv up to the checkpoint's step: its samples,
// the file's text through that row (header included: what the resumed part appends to) and the
// kept rows' last wall time. Rows after the checkpoint (a kill between a sample and its
// checkpoint) and a last row cut short are left out. Throws naming the file and the line.
struct EarlierSamples {
  std::vector<SoakSample> samples;
  std::string kept;
  double wall = 0.0;
};

EarlierSamples read_samples(const fs::path& file, std::uint64_t last) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot read the soak's samples");
  std::string line;
  std::getline(in, line);
  if (line != kSoakHeader) {
    throw std::runtime_error(file.string() + ": line 1 is not the soak's header");
  }
  EarlierSamples e;
  e.kept = line + '\n';
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    SoakSample s;
    double px = 0.0, py = 0.0, pz = 0.0, w = 0.0;
    unsigned long long step = 0, rss = 0, device = 0;
    unsigned files = 0, pairs = 0, contacts = 0;
    char end = 0;
    if (std::sscanf(line.c_str(), "%llu,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%llu,%u,%llu,%u,%u%c", &step,
                    &w, &s.energy, &s.kinetic, &px, &py, &pz, &s.max_penetration, &rss, &files,
                    &device, &pairs, &contacts, &end) != 13) {
      if (in.peek() == EOF) break;  // a last row cut short by a kill
      throw std::runtime_error(
          fmt::format("{}: line {} is not a sample: {}", file.string(), number, line));
    }
    if (step > last) break;  // taken after the checkpoint: the resumed part takes it again
    s.step = step;
    s.rss_bytes = rss;
    s.open_files = files;
    s.device_bytes = device;
    s.pair_capacity = pairs;
    s.contact_capacity = contacts;
    e.samples.push_back(s);
    e.kept += line + '\n';
    e.wall = w;
  }
  if (e.samples.empty() || e.samples.back().step != last) {
    throw std::runtime_error(
        fmt::format("{}: no sample at the checkpoint's step {}", file.string(), last));
  }
  return e;
}

struct SoakRun {
  World world;
  WorldOptions options;
  fs::path dir;
  std::uint64_t last_step = 0;  // the soak's last step
  std::uint32_t sample_every = 0;
  std::vector<SoakSample> samples;  // every part's, oldest first
  double wall_before = 0.0;         // the earlier parts' wall time [s]
  std::uint64_t memory_from = 0;    // this process's first sample
};

// Steps `run` to its last step, sampling and checkpointing, and judges it; the exit status.
int soak_steps(SoakRun& run, const Options& opt, bool append) {
  World& world = run.world;
  const fs::path& dir = run.dir;
  std::ofstream csv(dir / kSoakSamplesFile, append ? std::ios::app : std::ios::trunc);
  if (!append) csv << kSoakHeader << '\n';
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t first = world.steps();
  auto record = [&] {
    SoakSample s = sample(world);
    const Metrics m = world.metrics();
    csv << fmt::format(
               "{},{:.3f},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{},{},{}\n", s.step,
               run.wall_before +
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
               s.energy, s.kinetic, m.momentum.x, m.momentum.y, m.momentum.z, s.max_penetration,
               s.rss_bytes, s.open_files, s.device_bytes, s.pair_capacity, s.contact_capacity)
        << std::flush;
    run.samples.push_back(s);
  };
  if (append) {
    // The checkpoint's own sample, with this process's memory and files, which the memory
    // checks start from (its row stays the earlier part's).
    const SoakSample here = sample(world);
    SoakSample& at = run.samples.back();
    at.rss_bytes = here.rss_bytes;
    at.open_files = here.open_files;
    at.device_bytes = here.device_bytes;
    at.pair_capacity = here.pair_capacity;
    at.contact_capacity = here.contact_capacity;
  } else {
    record();
  }
  Snapshot latest = world.save(), before = latest;  // the last two checkpoints
  latest.write(dir / kCheckpointFile);
  const std::uint64_t total = run.last_step - first;
  Progress progress(static_cast<std::uint32_t>(total));
  // The steps between samples go to the World together (World::step(n): pipelined on the GPU,
  // the state read after the last of them; every step checks itself for NaN and names itself).
  while (world.steps() < run.last_step) {
    const std::uint64_t k = world.steps();
    const auto n = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(run.sample_every - k % run.sample_every, run.last_step - k));
    try {
      world.step(n);
    } catch (const NonFiniteError& e) {
      progress.finish();
      std::printf("soak FAIL: %s (the last checkpoint, step %llu, is in %s)\n", e.what(),
                  static_cast<unsigned long long>(latest.step()), dir.string().c_str());
      return 1;
    }
    record();
    before = latest;
    latest = world.save();
    latest.write(dir / kCheckpointFile);
    progress.update(static_cast<std::uint32_t>(world.steps() - first));
  }
  progress.finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  SoakLimits limits;
  limits.settle_step = opt.settle ? *opt.settle : run.last_step / 10u;
  limits.energy_tol = opt.energy_tol;
  limits.max_rss_growth = static_cast<std::uint64_t>(opt.max_growth_mib * (1u << 20));
  limits.memory_from_step = run.memory_from;
  std::vector<std::string> failed = soak_failures(run.samples, limits);
  // Determinism: the stretch since the checkpoint before the last, replayed in a new World.
  World replay = World::load(before, run.options);
  replay.step(static_cast<std::uint32_t>(world.steps() - before.step()));
  if (!same_bits(world, replay)) {
    failed.push_back(fmt::format("steps {}..{} replayed from their checkpoint end elsewhere",
                                 before.step(), world.steps()));
  }
  const auto ref = std::find_if(run.samples.begin(), run.samples.end(),
                                [&](const SoakSample& s) { return s.step >= limits.settle_step; });
  const auto mem = std::find_if(ref, run.samples.end(), [&](const SoakSample& s) {
    return s.step >= limits.memory_from_step;
  });
  if (ref != run.samples.end() && mem != run.samples.end()) {
    const SoakSample& last = run.samples.back();
    std::printf(
        "steps %llu..%llu in %.1f s; from step %llu: energy %.6g -> %.6g J; from step %llu: "
        "resident memory %+.1f MiB, open files %u -> %u, device memory %llu -> %llu bytes; steps "
        "%llu..%llu replayed\n",
        static_cast<unsigned long long>(first), static_cast<unsigned long long>(world.steps()),
        seconds, static_cast<unsigned long long>(ref->step), ref->energy, last.energy,
        static_cast<unsigned long long>(mem->step),
        (static_cast<double>(last.rss_bytes) - static_cast<double>(mem->rss_bytes)) / (1 << 20),
        mem->open_files, last.open_files, static_cast<unsigned long long>(mem->device_bytes),
        static_cast<unsigned long long>(last.device_bytes),
        static_cast<unsigned long long>(before.step()),
        static_cast<unsigned long long>(world.steps()));
  }
  if (failed.empty()) {
    std::printf("soak OK: no NaN, energy bounded, no memory or file growth, deterministic (%s)\n",
                (dir / kSoakSamplesFile).string().c_str());
    return 0;
  }
  for (const std::string& f : failed) std::printf("soak FAIL: %s\n", f.c_str());
  return 1;
}

int soak_resume(const Options& opt) {
  if (!opt.scene.empty() || opt.overrides_given) {
    throw std::runtime_error(
        "soak --resume takes the scene, backend, solver settings, sample interval and folder "
        "from the soak it continues: give only --steps, --settle, --energy-tol, --max-growth");
  }
  const fs::path dir = opt.resume;
  const RunPlan plan = read_run_plan(dir);
  const fs::path file = dir / kCheckpointFile;
  if (!fs::exists(file)) throw std::runtime_error(file.string() + ": no checkpoint to resume from");
  const Snapshot snapshot = Snapshot::read(file);
  const std::uint64_t last = opt.steps_given ? opt.steps : plan.steps;
  if (last < snapshot.step()) {
    throw std::runtime_error(fmt::format("--steps {}: the checkpoint in {} is already at step {}",
                                         last, dir.string(), snapshot.step()));
  }
  EarlierSamples earlier = read_samples(dir / kSoakSamplesFile, snapshot.step());
  write_file_atomic(dir / kSoakSamplesFile, earlier.kept);  // without rows a kill left
  if (snapshot.step() == last) {
    std::printf("%s: the soak is complete (step %llu); --steps N continues it to step N\n",
                dir.string().c_str(), static_cast<unsigned long long>(last));
    return 0;
  }
  // The device the soak started on unless --device names another: the GPU backend resumes bit
  // for bit only on the device that saved the checkpoint.
  const WorldOptions wopt =
      world_options(opt, plan.backend, opt.device.empty() ? plan.device : opt.device);
  SoakRun run{World::load(snapshot, wopt),
              wopt,
              dir,
              last,
              plan.every,
              std::move(earlier.samples),
              earlier.wall,
              snapshot.step()};
  if (opt.steps_given) {
    RunPlan longer = plan;
    longer.steps = last;
    write_run_plan(dir, longer);  // a later resume continues to the new end
  }
  std::printf(
      "%s\nsoak: %s, resuming %s from step %llu to step %llu, a sample and a checkpoint "
      "every %u\n",
      scene_summary(run.world.scene()).c_str(), run.world.backend_name().c_str(),
      dir.string().c_str(), static_cast<unsigned long long>(snapshot.step()),
      static_cast<unsigned long long>(last), plan.every);
  return soak_steps(run, opt, true);
}

}  // namespace

int cmd_soak(const Options& opt) {
  if (!opt.resume.empty()) return soak_resume(opt);
  if (opt.scene.empty()) throw std::runtime_error("soak: a SCENE file, or --resume DIR");
  Scene scene = read_scene_file(opt.scene);
  if (!opt.scheme.empty()) scene.settings.solver.scheme = parse_scheme(opt.scheme);
  apply_solver_overrides(opt, scene.settings.solver);
  const fs::path dir = opt.out;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  const WorldOptions wopt = world_options(opt, opt.backend, opt.device);
  SoakRun run{World(scene, wopt), wopt, dir, opt.steps, opt.sample_every, {}, 0.0, 0};
  warn_stability(scene);
  RunPlan plan;
  plan.scene = opt.scene;
  plan.backend = opt.backend;
  plan.device = opt.device;
  plan.steps = opt.steps;
  plan.every = opt.sample_every;
  write_run_plan(dir, plan);
  std::printf("%s\nsoak: %s, %u steps, a sample and a checkpoint every %u\n",
              scene_summary(scene).c_str(), run.world.backend_name().c_str(), opt.steps,
              opt.sample_every);
  return soak_steps(run, opt, false);
}

}  // namespace vkphys::tools
