// `vkphys render SCENE --frames N --out DIR`: runs the scene on a backend and draws every
// --every-th step (the first frame is the loaded state) to DIR/frame_NNNNNN.png with the Vulkan
// device (host/gpu/renderer.h), through the scene's camera or, where it has none, one framing
// the first state; --video FILE assembles the frames with ffmpeg where it is installed.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "host/gpu/renderer.h"
#include "host/io/output.h"
#include "host/io/png.h"
#include "host/io/scene_file.h"
#include "host/io/surface_mesh.h"
#include "tools/commands.h"
#include "tools/progress.h"

namespace vkphys::tools {

int cmd_render(const Options& opt) {
  Scene scene = io::load_scene(opt.scene);
  SolverSettings& solver = scene.settings.solver;
  if (!opt.scheme.empty()) solver.scheme = parse_scheme(opt.scheme);
  if (opt.backend == "gpu" && solver.scheme == SolverScheme::sequential) {
    solver.scheme = SolverScheme::colored;  // the GPU's nearest scheme; the CPU runs it as asked
  }
  if (opt.frames == 0) throw std::runtime_error("--frames must be at least 1");
  if (opt.every == 0) throw std::runtime_error("--every must be at least 1");
  std::unique_ptr<vk::Context> ctx = vk::Context::create(context_options(opt));
  std::unique_ptr<Backend> backend =
      opt.backend == "cpu" ? make_cpu_backend() : make_gpu_backend(*ctx);
  backend->load(scene);
  gpu::Renderer renderer(*ctx, opt.width, opt.height);
  std::filesystem::create_directories(opt.out);
  WorldState state;
  backend->read(state);
  const gpu::Camera camera = gpu::scene_camera(scene, state);
  std::printf("%s\nbackend: %s; drawing %u frames of %ux%u on %s into %s\n",
              io::scene_summary(scene).c_str(), backend->name().c_str(), opt.frames, opt.width,
              opt.height, ctx->info().name.c_str(), opt.out.c_str());
  Progress progress(opt.frames);
  for (std::uint32_t f = 0; f < opt.frames; ++f) {
    if (f > 0) {
      for (std::uint32_t k = 0; k < opt.every; ++k) backend->step();
      backend->read(state);
    }
    const gpu::Image img = renderer.draw(io::surface_mesh(scene, state, true), camera);
    io::write_text_file(std::filesystem::path(opt.out) / fmt::format("frame_{:06d}.png", f),
                        io::png_bytes(img.width, img.height, img.rgba));
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
