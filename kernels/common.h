// Single-source glue: every file in kernels/ is valid GLSL 4.50 and valid C++20 (with GLM).
//
// The physics lives here once. Shaders #include these headers; the CPU reference backend
// includes the same headers and calls the same functions in loops. The macros below paper over
// the only differences between the two languages that the kernels need:
//   KFN                   `inline` in C++ (headers define functions), nothing in GLSL
//   KINOUT(T) / KOUT(T)   GLSL `inout T` / `out T`, C++ references
//   KINLINE               C++: always inline; nothing in GLSL (which inlines every call). For a
//                         solver sweep on the hot path whose KINOUT arguments must stay in
//                         registers: called, its callers' copies of them went through the
//                         stack, written in parts and read back whole, and every such read
//                         missed store-to-load forwarding.
//   KERNELS_BEGIN / END   a C++ namespace around the functions; nothing in GLSL
//   KERNELS_CPU           true in C++, false in GLSL: for a shortcut that is exact on the CPU
//                         (built with -ffp-contract=off) but whose control flow would let the
//                         shader compiler fuse and fold the arithmetic differently, or diverge
//   index_t               an index computed into a buffer with a stride: GLSL uint, C++ size_t.
//                         Why: a 32-bit uint index `16 slot + k` must wrap at 2^32, so the C++
//                         compiler computes and zero-extends it for every access (lea, shl, add)
//                         instead of addressing base + 256 slot + 16 k with a displacement; in
//                         the contact sweep that was some 30 instructions a point (helper-53).
//   lane_float, lane_bool float and bool, for the values of a contact row that vary per
//                         manifold. The CPU's wide contact sweep (host/cpu/wide_lanes.h) compiles
//                         the row arithmetic of kernels/row_sweep.inl and kernels/
//                         contact_point_rows.inl a second time with these as four SIMD lanes,
//                         one manifold each.
// Float literals carry an `f` suffix so C++ does not promote to double (GLSL accepts it too).
#ifndef VKPHYS_KERNELS_COMMON_H
#define VKPHYS_KERNELS_COMMON_H

#ifdef __cplusplus
#include <cstddef>
#include <cstdint>
#include <glm/glm.hpp>
#define KFN inline
#define KINOUT(T) T&
#define KOUT(T) T&
#define KINLINE [[gnu::always_inline]]
#define KERNELS_BEGIN          \
  namespace vkphys::kern {     \
  using namespace glm;         \
  using uint = std::uint32_t;  \
  using index_t = std::size_t; \
  using lane_float = float;    \
  using lane_bool = bool;
#define KERNELS_END }
#define KERNELS_CPU true
#else
#define KFN
#define KINOUT(T) inout T
#define KOUT(T) out T
#define KINLINE
#define KERNELS_BEGIN
#define KERNELS_END
#define KERNELS_CPU false
#define index_t uint
#define lane_float float
#define lane_bool bool
#endif

#endif
