// The tests' shared Vulkan contexts and the end of their life: one with the validation layer
// (with synchronization validation too when VKPHYS_SYNC_VALIDATION=1, to run any GPU test under
// it by hand), one with synchronization validation always (tests/test_gpu_sync_validation.cpp).
//
// The context is destroyed when the test program's run ends (a global test environment's
// TearDown), not by the destructor of a static at exit(). A static's destructor is registered
// when control first passes it, which is before the context's creation loads the Vulkan driver;
// the NVIDIA driver registers its own exit-time clean-up as it loads, so exit() would run the
// driver's clean-up first and vkDestroyDevice would call into a torn-down driver. On an H100
// (driver 580.159.04) every GPU test process passed its test and then crashed in exit(); on
// lavapipe the order happens not to matter.
#include "tests/gpu_env.h"

#include <memory>

namespace vkphys::test {
namespace {

struct SharedContext {
  std::unique_ptr<vk::Context> ctx;
  std::string error;
  bool tried = false;
};

SharedContext& shared() {
  static SharedContext s;
  return s;
}

SharedContext& shared_sync() {
  static SharedContext s;
  return s;
}

class ReleaseSharedContext : public ::testing::Environment {
 public:
  void TearDown() override { release_gpu_contexts(); }
};

const ::testing::Environment* const kRelease =
    ::testing::AddGlobalTestEnvironment(new ReleaseSharedContext);

vk::Context* context_or_null(SharedContext& s, bool sync_validation, std::string* why) {
  if (!s.tried) {
    s.tried = true;
    try {
      const char* dev = std::getenv("VKPHYS_TEST_DEVICE");
      s.ctx = vk::Context::create(
          {.device = dev ? dev : "", .validation = true, .sync_validation = sync_validation});
    } catch (const std::exception& e) {
      s.error = e.what();
    }
  }
  if (why) *why = s.error;
  return s.ctx.get();
}

}  // namespace

void release_gpu_contexts() {
  for (SharedContext* s : {&shared(), &shared_sync()}) {
    s->ctx.reset();
    s->error = "the shared Vulkan context was released at the end of the run";
  }
}

vk::Context* gpu_context_or_null(std::string* why) {
  const char* sync = std::getenv("VKPHYS_SYNC_VALIDATION");
  return context_or_null(shared(), sync && std::string(sync) == "1", why);
}

vk::Context* sync_context_or_null(std::string* why) {
  return context_or_null(shared_sync(), true, why);
}

}  // namespace vkphys::test
