// libFuzzer target: load a scene and run 3 steps on the CPU backend. Any input either fails to
// load (SceneError), stops with a capacity error (std::runtime_error), or steps; a crash or a
// sanitizer report is a finding. Scenes of more than 4,096 particles or 256 bodies are skipped
// so that each input runs in milliseconds.
#include <optional>
#include <stdexcept>

#include "fuzz/fuzz_input.h"
#include "host/sim/backend.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::optional<vkphys::Scene> scene = vkphys::fuzz::parse_input(data, size);
  if (!scene || scene->particles.size() > 4096 || scene->bodies.size() > 256) return 0;
  auto backend = vkphys::make_cpu_backend();
  try {
    backend->load(*scene);
    for (int k = 0; k < 3; ++k) backend->step();
  } catch (const std::runtime_error&) {
    return 0;  // a capacity error: one line for the user, the state kept
  }
  vkphys::WorldState state;
  backend->read(state);
  return 0;
}
