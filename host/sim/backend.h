// The interface both backends implement. A backend owns the particle state of one scene and
// advances it step by step; `read` copies the state back to the host.
#pragma once

#include <memory>
#include <string>

#include "host/sim/scene.h"
#include "host/sim/stages.h"

namespace vkphys {
namespace vk {
class Context;
}

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Uploads the scene. contact_capacity = 0 picks a default from the particle count.
  virtual void load(const Scene& scene, std::uint32_t contact_capacity = 0) = 0;
  // One step. With a trace, every intermediate buffer is copied out after the step.
  virtual void step(StepTrace* trace = nullptr) = 0;
  virtual void read(Particles& out) const = 0;
  virtual const StepStats& stats() const = 0;
};

std::unique_ptr<Backend> make_cpu_backend();
// The context must outlive the backend.
std::unique_ptr<Backend> make_gpu_backend(vk::Context& ctx);

}  // namespace vkphys
