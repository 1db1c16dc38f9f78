// vkphys::Recorder (vkphys/recorder.h): the public face of the run writer (host/io/output.h).
// It takes a World and hands the writer what the World holds: the state, the step's statistics
// and, where the World records them, the step's contact lists (host/api/world_internal.h).
#include "vkphys/recorder.h"

#include <utility>

#include "host/api/guarded.h"
#include "host/api/world_internal.h"
#include "host/io/output.h"
#include "vkphys/error.h"

namespace vkphys {

struct Recorder::Impl {
  io::RunWriter writer;
};

namespace {

void check_contacts(const World& world, const RecorderOptions& options) {
  if (options.vtk_contacts && !WorldInternals::records_contacts(world)) {
    throw Error(
        "Recorder: vtk_contacts writes the contacts of each frame's step: make the World with "
        "WorldOptions::record_contacts");
  }
}

double time_step(const World& world) {
  return static_cast<double>(world.scene().settings.time_step);
}

}  // namespace

Recorder::Recorder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Recorder::Recorder(const std::filesystem::path& dir, const World& world,
                   const RecorderOptions& options) {
  check_contacts(world, options);
  const bool vtk = options.vtk || options.vtk_contacts;
  impl_ = guarded([&] {
    return std::make_unique<Impl>(
        Impl{io::RunWriter(dir, options.replace, vtk, time_step(world), options.vtk_contacts)});
  });
}

Recorder Recorder::resume(const std::filesystem::path& dir, const World& world,
                          const RecorderOptions& options) {
  check_contacts(world, options);
  const bool vtk = options.vtk || options.vtk_contacts;
  return Recorder(guarded([&] {
    return std::make_unique<Impl>(Impl{
        io::RunWriter::resume(dir, world.steps(), vtk, time_step(world), options.vtk_contacts)});
  }));
}

Recorder::~Recorder() = default;
Recorder::Recorder(Recorder&&) noexcept = default;
Recorder& Recorder::operator=(Recorder&&) noexcept = default;

void Recorder::frame(const World& world) {
  if (!impl_) throw Error("frame: this Recorder was moved from");
  guarded([&] {
    impl_->writer.frame(WorldInternals::held_step(world), world.scene(),
                        WorldInternals::state(world), WorldInternals::trace(world));
  });
}

void Recorder::metrics(const World& world, double step_ms) {
  if (!impl_) throw Error("metrics: this Recorder was moved from");
  guarded([&] {
    const std::uint64_t k = WorldInternals::held_step(world);
    impl_->writer.metrics(k, time_step(world) * static_cast<double>(k), world.metrics(),
                          WorldInternals::stats(world), step_ms, world.constraint_errors());
  });
}

}  // namespace vkphys
