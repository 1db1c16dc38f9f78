// `vkphys render SCENE --frames N --out DIR`: runs the scene in a World and draws every
// --every-th step (the first frame is the loaded state) to DIR/frame_NNNNNN.png with the Vulkan
// device (World::render), through the scene's camera or, where it has none, one framing the
// first state; --video FILE assembles the frames with ffmpeg where it is installed. It uses the
// public API alone.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "tools/commands.h"
#include "tools/progress.h"
#include "vkphys/picture.h"
#include "vkphys/scene_file.h"
#include "vkphys/world.h"

namespace vkphys::tools {

int cmd_render(const Options& opt) {
  Scene scene = read_scene_file(opt.scene);
  SolverSettings& solver = scene.settings.solver;
  if (!opt.scheme.empty()) solver.scheme = parse_scheme(opt.scheme);
  if (opt.backend == "gpu" && solver.scheme == SolverScheme::sequential) {
    solver.scheme = SolverScheme::colored;  // the GPU's nearest scheme; the CPU runs it as asked
  }
  if (opt.frames == 0) throw std::runtime_error("--frames must be at least 1");
  if (opt.every == 0) throw std::runtime_error("--every must be at least 1");
  World world(scene, world_options(opt, opt.backend, opt.device));
  warn_stability(scene);
  std::filesystem::create_directories(opt.out);
  const SceneCamera camera = world.camera();
  auto draw = [&](std::uint32_t f) {
    const Picture picture = world.render(opt.width, opt.height, camera);
    picture.write_png(std::filesystem::path(opt.out) / fmt::format("frame_{:06d}.png", f));
    return picture.device;
  };
  const std::string device = draw(0);
  std::printf("%s\nbackend: %s; drawing %u frames of %ux%u on %s into %s\n",
              scene_summary(scene).c_str(), world.backend_name().c_str(), opt.frames, opt.width,
              opt.height, device.c_str(), opt.out.c_str());
  Progress progress(opt.frames);
  progress.update(1);
  for (std::uint32_t f = 1; f < opt.frames; ++f) {
    world.step(opt.every);
    draw(f);
    progress.update(f + 1u);
  }
  progress.finish();
  std::printf("%u frames in %s\n", opt.frames, opt.out.c_str());
  if (opt.video.empty()) return 0;
  if (std::system("command -v ffmpeg > /dev/null 2>&1") != 0) {
    throw std::runtime_error(
        "--video: ffmpeg is not installed (Debian: apt-get install ffmpeg); the frames are in " +
        opt.out);
  }
  const double fps = 1.0 / (static_cast<double>(scene.settings.time_step) * opt.every);
  const std::string cmd = fmt::format(
      "ffmpeg -loglevel error -y -framerate {:.3f} -i '{}/frame_%06d.png' -pix_fmt yuv420p '{}'",
      fps, opt.out, opt.video);
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("--video: ffmpeg failed: " + cmd);
  std::printf("video: %s\n", opt.video.c_str());
  return 0;
}

}  // namespace vkphys::tools
