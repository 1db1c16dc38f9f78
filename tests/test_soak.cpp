// Issue 13: the soak's checks (vkphys/soak.h) each fail on the growth they look for and pass
// on a steady run, and `vkphys soak` runs a scene, checkpoints it and judges it on both backends
// (a short soak; docs/soak.md has the long one).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_helpers.h"
#include "tests/gpu_env.h"
#include "vkphys/snapshot.h"
#include "vkphys/soak.h"

namespace vkphys {
namespace {

namespace fs = std::filesystem;

// A settled run: energy falls to 10 J by step 100 and stays; nothing grows.
std::vector<SoakSample> steady() {
  std::vector<SoakSample> s;
  for (std::uint64_t k = 0; k <= 1000; k += 100) {
    SoakSample x;
    x.step = k;
    x.energy = k == 0 ? 50.0 : 10.0;
    x.rss_bytes = 100u << 20;
    x.open_files = 7;
    x.device_bytes = 1u << 20;
    x.pair_capacity = 64;
    x.contact_capacity = 1024;
    s.push_back(x);
  }
  return s;
}

SoakLimits limits() {
  SoakLimits l;
  l.settle_step = 100;
  return l;  // energy_tol 1%, max_rss_growth 16 MiB
}

TEST(Soak, ASteadyRunPasses) {
  EXPECT_TRUE(soak_failures(steady(), limits()).empty());
}

TEST(Soak, EnergyAboveTheSettledValueFails) {
  std::vector<SoakSample> s = steady();
  s[5].energy = 10.0 + 0.01 * 50.0;  // exactly the limit: 1% of max(|E(0)|, |E(ref)|) = 0.5 J
  EXPECT_TRUE(soak_failures(s, limits()).empty());
  s[5].energy = 10.6;
  const std::vector<std::string> f = soak_failures(s, limits());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0], "energy at step 500 is 10.6 J, above the settled 10 J (step 100) + 0.01 x 50 J");
  s[5].energy = std::nan("");  // a NaN energy is not bounded
  EXPECT_EQ(soak_failures(s, limits()).size(), 1u);
}

TEST(Soak, MemoryFilesAndDeviceGrowthFail) {
  std::vector<SoakSample> s = steady();
  s.back().rss_bytes += 17u << 20;
  s.back().open_files = 8;
  s[4].device_bytes += 4096;  // no capacity grew with it
  const std::vector<std::string> f = soak_failures(s, limits());
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], "resident memory grew by 17.0 MiB from step 100 to step 1000 (limit 16.0 MiB)");
  EXPECT_EQ(f[1], "open files grew from 7 at step 100 to 8 at step 1000");
  EXPECT_EQ(f[2],
            "device memory grew from 1048576 to 1052672 bytes between steps 300 and 400 with no "
            "list grown");
  // Before settling anything may grow; and device memory may grow with a list's capacity.
  s = steady();
  s[0].rss_bytes = 1u << 20;
  s[4].device_bytes += 4096;
  s[4].contact_capacity = 1536;
  for (std::size_t i = 5; i < s.size(); ++i) s[i].device_bytes = s[4].device_bytes;
  EXPECT_TRUE(soak_failures(s, limits()).empty());
}

// A resumed soak's memory checks start at its own first sample: a process's resident memory
// says nothing about another's.
TEST(Soak, MemoryHeldFromTheResumedPartOnly) {
  std::vector<SoakSample> s = steady();
  for (std::size_t i = 5; i < s.size(); ++i) s[i].rss_bytes += 40u << 20;  // another process
  SoakLimits l = limits();
  EXPECT_EQ(soak_failures(s, l).size(), 1u);
  l.memory_from_step = s[5].step;
  EXPECT_TRUE(soak_failures(s, l).empty());
  s.back().rss_bytes += 17u << 20;
  EXPECT_EQ(soak_failures(s, l).size(), 1u);
}

fs::path soak_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("vkphys_test_soak_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

std::size_t lines(const fs::path& file) {
  std::ifstream in(file);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// AddressSanitizer keeps freed blocks out of reuse (its quarantine, 256 MiB by default), so under
// it a soak sees resident memory grow that a release build reuses: +40.2 MiB over steps 40-120
// of the particle box, +0.5 MiB with the quarantine off. The soak's child process runs without
// it (LeakSanitizer still checks leaks at its exit).
// gcc defines __SANITIZE_ADDRESS__ under -fsanitize=address; clang 14 only answers
// __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define VKPHYS_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VKPHYS_TEST_UNDER_ASAN 1
#endif
#endif

void without_asan_quarantine() {
#if defined(VKPHYS_TEST_UNDER_ASAN)
  const char* old = std::getenv("ASAN_OPTIONS");
  const std::string options =
      (old && *old ? std::string(old) + ":" : std::string()) + "quarantine_size_mb=0";
  ::setenv("ASAN_OPTIONS", options.c_str(), 1);
#endif
}

class SoakCli : public ::testing::TestWithParam<const char*> {};

// A short soak of a particle box passes, samples every 40 steps and leaves its last checkpoint.
TEST_P(SoakCli, AShortSoakPasses) {
  if (std::string(GetParam()) == "gpu") VKPHYS_SKIP_WITHOUT_GPU();
  const fs::path dir = soak_dir(GetParam());
  without_asan_quarantine();
  const test::CliResult r =
      test::vkphys_cli("soak " + test::scene_file("particles_box.json") + " --backend " +
                       GetParam() + " --steps 120 --sample-every 40 --out " + dir.string());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("soak OK: no NaN, energy bounded, no memory or file growth, "
                          "deterministic"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("steps 80..120 replayed"), std::string::npos) << r.output;
  EXPECT_EQ(lines(dir / "soak.csv"), 5u);  // header and steps 0, 40, 80, 120
  EXPECT_EQ(Snapshot::read(dir / "checkpoint.snapshot").step(), 120u);
  fs::remove_all(dir);
}

// A soak run in two parts (80 steps, then --resume to 120) ends on the bits of one 120-step
// soak, with its samples; a sample a kill left after the checkpoint, and a row cut short, are
// dropped; the plan's scene, backend and settings may not be given again.
// On the GPU backend the resumed part runs on the device that saved the checkpoint, as the plan
// names it, and ends on its bits as well.
class SoakCliResume : public ::testing::TestWithParam<const char*> {};

TEST_P(SoakCliResume, TwoPartsEndOnOneRunsBits) {
  if (std::string(GetParam()) == "gpu") VKPHYS_SKIP_WITHOUT_GPU();
  const fs::path dir = soak_dir(std::string("resume_") + GetParam());
  without_asan_quarantine();
  const std::string scene = test::scene_file("particles_box.json");
  const std::string common = std::string(" --backend ") + GetParam() + " --sample-every 40 --out ";
  test::CliResult r =
      test::vkphys_cli("soak " + scene + " --steps 120" + common + (dir / "one").string());
  ASSERT_EQ(r.code, 0) << r.output;
  r = test::vkphys_cli("soak " + scene + " --steps 80" + common + (dir / "two").string());
  ASSERT_EQ(r.code, 0) << r.output;
  std::ofstream(dir / "two" / "soak.csv", std::ios::app) << "120,9.9,1,1,0,0,0,0,1,1,1,1,1\n160,9";
  r = test::vkphys_cli("soak --resume " + (dir / "two").string() + " --steps 120");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("resuming " + (dir / "two").string() + " from step 80 to step 120"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("soak OK"), std::string::npos) << r.output;
  const Snapshot one = Snapshot::read(dir / "one" / "checkpoint.snapshot");
  const Snapshot two = Snapshot::read(dir / "two" / "checkpoint.snapshot");
  EXPECT_EQ(one.step(), 120u);
  EXPECT_EQ(two.step(), 120u);
  auto bytes = [](const fs::path& f) {
    std::ifstream in(f, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(bytes(dir / "one" / "checkpoint.snapshot"), bytes(dir / "two" / "checkpoint.snapshot"));
  // Every sample's step, energy and kinetic energy as in the one run (wall times differ).
  auto columns = [](const fs::path& f) {
    std::ifstream in(f);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> field;
      std::stringstream row(line);
      for (std::string x; std::getline(row, x, ',');) field.push_back(x);
      out.push_back(field.at(0) + "," + field.at(2) + "," + field.at(3));
    }
    return out;
  };
  EXPECT_EQ(columns(dir / "one" / "soak.csv"), columns(dir / "two" / "soak.csv"));
  EXPECT_EQ(lines(dir / "two" / "soak.csv"), 5u);
  r = test::vkphys_cli("soak --resume " + (dir / "two").string() + " --scheme jacobi");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("soak --resume takes the scene"), std::string::npos) << r.output;
  r = test::vkphys_cli("resume " + (dir / "two").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("holds a soak"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Backends, SoakCliResume, ::testing::Values("cpu", "gpu"),
                         [](const auto& param) { return std::string(param.param); });

INSTANTIATE_TEST_SUITE_P(Backends, SoakCli, ::testing::Values("cpu", "gpu"),
                         [](const auto& param) { return std::string(param.param); });

// A body pushed by a constant force in empty space gains energy without bound: the soak fails
// and names the first sample past the limit.
TEST(SoakCliFails, OnGrowingEnergy) {
  const fs::path dir = soak_dir("energy");
  fs::create_directories(dir);
  const fs::path scene = dir / "pushed.json";
  std::ofstream(scene) << R"({"format": "vkphys-scene", "version": 2, "gravity": [0, 0, 0],
    "bodies": [{"shape": "sphere", "radius": 0.1, "mass": 1, "position": [0, 0, 0],
                "force": [1, 0, 0]}]})";
  const test::CliResult r = test::vkphys_cli("soak " + scene.string() +
                                             " --backend cpu --steps 40 --sample-every 10 "
                                             "--settle 10 --out " +
                                             (dir / "out").string());
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("soak FAIL: energy at step 20 is"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vkphys
