// `vkphys soak SCENE`: a long run that checks itself (issue 13). Every --sample-every steps it
// records energy, momentum, penetration, the process's resident memory and open files and the
// GPU's device memory into DIR/soak.csv and writes a checkpoint (DIR/checkpoint.snapshot, whole
// then renamed); at the end it replays the last stretch from the checkpoint before the last and
// must land on the same bits. The verdict is one line; the rules are vkphys/soak.h's. The
// public API alone.
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
#include "vkphys/error.h"
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

}  // namespace

int cmd_soak(const Options& opt) {
  Scene scene = read_scene_file(opt.scene);
  if (!opt.scheme.empty()) scene.settings.solver.scheme = parse_scheme(opt.scheme);
  apply_solver_overrides(opt, scene.settings.solver);
  const fs::path dir = opt.out;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  const WorldOptions wopt = world_options(opt, opt.backend, opt.device);
  World world(scene, wopt);
  warn_stability(scene);
  std::printf("%s\nsoak: %s, %u steps, a sample and a checkpoint every %u\n",
              scene_summary(scene).c_str(), world.backend_name().c_str(), opt.steps,
              opt.sample_every);
  std::ofstream csv(dir / "soak.csv", std::ios::trunc);
  csv << "step,wall_s,energy,kinetic,px,py,pz,max_penetration,rss_bytes,open_files,"
         "device_bytes,pair_capacity,contact_capacity\n";
  std::vector<SoakSample> samples;
  const auto t0 = std::chrono::steady_clock::now();
  auto record = [&] {
    const SoakSample s = sample(world);
    const Metrics m = world.metrics();
    samples.push_back(s);
    csv << fmt::format(
               "{},{:.3f},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{},{},{}\n", s.step,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
               s.energy, s.kinetic, m.momentum.x, m.momentum.y, m.momentum.z, s.max_penetration,
               s.rss_bytes, s.open_files, s.device_bytes, s.pair_capacity, s.contact_capacity)
        << std::flush;
  };
  record();
  Snapshot latest = world.save(), before = latest;  // the last two checkpoints
  latest.write(dir / kCheckpointFile);
  Progress progress(opt.steps);
  // The steps between samples go to the World together (World::step(n): pipelined on the GPU,
  // the state read after the last of them; every step checks itself for NaN and names itself).
  for (std::uint32_t k = 0; k < opt.steps;) {
    const std::uint32_t n = std::min(opt.sample_every - k % opt.sample_every, opt.steps - k);
    try {
      world.step(n);
    } catch (const NonFiniteError& e) {
      progress.finish();
      std::printf("soak FAIL: %s (the last checkpoint, step %llu, is in %s)\n", e.what(),
                  static_cast<unsigned long long>(latest.step()), dir.string().c_str());
      return 1;
    }
    k += n;
    record();
    before = latest;
    latest = world.save();
    latest.write(dir / kCheckpointFile);
    progress.update(k);
  }
  progress.finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  SoakLimits limits;
  limits.settle_step = opt.settle ? *opt.settle : opt.steps / 10u;
  limits.energy_tol = opt.energy_tol;
  limits.max_rss_growth = static_cast<std::uint64_t>(opt.max_growth_mib * (1u << 20));
  std::vector<std::string> failed = soak_failures(samples, limits);
  // Determinism: the stretch since the checkpoint before the last, replayed in a new World.
  World replay = World::load(before, wopt);
  replay.step(static_cast<std::uint32_t>(world.steps() - before.step()));
  if (!same_bits(world, replay)) {
    failed.push_back(fmt::format("steps {}..{} replayed from their checkpoint end elsewhere",
                                 before.step(), world.steps()));
  }
  const SoakSample& ref = *std::find_if(samples.begin(), samples.end(), [&](const SoakSample& s) {
    return s.step >= limits.settle_step;
  });
  const SoakSample& last = samples.back();
  std::printf(
      "%u steps in %.1f s; from step %llu: energy %.6g -> %.6g J, resident memory %+.1f MiB, open "
      "files %u -> %u, device memory %llu -> %llu bytes; steps %llu..%llu replayed\n",
      opt.steps, seconds, static_cast<unsigned long long>(ref.step), ref.energy, last.energy,
      (static_cast<double>(last.rss_bytes) - static_cast<double>(ref.rss_bytes)) / (1 << 20),
      ref.open_files, last.open_files, static_cast<unsigned long long>(ref.device_bytes),
      static_cast<unsigned long long>(last.device_bytes),
      static_cast<unsigned long long>(before.step()),
      static_cast<unsigned long long>(world.steps()));
  if (failed.empty()) {
    std::printf("soak OK: no NaN, energy bounded, no memory or file growth, deterministic (%s)\n",
                (dir / "soak.csv").string().c_str());
    return 0;
  }
  for (const std::string& f : failed) std::printf("soak FAIL: %s\n", f.c_str());
  return 1;
}

}  // namespace vkphys::tools
