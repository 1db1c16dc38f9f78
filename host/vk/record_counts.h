// What a command buffer's recording holds: its dispatches and pipeline barriers, counted where
// they are recorded (vk::Kernel::dispatch, dispatch_indirect, vk::barrier, barrier_to_host), so
// that no caller keeps its own tally and none can drift from what the GPU runs. The GPU backend
// reports them per step (StepStatistics::dispatches, barriers: `vkphys bench`).
//
// A RecordCounts counts what this thread records while it is alive; an inner one counts alone
// and hands the outer one back when it ends. Recording is single-threaded per command buffer
// (Vulkan's external synchronisation rule), so a thread-local counter sees exactly one
// recording.
#pragma once

#include <cstdint>

namespace vkphys::vk {

class RecordCounts {
 public:
  RecordCounts();
  ~RecordCounts();
  RecordCounts(const RecordCounts&) = delete;
  RecordCounts& operator=(const RecordCounts&) = delete;

  std::uint32_t dispatches() const { return dispatches_; }
  std::uint32_t barriers() const { return barriers_; }

  // Called by the recording functions named above.
  static void count_dispatch();
  static void count_barrier();

 private:
  RecordCounts* outer_;
  std::uint32_t dispatches_ = 0, barriers_ = 0;
};

}  // namespace vkphys::vk
