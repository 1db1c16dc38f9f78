// Issue 13: the GPU failing under the simulation. Faults are injected into the Vulkan context
// (vk::Context::inject_faults, or VKPHYS_INJECT_FAULT for the command line): an allocation of at
// least a chosen size fails with VK_ERROR_OUT_OF_DEVICE_MEMORY, or a submit returns
// VK_ERROR_DEVICE_LOST. Each gives one line saying what happened and what to do; the World keeps
// the last good step and refuses to go on; a checkpoint taken before continues bit for bit. A
// validation error injected through the layer's messenger is counted and fails the command.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <string>

#include "host/api/world_internal.h"
#include "host/io/scene_file.h"
#include "tests/api_helpers.h"
#include "tests/backends.h"
#include "tests/cli_helpers.h"
#include "tests/gpu_env.h"
#include "tests/run_outputs.h"
#include "tests/scoped_env.h"
#include "vkphys/vkphys.h"

namespace vkphys {
namespace {

namespace fs = std::filesystem;
using test::ScopedEnv;

// Clears what a test injected into the shared context, however the test ends.
struct FaultsOff {
  const vk::Context& ctx;
  ~FaultsOff() { ctx.inject_faults({}); }
};

// A contact list far too small for a resting particle box must grow in the first step (checked
// on a clean run); with every allocation failing from then on, the grown lists cannot be made:
// one line naming the bytes and the buffer, and what to do.
TEST(GpuFaults, OutOfDeviceMemoryWhileAListGrowsIsOneLine) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  FaultsOff off{ctx};
  const Scene scene = io::load_scene(test::scene_path("particles_box.json"));
  std::unique_ptr<Backend> gpu = make_gpu_backend(ctx);
  gpu->load(scene, 0, 16);
  gpu->step();
  ASSERT_GE(gpu->stats().regrows, 1u);
  gpu->load(scene, 0, 16);
  ctx.inject_faults({.fail_allocations_from = 1});
  try {
    gpu->step();
    FAIL() << "the lists grew with every allocation failing";
  } catch (const vk::OutOfMemory& e) {
    EXPECT_GT(e.bytes, 0u);
    EXPECT_TRUE(std::regex_match(
        e.what(), std::regex("out of device memory: could not allocate [0-9]+ bytes for [a-z ]+ "
                             "\\(VK_ERROR_OUT_OF_DEVICE_MEMORY\\); use fewer bodies or "
                             "particles, or the CPU backend")))
        << e.what();
  }
}

// Loading fails the same way when the very first buffer cannot be made.
TEST(GpuFaults, OutOfDeviceMemoryAtLoadNamesTheBuffer) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  FaultsOff off{ctx};
  std::unique_ptr<Backend> gpu = make_gpu_backend(ctx);
  ctx.inject_faults({.fail_allocations_from = 1});
  try {
    gpu->load(io::load_scene(test::scene_path("stack_5.json")));
    FAIL() << "loaded with every allocation failing";
  } catch (const vk::OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("could not allocate"), std::string::npos) << e.what();
  }
}

// The device lost at step 16: the World names it in one line, keeps step 15's state (the same
// bits as a World that stopped there), refuses to step or save, and a checkpoint from step 10
// continues in a new World to the same step 20 as a run that never failed.
TEST(GpuFaults, DeviceLostKeepsTheLastGoodStepAndTheCheckpoint) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  (void)ctx;  // the Worlds open their own contexts
  const WorldOptions gpu{.backend = "gpu", .validation = true};
  const std::string scene = test::scene_path("particle_bed.json");
  World reference = World::from_file(scene, gpu);
  reference.step(15);
  World w = World::from_file(scene, gpu);
  w.step(10);
  const Snapshot checkpoint = w.save();
  w.step(5);
  WorldInternals::gpu_context(w)->inject_faults({.lose_device_at_submit = 1});
  try {
    w.step();
    FAIL() << "stepped on a lost device";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "step 16: the Vulkan device was lost (VK_ERROR_DEVICE_LOST from vkQueueSubmit: the "
              "GPU or its driver reset or hung); the GPU backend cannot go on: run again, or use "
              "--backend cpu");
  }
  EXPECT_EQ(w.steps(), 15u);
  EXPECT_TRUE(test::same_bits(w, reference));
  for (auto call : {+[](World& x) { x.step(); }, +[](World& x) { (void)x.save(); }}) {
    try {
      call(w);
      FAIL() << "a failed World went on";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("this World's GPU backend failed (step 16: the Vulkan "
                                           "device was lost"),
                std::string::npos)
          << e.what();
    }
  }
  World resumed = World::load(checkpoint, gpu);
  resumed.step(10);
  reference.step(5);
  EXPECT_TRUE(test::same_bits(resumed, reference));
}

// The command line: a run whose device is lost (`fault`: at the Nth submit, counting the load's
// uploads, then a few a step and a dozen a checkpoint's save) stops with one line naming the
// step (`saving step` when it fell in a checkpoint's save), what to do and the checkpoint to
// resume from; that checkpoint is whole, the last good state is a frame, and resuming (on a sound
// device) finishes the run with the frames and metrics of a run that never failed. Returns the
// line's (step, last good step, checkpoint step), none when the line is missing.
struct Stop {
  std::uint64_t step, good, at;
};

// The run both CLI fault tests make, into `out`.
std::string cli_run(const fs::path& out) {
  return "run " + test::scene_file("particle_bed.json") +
         " --backend gpu --steps 20 --every 4 --checkpoint-every 5 --out " + out.string();
}

// An empty directory of the test's own, `name` and the process id.
fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

std::optional<Stop> expect_cli_run_stops_and_resumes(const fs::path& dir, const std::string& fault,
                                                     const std::string& where) {
  EXPECT_EQ(test::vkphys_cli(cli_run(dir / "straight")).code, 0);
  const fs::path failed = dir / "failed";
  test::CliResult r;
  {
    ScopedEnv inject("VKPHYS_INJECT_FAULT", fault);
    r = test::vkphys_cli(cli_run(failed));
  }
  EXPECT_EQ(r.code, 2);
  std::smatch m;
  if (!std::regex_search(
          r.output, m,
          std::regex("vkphys: " + where +
                     " ([0-9]+): the Vulkan device was lost \\(VK_ERROR_DEVICE_LOST from "
                     "vkQueueSubmit: the GPU or its driver reset or hung\\); the GPU backend "
                     "cannot go on: run again, or use --backend cpu \\(frame_0*([0-9]+)\\.csv "
                     "holds the last good state; `vkphys resume [^`]+` continues from its last "
                     "checkpoint \\(step ([0-9]+)\\)\\)\n"))) {
    ADD_FAILURE() << "no '" << where << " N: the Vulkan device was lost' line in:\n" << r.output;
    return std::nullopt;
  }
  const Stop stop{std::stoull(m[1]), std::stoull(m[2]), std::stoull(m[3])};
  EXPECT_EQ(Snapshot::read(failed / "checkpoint.snapshot").step(), stop.at);
  EXPECT_TRUE(fs::exists(failed / "frames" / fmt::format("frame_{:06d}.csv", stop.good)));
  const test::CliResult resumed = test::vkphys_cli("resume " + failed.string());
  EXPECT_EQ(resumed.code, 0) << resumed.output;
  // The straight run has no frame at the failed run's last good step unless it is one of its
  // own (every 4th): the resume overwrites only what comes after the checkpoint.
  std::map<std::string, std::string> expected = test::outputs(dir / "straight");
  std::map<std::string, std::string> got = test::outputs(failed);
  if (stop.good % 4 != 0) got.erase(fmt::format("frames/frame_{:06d}.csv", stop.good));
  EXPECT_TRUE(test::same_outputs(expected, got));
  return stop;
}

// The loss inside a step (the 40th submit falls in step 12; since steps go to the World in
// batches, World::step(n, after_each), a step submits fewer times and the 100th fell in step 20's
// save, and since a save is one submit, the 70th falls past the run): the frame of the step before
// it is the last good state, and the checkpoint is the last periodic one. A device out of memory at
// load is one line too.
TEST(GpuFaults, CliRunStopsCleanlyAndResumes) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  (void)ctx;
  const fs::path dir = fresh_dir("vkphys_test_faults");
  const std::optional<Stop> stop = expect_cli_run_stops_and_resumes(dir, "device-lost:40", "step");
  ASSERT_TRUE(stop);
  const auto [step, good, at] = *stop;
  EXPECT_EQ(good, step - 1);
  EXPECT_GT(step, 5u) << "the loss should fall after the first periodic checkpoint";
  EXPECT_LT(step, 20u);
  EXPECT_EQ(at, good / 5 * 5);

  ScopedEnv oom("VKPHYS_INJECT_FAULT", "oom:1");
  test::expect_cli_refused(
      cli_run(dir / "oom"),
      {"vkphys: out of device memory: could not allocate", "(VK_ERROR_OUT_OF_DEVICE_MEMORY)"});
  fs::remove_all(dir);
}

// The loss in a checkpoint's save (the 37th submit is step 10's: a save reads its buffers in one
// submission): the step just taken is the last good state, written as a frame, and the
// checkpoint on disk is still the one before (a checkpoint is only ever replaced whole).
TEST(GpuFaults, CliRunLostWhileSavingKeepsTheCheckpointBefore) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  (void)ctx;
  const fs::path dir = fresh_dir("vkphys_test_faults_saving");
  const std::optional<Stop> stop =
      expect_cli_run_stops_and_resumes(dir, "device-lost:37", "saving step");
  ASSERT_TRUE(stop);
  const auto [step, good, at] = *stop;
  EXPECT_EQ(good, step);
  EXPECT_EQ(step % 5, 0u) << "a save falls at a checkpoint";
  EXPECT_GT(step, 5u);
  EXPECT_EQ(at, step - 5);
  fs::remove_all(dir);
}

// A validation error, injected at the third submit through the layer's own messenger (as the
// layer reports a real one), is counted by the World that met it and by the process, and fails
// a command line that would otherwise have succeeded with its own status, 3. Without the layer
// there is nothing to report it (and nothing is counted).
TEST(GpuFaults, ValidationErrorsAreCountedAndFailTheCommand) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  (void)ctx;  // the Worlds and commands open their own contexts
  ScopedEnv fault("VKPHYS_INJECT_FAULT", "validation-error:3");
  const std::uint64_t before = validation_errors_reported();
  {
    World w = World::from_file(test::scene_file("particle_bed.json"),
                               {.backend = "gpu", .validation = true});
    w.step(3);
    EXPECT_EQ(w.validation_errors(), 1u);
  }
  EXPECT_EQ(validation_errors_reported(), before + 1);
  {
    World w = World::from_file(test::scene_file("particle_bed.json"), {.backend = "gpu"});
    w.step(3);
    EXPECT_EQ(w.validation_errors(), 0u);
  }
  EXPECT_EQ(validation_errors_reported(), before + 1);

  const fs::path dir = fresh_dir("vkphys_test_validation");
  const std::string run =
      "run " + test::scene_file("particle_bed.json") + " --backend gpu --steps 3 --out ";
  const test::CliResult failed = test::vkphys_cli("--validation " + run + (dir / "a").string());
  EXPECT_EQ(failed.code, 3) << failed.output;
  for (const char* part :
       {"VULKAN VALIDATION ERROR: an error injected by VKPHYS_INJECT_FAULT=validation-error:N\n",
        "vkphys: the Vulkan validation layer reported 1 error(s) (above)\n"}) {
    EXPECT_NE(failed.output.find(part), std::string::npos) << part << " in: " << failed.output;
  }
  EXPECT_EQ(test::vkphys_cli(run + (dir / "b").string()).code, 0);
  fs::remove_all(dir);
  ScopedEnv bad("VKPHYS_INJECT_FAULT", "validation-error:0");
  test::expect_cli_refused(
      "--validation " + run + (dir / "c").string(),
      {"VKPHYS_INJECT_FAULT=validation-error:0: expected oom:BYTES, device-lost:N or "
       "validation-error:N (a number > 0)"});
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vkphys
