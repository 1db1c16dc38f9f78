// `vkphys export-scene`: the library's built-in scenes (vkphys/builtin_scenes.h) as scene files,
// written and checked through the public scene-file functions (vkphys/scene_file.h); the public
// API alone.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "tools/commands.h"
#include "vkphys/builtin_scenes.h"
#include "vkphys/scene_file.h"

namespace vkphys::tools {

int cmd_export_scene(const Options& opt) {
  const std::uint32_t max = builtin_scene_max_size(opt.scene);
  if (max == 0 && opt.size != 0)
    throw std::runtime_error(fmt::format("--size does not apply to {}", opt.scene));
  check_size("--size", opt.size, opt.scene, max);
  const Scene scene = builtin_scene(opt.scene, opt.size);
  const std::string text = scene_to_json(scene);
  // Written files must load: check before writing anything.
  const Scene back = scene_from_json(text, opt.export_out.empty() ? "<export>" : opt.export_out);
  if (opt.export_out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  std::ofstream out(opt.export_out, std::ios::binary);
  out << text;
  out.close();
  if (!out)
    throw std::runtime_error(fmt::format("{}: cannot write the scene file", opt.export_out));
  std::printf("%s\nwritten to %s\n", scene_summary(back).c_str(), opt.export_out.c_str());
  return 0;
}

}  // namespace vkphys::tools
