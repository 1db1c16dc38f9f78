// Checkpoints through the public API (vkphys/snapshot.h): a World saved mid-run and loaded into
// a new World continues bit-identically on the backend that saved it, in memory and through a
// file, and carries more than the positions and velocities (the warm-start impulses matter).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "host/api/world_internal.h"
#include "tests/api_helpers.h"
#include "tests/gpu_env.h"
#include "vkphys/vkphys.h"

namespace vkphys {
namespace {

using test::same_bits;
using test::scene_path;

// In the shared temporary folder, named by this process: two runs of the suite at once (two
// checkouts on one machine) collided on paddle.json.gpu.snapshot, one deleting the other's.
std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::path(::testing::TempDir()) /
         ("vkphys_" + std::to_string(::getpid()) + "_" + name);
}

// Runs 50 steps (every scene below has made its contacts and warm starts by then), saves, runs
// `after` more; loads the checkpoint (in memory, and through a file) into fresh Worlds and runs
// them `after`: every state bit must agree. Everything the checkpoint carries (warm-start and
// joint impulses, the drive clock, the list capacities) is read by the first step after the
// load, so a missing or wrong field parts the bits there; later steps add more of the same.
void resumes_bit_identically(const std::string& scene, const WorldOptions& options,
                             std::uint32_t after) {
  World a = World::from_file(scene_path(scene.c_str()), options);
  a.step(50);
  const Snapshot snap = a.save();
  EXPECT_EQ(snap.step(), 50u);
  const std::filesystem::path file = temp_file(scene + "." + options.backend + ".snapshot");
  snap.write(file);
  a.step(after);
  World b = World::load(snap, options);
  World c = World::load(Snapshot::read(file), options);
  EXPECT_EQ(b.steps(), 50u);
  b.step(after);
  c.step(after);
  EXPECT_EQ(c.steps(), 50u + after);
  EXPECT_TRUE(same_bits(a, b)) << scene << " in memory";
  EXPECT_TRUE(same_bits(a, c)) << scene << " through " << file;
  EXPECT_EQ(a.contacts().points, b.contacts().points);
  std::filesystem::remove(file);
}

// Stacked boxes (manifold warm starts), a rag-doll (joint impulses), particles in a box
// (particle-contact warm starts), particles on a ramp with bodies, and a kinematic paddle (the
// drive schedule's clock).
class ApiSnapshotScene : public ::testing::TestWithParam<const char*> {};

TEST_P(ApiSnapshotScene, CpuResumesBitIdentically) {
  resumes_bit_identically(GetParam(), {.backend = "cpu"}, 50);
}

TEST_P(ApiSnapshotScene, GpuResumesBitIdentically) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  (void)ctx;  // the Worlds open their own contexts; this one only decides whether to run
  // 20 steps after the load, not the CPU's 50: on lavapipe with the validation layer a step of
  // the paddle costs ~0.14 s of CPU, and each of the three Worlds takes the steps.
  resumes_bit_identically(GetParam(), {.backend = "gpu", .validation = true}, 20);
}

INSTANTIATE_TEST_SUITE_P(Scenes, ApiSnapshotScene,
                         ::testing::Values("pyramid_20.json", "ragdoll.json", "particles_box.json",
                                           "particle_bed.json", "paddle.json"),
                         [](const auto& param) {
                           std::string name = param.param;
                           return name.substr(0, name.find('.'));
                         });

// The same state without the carried contacts (a fresh load of the saved positions and
// velocities) continues differently: the checkpoint's warm-start data is what makes it exact.
TEST(ApiSnapshot, PositionsAndVelocitiesAloneDoNotResume) {
  World a = World::from_file(scene_path("pyramid_20.json"));
  a.step(50);
  World fresh(a.scene());
  for (Field f : test::kAllFields) fresh.write(f, a.state(f));
  World resumed = World::load(a.save());
  EXPECT_TRUE(same_bits(fresh, resumed));  // the same state at step 50
  a.step(1);
  fresh.step(1);
  resumed.step(1);
  EXPECT_TRUE(same_bits(a, resumed));
  EXPECT_GT(a.compare(fresh).max_vel, 0.0);  // without warm starts the solve ends elsewhere
}

TEST(ApiSnapshot, ALoadedSnapshotRunsOnTheOtherBackendToo) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  (void)ctx;
  World cpu = World::from_file(scene_path("particles_box.json"));
  cpu.step(20);
  World gpu = World::load(cpu.save(), {.backend = "gpu", .validation = true});
  EXPECT_EQ(gpu.steps(), 20u);
  cpu.step(20);
  gpu.step(20);
  EXPECT_LT(gpu.compare(cpu).max_pos, 1e-4);
  EXPECT_EQ(gpu.validation_errors(), 0u);
}

// A GPU save reads every carried buffer (a dozen: bodies, joints, pairs, particle contacts, the
// CG's last solve) in one submission through one staging buffer (vk::download), and a load
// writes them back in one: a save of the loaded World gives the same bytes as the first save.
TEST(ApiSnapshot, GpuSaveIsOneSubmission) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  (void)ctx;
  World w = World::from_file(scene_path("rope_box.json"), {.backend = "gpu"});
  w.step(30);
  const vk::Context& device = *WorldInternals::gpu_context(w);
  const std::uint64_t before = device.submits();
  const Snapshot snap = w.save();
  EXPECT_EQ(device.submits() - before, 1u);
  const std::filesystem::path first = temp_file("one_submit.1.snapshot");
  const std::filesystem::path again = temp_file("one_submit.2.snapshot");
  snap.write(first);
  World::load(snap, {.backend = "gpu"}).save().write(again);
  auto bytes = [](const std::filesystem::path& f) {
    std::ifstream in(f, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_GT(bytes(first).size(), 1000u);
  EXPECT_EQ(bytes(first), bytes(again));
  std::filesystem::remove(first);
  std::filesystem::remove(again);
}

TEST(ApiSnapshot, BadFilesAreOneLineErrors) {
  const std::filesystem::path junk = temp_file("junk.snapshot");
  std::ofstream(junk) << "not a snapshot at all";
  try {
    Snapshot::read(junk);
    FAIL() << "read a junk file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              junk.string() + ": not a vkphys snapshot (no VKPHYSCK header)");
  }
  // A real snapshot cut short: the last 18 bytes are the empty particle order's count (8), the
  // empty cg_dv's (8) and 2 of the empty prev_pcontact_lambda's.
  World w = World::from_file(scene_path("stack_5.json"));
  const std::filesystem::path cut = temp_file("cut.snapshot");
  w.save().write(cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) - 18);
  try {
    Snapshot::read(cut);
    FAIL() << "read a truncated file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), cut.string() +
                                         ": truncated or not a vkphys snapshot "
                                         "(prev_pcontact_lambda runs past the end)");
  }
  try {
    Snapshot::read(temp_file("missing.snapshot"));
    FAIL() << "read a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              temp_file("missing.snapshot").string() + ": cannot open the snapshot");
  }
  std::filesystem::remove(junk);
  std::filesystem::remove(cut);
}

// The format version (host/api/snapshot.cpp) follows the 8-byte header. Version 4 added the
// particle contacts' kept colours, version 5 the particles' slot order (its last 8 bytes here:
// the count of an empty order); a version-3 file reads (no kept colours: the contacts are
// coloured afresh) and steps, as does a version-4 one, while versions outside 3..5 are refused
// with both numbers.
TEST(ApiSnapshot, VersionsThreeToFiveReadOthersAreRefused) {
  World w = World::from_file(scene_path("particles_box.json"));
  w.step(20);
  const std::filesystem::path file = temp_file("version.snapshot");
  auto with_version = [&](std::uint32_t v) {
    w.save().write(file);
    if (v < 5) std::filesystem::resize_file(file, std::filesystem::file_size(file) - 8);
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    f.write(reinterpret_cast<const char*>(&v), sizeof v);
  };
  for (const std::uint32_t v : {3u, 4u}) {
    with_version(v);
    World old = World::load(Snapshot::read(file));
    old.step(5);
    EXPECT_EQ(old.steps(), 25u);
  }
  for (const std::uint32_t v : {2u, 6u}) {
    with_version(v);
    try {
      Snapshot::read(file);
      FAIL() << "read version " << v;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), file.string() + ": snapshot format version " +
                                           std::to_string(v) + ", this build reads 3 to 5");
    }
  }
  std::filesystem::remove(file);
}

TEST(ApiSnapshot, SpringsResumeThroughAFile) {
  Scene s;
  const std::uint32_t a = add_particle(s, glm::vec3(0.0f, 2.0f, 0.0f), 0.05f, 0.0f);
  const std::uint32_t b = add_particle(s, glm::vec3(0.0f, 1.5f, 0.0f), 0.05f, 0.1f);
  s.springs.push_back(Spring{a, b, 0.5f, 100.0f, 4.0f});
  World w(s);
  w.step(10);
  const std::filesystem::path file = temp_file("springs.snapshot");
  w.save().write(file);
  w.step(10);
  World r = World::load(Snapshot::read(file));
  r.step(10);
  EXPECT_TRUE(same_bits(w, r));
  std::filesystem::remove(file);
}

// Issue 13: Snapshot::write replaces the file whole (a new file renamed over the old one), never
// by overwriting the old one in place, where a process killed mid-write would leave a torn
// checkpoint. A hard link to the old file still holds the old snapshot afterwards, which it
// would not if the old file's bytes had been overwritten.
TEST(ApiSnapshot, WriteReplacesTheFileWhole) {
  World w = World::from_file(scene_path("stack_5.json"));
  const std::filesystem::path file = temp_file("replaced.snapshot");
  const std::filesystem::path old = temp_file("replaced.old.snapshot");
  std::filesystem::remove(old);
  w.save().write(file);
  std::filesystem::create_hard_link(file, old);
  w.step(5);
  w.save().write(file);
  EXPECT_EQ(Snapshot::read(old).step(), 0u);
  EXPECT_EQ(Snapshot::read(file).step(), 5u);
  EXPECT_FALSE(std::filesystem::exists(temp_file("replaced.snapshot.partial")));
  std::filesystem::remove(file);
  std::filesystem::remove(old);
}

// A snapshot that cannot be written (here: its folder is missing) is a one-line error naming the
// file and the reason; nothing is left behind. (The write is fsynced, file and rename: that it
// survives a power cut cannot be shown in a test.)
TEST(ApiSnapshot, AnUnwritablePathIsAnErrorNamingIt) {
  World w = World::from_file(scene_path("stack_5.json"));
  const std::filesystem::path file = temp_file("no_such_folder") / "x.snapshot";
  try {
    w.save().write(file);
    FAIL() << "wrote into a missing folder";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(file.string() + ".partial"), std::string::npos) << what;
    EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_FALSE(std::filesystem::exists(file.parent_path()));
}

}  // namespace
}  // namespace vkphys
