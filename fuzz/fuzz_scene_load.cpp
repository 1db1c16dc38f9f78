// libFuzzer target: the scene loader. Any input either loads or fails with a SceneError; a
// scene that loads writes back (write_scene_json) to a file that loads to the same text again
// (docs/scene-format.md, "Writing scenes"). Anything else (a crash, a sanitizer report, another
// exception, a round trip that changes the scene) is a finding.
#include <cstdlib>
#include <optional>
#include <string>

#include "fuzz/fuzz_input.h"
#include "host/io/scene_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::optional<vkphys::Scene> scene = vkphys::fuzz::parse_input(data, size);
  if (!scene) return 0;
  const std::string written = vkphys::io::write_scene_json(*scene);
  const std::string again =
      vkphys::io::write_scene_json(vkphys::io::parse_scene(written, "<written>"));
  if (written != again) std::abort();  // the round trip changed the scene
  return 0;
}
