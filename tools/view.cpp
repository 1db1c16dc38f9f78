// `vkphys view SCENE`: a live window on the scene, simulated on a backend and drawn every frame
// as `vkphys render` draws its pictures: vkphys::Viewer (include/vkphys/viewer.h), whose header
// gives the controls and how the simulation keeps to the wall clock. The status line (the
// window's title) is also printed at exit.
//
// Without a display the Viewer throws NoDisplayError: the command says so in one line and exits
// with status 2, as for any other error.
#include <cstdio>
#include <string>
#include <utility>

#include "tools/commands.h"
#include "vkphys/error.h"
#include "vkphys/scene_file.h"
#include "vkphys/viewer.h"

namespace vkphys::tools {

int cmd_view(const Options& opt) {
  Scene scene = read_scene_file(opt.scene);
  SolverSettings& solver = scene.settings.solver;
  if (!opt.scheme.empty()) solver.scheme = parse_scheme(opt.scheme);
  if (opt.backend == "gpu" && solver.scheme == SolverScheme::sequential) {
    solver.scheme = SolverScheme::colored;  // the GPU's nearest scheme, as `vkphys render` does
  }
  const std::string summary = scene_summary(scene);
  warn_stability(scene);
  Viewer viewer(std::move(scene), {.width = opt.width,
                                   .height = opt.height,
                                   .world = world_options(opt, opt.backend, opt.device),
                                   .capture = !opt.screenshot.empty()});
  std::printf(
      "%s\nbackend: %s on %s; space pause, S or right arrow step, R restart, left drag "
      "orbit or grab, wheel zoom, Esc or Q quit\n",
      summary.c_str(), viewer.world().backend_name().c_str(), viewer.device_name().c_str());
  std::fflush(stdout);
  const std::uint32_t frames = viewer.run(opt.frames);
  std::printf("%s\n", viewer.status().c_str());
  if (!opt.screenshot.empty()) {
    if (frames == 0) throw Error("--screenshot: no frame was presented");
    const Picture shot = viewer.last_frame();
    shot.write_png(opt.screenshot);
    std::printf("screenshot: %s (%ux%u, frame %u)\n", opt.screenshot.c_str(), shot.width,
                shot.height, frames);
  }
  return 0;
}

}  // namespace vkphys::tools
