// The public API's error boundary: what the library's internals throw leaves as vkphys::Error
// with the same message (the line the CLI prints).
#pragma once

#include <exception>

#include "vkphys/error.h"

namespace vkphys {

template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(e.what());
  }
}

}  // namespace vkphys
