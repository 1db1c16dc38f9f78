#include "host/vk/record_counts.h"

namespace vkphys::vk {
namespace {
thread_local RecordCounts* active = nullptr;
}  // namespace

RecordCounts::RecordCounts() : outer_(active) {
  active = this;
}

RecordCounts::~RecordCounts() {
  active = outer_;
}

void RecordCounts::count_dispatch() {
  if (active) ++active->dispatches_;
}

void RecordCounts::count_barrier() {
  if (active) ++active->barriers_;
}

}  // namespace vkphys::vk
