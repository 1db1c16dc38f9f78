/// \file
/// VKPHYS_API marks what libvkphys.so exports: the public API in these headers and nothing else.
/// The library is built with hidden visibility (host/CMakeLists.txt), so its internals, and the
/// copies of fmt, nlohmann/json and volk linked into it, cannot clash with a program's own (a
/// program with its own Vulkan loader or volk keeps its function table; tests/check_exports.py
/// holds the list).
#pragma once

#define VKPHYS_API __attribute__((visibility("default")))
