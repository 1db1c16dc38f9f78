// Issue 13: command lines that were accepted and did nonsense: a NaN or negative tolerance
// (which passed or failed every step whatever the differences), sizes that allocated until the
// machine ran out of memory, an empty --out (the current folder), a run into a folder that
// already held another run's frames. Each is refused with one line naming the option, the value
// and the limit, before any work.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "host/io/scene_file.h"
#include "host/sim/spring_strain.h"
#include "tests/cli_helpers.h"

namespace vkphys {
namespace {

namespace fs = std::filesystem;

using Result = test::CliResult;

Result vkphys(const std::string& args) {
  return test::vkphys_cli(args);
}

std::string scene(const char* name) {
  return test::scene_file(name);
}

void expect_refused(const std::string& args, std::initializer_list<std::string> parts) {
  test::expect_cli_refused(args, parts);
}

TEST(Cli, ToleranceMustBeAFiniteNonNegativeNumber) {
  const std::string bounce = scene("bounce.json");
  expect_refused("compare " + bounce + " --steps 1 --pos-tol nan",
                 {"--pos-tol: must be a finite number >= 0, not nan"});
  expect_refused("compare " + bounce + " --steps 1 --pos-tol -1",
                 {"--pos-tol: must be a finite number >= 0, not -1"});
  expect_refused("compare " + bounce + " --steps 1 --vel-tol inf", {"--vel-tol", "inf"});
  expect_refused("compare " + bounce + " --steps 1 --rot-tol x", {"--rot-tol", "not x"});
}

TEST(Cli, SizesBeyondTheSceneLimitsAreRefused) {
  expect_refused("bench particles --backend cpu --sizes 1e9", {"--sizes", "1e9"});
  expect_refused(
      "bench particles --backend cpu --sizes 1000,1000000000",
      {"--sizes 1000000000: the particles workload takes at most 4194304", "kMaxParticles"});
  expect_refused("bench pyramid --backend cpu --sizes 3000",
                 {"--sizes 3000: the pyramid workload takes at most 2895"});
  expect_refused("export-scene box-rain --size 4294967295",
                 {"--size 4294967295: box-rain takes at most 4194303", "kMaxBodies"});
  expect_refused("export-scene wall --size 2049", {"--size 2049: wall takes at most 2048"});
  expect_refused("export-scene particle-box --size 4194305",
                 {"--size 4194305: particle-box takes at most 4194304"});
  expect_refused("export-scene particle-bed --size 29128",
                 {"--size 29128: particle-bed takes at most 29127"});
  // The largest size that fits is accepted (a small one here: the chain is cheap to build).
  EXPECT_EQ(vkphys("export-scene chain --size 100").code, 0);
}

TEST(Cli, EmptyOutputPathsAreRefused) {
  expect_refused("run " + scene("bounce.json") + " --backend cpu --steps 1 --out ''",
                 {"--out: must not be empty"});
  expect_refused("export-scene stack --out ''", {"--out: must not be empty"});
}

TEST(Cli, RunRefusesANonEmptyFolderUnlessForced) {
  const fs::path dir =
      fs::temp_directory_path() / ("vkphys_test_cli_run_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string run = "run " + scene("bounce.json") + " --backend cpu --out " + dir.string();
  ASSERT_EQ(vkphys(run + " --steps 20 --every 5").code, 0);
  EXPECT_TRUE(fs::exists(dir / "frames" / "frame_000015.csv"));

  expect_refused(run + " --steps 2", {"output folder", "is not empty", "--force"});
  EXPECT_TRUE(fs::exists(dir / "frames" / "frame_000015.csv"));  // left alone

  // --force replaces the earlier run: no stale frame remains, and nothing else is touched.
  std::ofstream(dir / "notes.txt") << "mine\n";
  ASSERT_EQ(vkphys(run + " --steps 2 --force").code, 0);
  std::vector<std::string> frames;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / "frames")) {
    frames.push_back(e.path().filename().string());
  }
  std::sort(frames.begin(), frames.end());
  EXPECT_EQ(frames, (std::vector<std::string>{"frame_000000.csv", "frame_000002.csv"}));
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
  std::ifstream metrics(dir / "metrics.csv");
  std::size_t lines = 0;
  for (std::string line; std::getline(metrics, line);) ++lines;
  EXPECT_EQ(lines, 4u);  // header and steps 0..2
  fs::remove_all(dir);
}

// A new empty folder under the temporary directory, named for the test and the process.
fs::path fresh_cli_dir(const std::string& tag) {
  const fs::path dir =
      fs::temp_directory_path() / ("vkphys_test_cli_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(Cli, RunStopsAtANonFiniteStateNamingStepBodyAndStage) {
  const fs::path dir = fresh_cli_dir("nan");
  const fs::path scene_file = dir / "overforced.json";
  std::ofstream(scene_file) << R"({"format": "vkphys-scene", "version": 2,
    "bodies": [{"shape": "sphere", "radius": 0.1, "mass": 0.001, "position": [0, 5, 0]},
               {"shape": "sphere", "radius": 0.1, "mass": 0.001, "position": [3, 5, 0],
                "force": [0, 0, 0]}],
    "particles": [{"type": "particle", "position": [6, 5, 0], "radius": 0.1, "mass": 1e-31}],
    "impulses": [{"time": 0.06, "particle": 0, "impulse": [0, 1e8, 0]}]})";
  const fs::path out = dir / "out";
  expect_refused("run " + scene_file.string() + " --backend cpu --steps 10 --out " + out.string(),
                 {"step 4: the predict stage made particle 0 NaN or infinite",
                  "frame_000003.csv holds the last finite state"});
  EXPECT_TRUE(fs::exists(out / "frames" / "frame_000003.csv"));
  fs::remove_all(dir);
}

std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string c; std::getline(in, c, ',');) cells.push_back(c);
  return cells;
}

// A 6 x 5 cloth of force springs pinned at two corners, integrated by backward Euler with the
// solver settings `solver` (JSON members), run for 10 steps on the CPU into dir/out.
Result run_implicit_cloth(const fs::path& dir, const std::string& solver) {
  const fs::path scene_file = dir / "implicit_cloth.json";
  std::ofstream(scene_file) << R"({"format": "vkphys-scene", "version": 2,
    "solver": {"integrator": "implicit", )"
                            << solver << R"(},
    "cloths": [{"origin": [0, 2, 0], "u": [1, 0, 0], "v": [0, 0, 1], "resolution": [6, 5],
                "density": 0.2, "pins": [[0, 0], [5, 0]],
                "springs": {"structural": 500, "shear": 50, "model": "force", "c": 0.5}}]})";
  return vkphys("run " + scene_file.string() + " --backend cpu --steps 10 --out " +
                (dir / "out").string());
}

// metrics.csv carries each step's spring strain, equal to spring_strain of the written frame,
// and the implicit integrator's CG iterations and final residual, within the scene's tolerance.
TEST(Cli, MetricsCarrySpringStrainAndTheCgSolve) {
  const fs::path dir = fresh_cli_dir("strain");
  const Result r = run_implicit_cloth(dir, R"("cg_tolerance": 1e-5)");
  ASSERT_EQ(r.code, 0) << r.output;
  const fs::path scene_file = dir / "implicit_cloth.json";
  const fs::path out = dir / "out";
  std::ifstream metrics(out / "metrics.csv");
  std::string line;
  ASSERT_TRUE(std::getline(metrics, line));
  std::map<std::string, std::size_t> column;
  const std::vector<std::string> header = csv_cells(line);
  for (std::size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  for (const char* name : {"max_spring_strain", "mean_spring_strain", "cg_iterations",
                           "cg_residual", "cg_unmet", "ode_steps", "ode_redos", "ode_error"}) {
    ASSERT_TRUE(column.count(name)) << name;
  }
  std::vector<std::vector<std::string>> rows;
  while (std::getline(metrics, line)) rows.push_back(csv_cells(line));
  ASSERT_EQ(rows.size(), 11u);
  for (std::size_t k = 1; k < rows.size(); ++k) {
    EXPECT_GE(std::stoul(rows[k].at(column["cg_iterations"])), 1u) << "step " << k;
    EXPECT_LE(std::stod(rows[k].at(column["cg_residual"])), 1e-5) << "step " << k;
    EXPECT_EQ(rows[k].at(column["cg_unmet"]), "0") << "step " << k;
  }
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  const std::vector<std::string>& last = rows.back();
  const double max_strain = std::stod(last.at(column["max_spring_strain"]));
  const double mean_strain = std::stod(last.at(column["mean_spring_strain"]));
  EXPECT_GT(mean_strain, 0.0) << "the cloth sags under its weight";
  EXPECT_GE(max_strain, mean_strain);

  // The oracle: the strain of the last frame's vertices, measured here.
  const Scene s = io::load_scene(scene_file);
  WorldState state;
  state.particles = s.particles;
  std::ifstream frame(out / "frames" / "frame_000010.csv");
  ASSERT_TRUE(std::getline(frame, line));
  std::size_t particles = 0;
  while (std::getline(frame, line)) {
    const std::vector<std::string> c = csv_cells(line);
    if (c.at(1) != "particle") continue;
    const std::size_t i = std::stoul(c.at(0));
    ASSERT_LT(i, state.particles.size());
    state.particles.pos_radius[i] = glm::vec4(std::stof(c.at(3)), std::stof(c.at(4)),
                                              std::stof(c.at(5)), state.particles.pos_radius[i].w);
    ++particles;
  }
  EXPECT_EQ(particles, s.particles.size());
  const SpringStrain expected = spring_strain(s, state);
  EXPECT_NEAR(max_strain, expected.max_ratio - 1.0, 1e-7);
  EXPECT_NEAR(mean_strain, expected.mean, 1e-7);
  fs::remove_all(dir);
}

// A run whose implicit solves stop at their cap above the tolerance says so at its end, with the
// counts that metrics.csv's cg_unmet column gives step by step.
TEST(Cli, ARunSaysWhenSolvesEndAboveTheTolerance) {
  const fs::path dir = fresh_cli_dir("unmet");
  const Result r = run_implicit_cloth(
      dir, R"("cg_preconditioner": "block_jacobi", "cg_tolerance": 1e-6, "cg_max_iterations": 2)");
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream metrics(dir / "out" / "metrics.csv");
  std::string line;
  ASSERT_TRUE(std::getline(metrics, line));
  const std::vector<std::string> header = csv_cells(line);
  const auto unmet_column = std::find(header.begin(), header.end(), "cg_unmet");
  ASSERT_NE(unmet_column, header.end());
  std::uint64_t unmet = 0, steps = 0;
  while (std::getline(metrics, line)) {
    const std::uint64_t n =
        std::stoull(csv_cells(line).at(static_cast<std::size_t>(unmet_column - header.begin())));
    unmet += n;
    steps += n > 0 ? 1u : 0u;
  }
  ASSERT_GT(unmet, 0u);
  EXPECT_NE(r.output.find(fmt::format("warning: {} implicit solve(s) in {} step(s)", unmet, steps)),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("above solver.cg_tolerance 1e-06"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("raise solver.cg_max_iterations (2)"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vkphys
