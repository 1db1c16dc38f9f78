// The public helpers the `vkphys` tools are built on (vkphys/builtin_scenes.h, limits.h,
// files.h, plot.h; soak.h's rules are tests/test_soak.cpp's): the built-in scenes hold what their
// size says and stop at the loader's limits, a file is written whole or not at all, and a plot
// escapes its text, drops non-finite points and draws its markers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>

#include "tests/api_helpers.h"
#include "tests/run_outputs.h"
#include "tests/text_count.h"
#include "vkphys/vkphys.h"

namespace vkphys::test {
namespace {

namespace fs = std::filesystem;

// Every built-in scene builds at its default size and round-trips through scene JSON; the
// size-less ones have max size 0.
TEST(ApiBuiltinScenes, EveryNameBuildsAndRoundTrips) {
  const auto names = builtin_scene_names();
  ASSERT_EQ(names.size(), 21u);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const Scene s = builtin_scene(name);
    EXPECT_GT(s.bodies.size() + s.particles.size(), 0u);
    const Scene back = scene_from_json(scene_to_json(s), name);
    EXPECT_EQ(scene_to_json(back), scene_to_json(s));
    const bool sized = name != "funnel" && name != "ragdoll" && name != "rope-box";
    EXPECT_EQ(builtin_scene_max_size(name) > 0, sized);
  }
}

// The size is the scene's count or base: a base-10 pyramid has 10 + 9 + ... + 1 = 55 boxes, an
// 8-box stack 8 bodies, a wall of size n n x n bricks.
TEST(ApiBuiltinScenes, SizeIsTheCountOrBase) {
  EXPECT_EQ(builtin_scene("pyramid", 10).bodies.size(), 55u);
  EXPECT_EQ(builtin_scene("stack", 8).bodies.size(), 8u);
  EXPECT_EQ(builtin_scene("wall", 4).bodies.size(), 16u);
  EXPECT_EQ(builtin_scene("stack").bodies.size(), 5u) << "0 takes the default";
  EXPECT_EQ(builtin_scene("pyramids", 3).bodies.size(), 3u * 55u) << "copies of base 10";
  EXPECT_EQ(builtin_scene("cloth-hang", 8).particles.size(), 64u) << "8 x 8 vertices";
  EXPECT_EQ(builtin_scene("cloth-drape", 8).particles.size(), 64u);
  EXPECT_EQ(builtin_scene("flag", 9).particles.size(), 9u * 6u) << "9 x ceil(2 x 9 / 3)";
  const Scene self = builtin_scene("cloth-drape-self", 8);
  EXPECT_EQ(self.particles.size(), 64u);
  ASSERT_EQ(self.particles.thickness.size(), 64u) << "self-collision on";
  EXPECT_GT(self.particles.thickness[0], 0.0f);
}

// particle-box's seed picks its jitter: 0 is seed 1, another seed moves the particles.
TEST(ApiBuiltinScenes, SeedPicksParticleBoxJitter) {
  const std::string one = scene_to_json(builtin_scene("particle-box", 100, 1));
  EXPECT_EQ(scene_to_json(builtin_scene("particle-box", 100)), one);
  const Scene seven = builtin_scene("particle-box", 100, 7);
  EXPECT_NE(scene_to_json(seven), one);
  EXPECT_EQ(seven.particles.size(), 100u);
  EXPECT_EQ(error_of([] { builtin_scene("stack", 3, 7); }),
            "seed 7: stack is not random (only particle-box takes a seed)");
}

// The largest size keeps the scene within the loader's limits and one more would not: the
// closed forms of the pyramid (b (b + 1) / 2 boxes), the wall (n^2 bricks) and the particle bed
// (12 x 12 particles a layer).
TEST(ApiBuiltinScenes, MaxSizeIsTheLoadersLimit) {
  const std::uint64_t b = builtin_scene_max_size("pyramid");
  EXPECT_LE(b * (b + 1) / 2, kMaxBodies);
  EXPECT_GT((b + 1) * (b + 2) / 2, kMaxBodies);
  EXPECT_EQ(builtin_scene_max_size("wall"), 2048u) << "2048^2 = kMaxBodies";
  EXPECT_EQ(builtin_scene_max_size("particle-box"), kMaxParticles);
  EXPECT_EQ(builtin_scene_max_size("particle-bed"), kMaxParticles / 144u);
  EXPECT_EQ(builtin_scene_max_size("box-rain"), kMaxBodies - 1u);
  EXPECT_EQ(builtin_scene_max_size("pyramids"), kMaxBodies / 55u) << "55 boxes a copy";
  // A cloth of side n has about 6 n^2 springs (structural, shear and bend), within kMaxJoints.
  for (const char* cloth : {"cloth-drape", "cloth-drape-self", "cloth-hang", "flag"}) {
    const std::uint64_t n = builtin_scene_max_size(cloth);
    EXPECT_EQ(n, 800u) << cloth;
    EXPECT_LE(6u * n * n, kMaxJoints) << cloth;
  }
}

TEST(ApiBuiltinScenes, BadNameOrSizeIsAnError) {
  EXPECT_EQ(error_of([] { builtin_scene("wall", 2049); }), "size 2049: wall takes at most 2048");
  EXPECT_EQ(error_of([] { builtin_scene("funnel", 3); }), "size does not apply to funnel");
  EXPECT_EQ(error_of([] { builtin_scene("tower"); }), "unknown built-in scene tower");
  EXPECT_EQ(error_of([] { builtin_scene_max_size("tower"); }), "unknown built-in scene tower");
}

// write_file_atomic replaces a file whole and leaves no NAME.partial behind, synced or not; a
// file it cannot write is an Error naming the path.
TEST(ApiFiles, WriteFileAtomicReplacesWhole) {
  const fs::path dir = fs::path(testing::TempDir()) / "vkphys_api_tools_files";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path f = dir / "out.txt";
  write_file_atomic(f, std::string(1000, 'a'));
  EXPECT_EQ(read_file(f), std::string(1000, 'a'));
  write_file_atomic(f, "short", Durability::synced);
  EXPECT_EQ(read_file(f), "short");
  EXPECT_FALSE(fs::exists(dir / "out.txt.partial"));
  const std::string bin("a\0b", 3);
  write_file_atomic(f, bin);
  EXPECT_EQ(read_file(f), bin) << "bytes, not a C string";
  const fs::path missing = dir / "no_such_dir" / "x.txt";
  const std::string e = error_of([&] { write_file_atomic(missing, "x"); });
  EXPECT_EQ(e.rfind("cannot write " + missing.string() + ".partial: ", 0), 0u) << e;
  EXPECT_FALSE(fs::exists(missing));
}

TEST(ApiPlot, PlotColorCyclesTheTenColourPalette) {
  EXPECT_STREQ(plot_color(0), "#1f77b4");
  EXPECT_STREQ(plot_color(1), "#ff7f0e");
  EXPECT_STREQ(plot_color(10), plot_color(0));
  EXPECT_STRNE(plot_color(9), plot_color(0));
}

TEST(ApiPlot, EscapesTextDrawsFinitePointsAndMarkers) {
  Plot p;
  p.title = "a < b & \"c\"";
  p.log_y = true;
  p.series.push_back({"s1", {1, 2, 3, 4}, {1e-3, 0.0, 1e-1, std::nan("")}, "#123456", false});
  p.markers.push_back({2.0, "here", "#654321"});
  const std::string svg = svg_plot(p);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("a &lt; b &amp; &quot;c&quot;"), std::string::npos);
  // The NaN is left out; the 0 sits on the log axis' floor (the plot's bottom, y = 258).
  const std::size_t at = svg.find("stroke=\"#123456\" stroke-width=\"1.5\" points=\"");
  ASSERT_NE(at, std::string::npos);
  const std::size_t begin = svg.find("points=\"", at) + 8;
  const std::string points = svg.substr(begin, svg.find('"', begin) - begin);
  EXPECT_EQ(count(points, ","), 3u) << points;
  EXPECT_EQ(count(points, ",258.0 "), 2u) << "1e-3 is the floor, 0 sits on it: " << points;
  EXPECT_NE(svg.find(">here</text>"), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"#654321\""), std::string::npos);
}

}  // namespace
}  // namespace vkphys::test
