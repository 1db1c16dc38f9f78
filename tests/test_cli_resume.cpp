// Issue 13: `vkphys run --checkpoint-every N` and `vkphys resume DIR`. A run stopped (or killed
// with SIGKILL) and resumed writes the same frames and metrics, bit for bit, as one that ran
// straight through (metrics' step_ms, a wall-clock time, aside), on both backends; a kill leaves
// a complete checkpoint and complete frames, and the resume drops what the killed run wrote after
// its checkpoint (later rows, a partial metrics row, later frames, *.partial files).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli_helpers.h"
#include "tests/gpu_env.h"
#include "tests/run_outputs.h"
#include "vkphys/snapshot.h"

extern char** environ;

namespace vkphys {
namespace {

namespace fs = std::filesystem;
using test::expect_cli_refused;
using test::outputs;
using test::read_file;
using test::same_outputs;
using test::vkphys_cli;

fs::path fresh_resume_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("vkphys_test_resume_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

// particle_bed: rigid boxes on a bed of particles, so both warm-start kinds (manifold points and
// particle contacts) must come back from the checkpoint for the run to continue bit for bit.
constexpr const char* kScene = "particle_bed.json";

class CliResume : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (std::string(GetParam()) == "gpu") VKPHYS_SKIP_WITHOUT_GPU();
  }
  std::string run_args(const fs::path& out, std::uint32_t steps) const {
    return "run " + test::scene_file(kScene) + " --backend " + GetParam() + " --steps " +
           std::to_string(steps) + " --every 4 --vtk --out " + out.string();
  }
};

// Stopped at step 12 (its last step then) and resumed to 30 with --steps: the same outputs as 30
// steps straight; resuming a complete run does nothing.
TEST_P(CliResume, StoppedAndResumedEqualsStraight) {
  const fs::path straight = fresh_resume_dir("straight"), parts = fresh_resume_dir("parts");
  ASSERT_EQ(vkphys_cli(run_args(straight, 30)).code, 0);
  ASSERT_EQ(vkphys_cli(run_args(parts, 12) + " --checkpoint-every 5").code, 0);
  EXPECT_EQ(Snapshot::read(parts / "checkpoint.snapshot").step(), 12u);  // the last step's
  const test::CliResult r = vkphys_cli("resume " + parts.string() + " --steps 30");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("resuming " + parts.string() + " from step 12 to step 30"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(same_outputs(outputs(straight), outputs(parts)));
  const test::CliResult again = vkphys_cli("resume " + parts.string());
  EXPECT_EQ(again.code, 0);
  EXPECT_NE(again.output.find("the run is complete (step 30 of 30)"), std::string::npos)
      << again.output;
  fs::remove_all(straight);
  fs::remove_all(parts);
}

// Starts `vkphys ARGS...` (no shell, output discarded) and returns its process id.
pid_t spawn_cli(const std::vector<std::string>& args) {
  std::vector<char*> argv{const_cast<char*>(VKPHYS_TOOL)};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&io, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, VKPHYS_TOOL, &io, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&io);
  return rc == 0 ? pid : -1;
}

std::size_t lines_in(const fs::path& file) {
  const std::string text = read_file(file);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Killed with SIGKILL once it has written 20 metrics rows (checkpoints every 3 steps, so one is
// likely being written): the checkpoint on disk is whole and every frame complete; the folder is
// then given the debris a kill can leave (a partial metrics row, a later frame, .partial files),
// and the resume removes it and finishes with the straight run's outputs.
TEST_P(CliResume, KilledAndResumedEqualsStraight) {
  constexpr std::uint32_t kSteps = 60;
  const fs::path straight = fresh_resume_dir("straight_k"), killed = fresh_resume_dir("killed");
  ASSERT_EQ(vkphys_cli(run_args(straight, kSteps)).code, 0);

  const pid_t pid = spawn_cli({"run", test::scene_file(kScene), "--backend", GetParam(), "--steps",
                               std::to_string(kSteps), "--every", "4", "--vtk", "--out",
                               killed.string(), "--checkpoint-every", "3"});
  ASSERT_GT(pid, 0);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (lines_in(killed / "metrics.csv") < 21 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it was killed";

  // What the kill left: a readable checkpoint at a multiple of 3, no torn frame.
  const Snapshot snap = Snapshot::read(killed / "checkpoint.snapshot");
  EXPECT_EQ(snap.step() % 3, 0u);
  EXPECT_GE(snap.step(), 18u);  // 20 rows (steps 0..19) were written before the kill
  const std::size_t rows = lines_in(straight / "frames" / "frame_000000.csv");
  for (const fs::directory_entry& e : fs::directory_iterator(killed / "frames")) {
    if (e.path().extension() != ".csv") continue;  // a .partial file is not a frame
    EXPECT_EQ(lines_in(e.path()), rows) << e.path();
    EXPECT_EQ(read_file(e.path()).back(), '\n') << e.path();
  }

  std::ofstream(killed / "metrics.csv", std::ios::app) << "999,16.6,0.1";  // no newline
  std::ofstream(killed / "frames" / "frame_000999.csv") << "id,kind\n";
  std::ofstream(killed / "frames" / "frame_000044.csv.partial") << "id,ki";
  std::ofstream(killed / "checkpoint.snapshot.partial") << "VKPH";
  const test::CliResult r = vkphys_cli("resume " + killed.string());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(same_outputs(outputs(straight), outputs(killed)));
  EXPECT_FALSE(fs::exists(killed / "checkpoint.snapshot.partial"));
  EXPECT_EQ(Snapshot::read(killed / "checkpoint.snapshot").step(), kSteps);
  fs::remove_all(straight);
  fs::remove_all(killed);
}

INSTANTIATE_TEST_SUITE_P(Backends, CliResume, ::testing::Values("cpu", "gpu"),
                         [](const auto& param) { return std::string(param.param); });

// What resume refuses, each in one line naming the file and what is wrong.
TEST(CliResume, RefusesWhatItCannotContinue) {
  const fs::path dir = fresh_resume_dir("refused");
  const std::string run = "run " + test::scene_file("bounce.json") +
                          " --backend cpu --steps 10 --every 5 --out " + dir.string();
  ASSERT_EQ(vkphys_cli(run).code, 0);  // no checkpoints
  expect_cli_refused("resume " + dir.string(),
                     {(dir / "run.json").string() + ": no run plan", "--checkpoint-every N"});

  ASSERT_EQ(vkphys_cli(run + " --force --checkpoint-every 4").code, 0);
  expect_cli_refused("resume " + dir.string() + " --steps 5",
                     {"--steps 5: the checkpoint in " + dir.string() + " is already at step 10"});

  // A row the checkpoint needs is gone: the run cannot be continued as it was.
  const std::string metrics = read_file(dir / "metrics.csv");
  std::ofstream(dir / "metrics.csv", std::ios::trunc)
      << metrics.substr(0, metrics.find("\n7,") + 1);
  expect_cli_refused("resume " + dir.string() + " --steps 20",
                     {"metrics.csv: no complete row for step 7, which the checkpoint (step 10) "
                      "needs"});

  // A torn checkpoint (which the rename never leaves) is named as such.
  const std::string snap = read_file(dir / "checkpoint.snapshot");
  std::ofstream(dir / "checkpoint.snapshot", std::ios::trunc) << snap.substr(0, snap.size() / 2);
  expect_cli_refused("resume " + dir.string() + " --steps 20",
                     {"checkpoint.snapshot: truncated or not a vkphys snapshot"});

  // --force starts afresh: the earlier run's checkpoint and plan go with its frames.
  ASSERT_EQ(vkphys_cli(run + " --force").code, 0);
  EXPECT_FALSE(fs::exists(dir / "checkpoint.snapshot"));
  EXPECT_FALSE(fs::exists(dir / "run.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vkphys
