// The public scene-file functions (vkphys/scene_file.h), write_file_atomic (vkphys/files.h) and
// Picture::write_png (vkphys/picture.h): the library's readers and writers (host/io/) behind the
// error boundary.
#include "vkphys/scene_file.h"

#include <fmt/format.h>

#include "host/api/guarded.h"
#include "host/io/output.h"
#include "host/io/png.h"
#include "host/io/scene_file.h"
#include "vkphys/error.h"
#include "vkphys/files.h"
#include "vkphys/picture.h"

namespace vkphys {

Scene read_scene_file(const std::filesystem::path& path) {
  return guarded([&] { return io::load_scene(path); });
}

Scene scene_from_json(std::string_view json, std::string_view source_name) {
  return guarded([&] { return io::parse_scene(json, source_name); });
}

std::string scene_to_json(const Scene& scene) {
  return guarded([&] { return io::write_scene_json(scene); });
}

std::string scene_summary(const Scene& scene) {
  return guarded([&] { return io::scene_summary(scene); });
}

void write_file_atomic(const std::filesystem::path& path, std::string_view bytes,
                       Durability durability) {
  guarded([&] { io::write_text_file(path, bytes, durability); });
}

void Picture::write_png(const std::filesystem::path& path) const {
  if (rgba.size() != std::size_t{4} * width * height) {
    throw Error(fmt::format("{}: a {}x{} picture needs {} RGBA bytes, not {}", path.string(), width,
                            height, std::size_t{4} * width * height, rgba.size()));
  }
  guarded([&] { io::write_text_file(path, io::png_bytes(width, height, rgba)); });
}

}  // namespace vkphys
