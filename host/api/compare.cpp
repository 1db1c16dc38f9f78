// vkphys::BackendComparison (vkphys/compare.h): the backend comparison of host/sim/compare.h and
// its HTML report (host/io/compare_report.h) behind the public API. It keeps the whole result
// (per-kind errors, checks, metrics) for the report and shows the user the per-step errors,
// limits and verdict.
#include "vkphys/compare.h"

#include <utility>

#include "host/api/guarded.h"
#include "host/io/compare_report.h"
#include "host/sim/compare.h"
#include "host/vk/context.h"
#include "vkphys/error.h"

namespace vkphys {

struct BackendComparison::Impl {
  Scene scene;
  CompareOptions options;
  CompareResult result;
  std::string gpu_name, cpu_name, gpu_type;
};

BackendComparison::BackendComparison(const Scene& scene, std::uint32_t steps,
                                     const BackendCompareOptions& options,
                                     const std::function<void(std::uint32_t)>& on_step) {
  impl_ = guarded([&] {
    auto impl = std::make_unique<Impl>();
    impl->scene = scene;
    impl->options.tol = options.tolerance;
    impl->options.seeds = options.seeds;
    impl->options.factor = options.factor;
    impl->options.checks = options.checks;
    const std::unique_ptr<vk::Context> ctx =
        vk::Context::create({.device = options.device,
                             .validation = options.validation,
                             .sync_validation = options.sync_validation});
    const std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx);
    const std::unique_ptr<Backend> cpu = make_cpu_backend();
    gpu->load(impl->scene);
    cpu->load(impl->scene);
    impl->gpu_name = gpu->name();
    impl->cpu_name = cpu->name();
    impl->gpu_type = ctx->info().type;
    impl->result = compare_backends(*gpu, *cpu, impl->scene, steps, impl->options, on_step);
    return impl;
  });
}

BackendComparison::~BackendComparison() = default;
BackendComparison::BackendComparison(BackendComparison&&) noexcept = default;
BackendComparison& BackendComparison::operator=(BackendComparison&&) noexcept = default;

namespace {

template <class Ptr>
auto& need(const Ptr& impl, const char* call) {
  if (!impl) throw Error(std::string(call) + ": this BackendComparison was moved from");
  return *impl;
}

}  // namespace

bool BackendComparison::passed() const {
  return need(impl_, "passed").result.passed();
}

const std::string& BackendComparison::verdict() const {
  return need(impl_, "verdict").result.verdict;
}

std::span<const StepError> BackendComparison::steps() const {
  return need(impl_, "steps").result.steps;
}

std::span<const StepError> BackendComparison::envelope() const {
  return need(impl_, "envelope").result.envelope;
}

Tolerance BackendComparison::allowed() const {
  return need(impl_, "allowed").result.allowed;
}

std::string BackendComparison::gpu_name() const {
  return need(impl_, "gpu_name").gpu_name;
}

std::string BackendComparison::cpu_name() const {
  return need(impl_, "cpu_name").cpu_name;
}

std::string BackendComparison::gpu_device_type() const {
  return need(impl_, "gpu_device_type").gpu_type;
}

void BackendComparison::write_report(const std::filesystem::path& path,
                                     const std::string& scene_file) const {
  const Impl& c = need(impl_, "write_report");
  guarded([&] {
    io::CompareReport rep;
    rep.scene = &c.scene;
    rep.scene_file = scene_file;
    rep.backend_a = c.gpu_name;
    rep.backend_b = c.cpu_name;
    if (c.gpu_type == "cpu") {
      rep.note = "The GPU backend ran on a CPU Vulkan driver: these are its results, not a GPU's.";
    }
    rep.options = c.options;
    rep.result = &c.result;
    io::write_compare_report(path.string(), rep);
  });
}

}  // namespace vkphys
