// Four contact manifolds, or four particle contacts, in SIMD lanes: the CPU backend's wide sweep
// (host/cpu/manifold_lanes.inl drives it). C++ only: the GPU runs one unit an invocation and
// needs none of this.
//
// Why: a manifold's rows are a chain (each row reads the velocities the row before wrote), some
// 50 cycles of latency a row. Two manifolds interleaved as scalar code filled part of that wait,
// but the code stayed scalar: glm's vec3 is three floats, two lanes' 24 velocity floats did not
// fit the 16 SSE registers, and a two-lane point cost about 740 instructions, 200 of them stack
// traffic (stop 36, helper-53). Here one SSE register holds one value of four manifolds that
// share no dynamic body, so a row of four manifolds is the instructions of one.
//
// Same bits: kernels/row_sweep.inl, kernels/pcontact_rows.inl, kernels/tangent_basis.inl and
// kernels/contact_point_rows.inl are included below a second time, in this namespace, whose
// lane_float, vec2, vec3, vec4, RowParts and BodyState are four lanes wide. Each operator here is
// glm's, lane by lane, in glm's order (dot is (x x' + y y') + z z', max(x, y) is x < y ? y : x),
// and the build has -ffp-contract=off, so each lane computes exactly what the scalar sweep computes
// for its manifold. Conditions become masks (lane_select); the disc's square root is taken when any
// lane needs it. A lane past its manifold's last point computes on that point's data and is masked
// out: its velocities are selected back bit for bit and its impulses never stored. A lane with no
// manifold computes on lane 0's data and is never stored at all.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <glm/glm.hpp>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif
// (glm's vec4 is four packed floats: the SSE paths load and store it whole.)

#include "kernels/common.h"
#include "kernels/rows.h"
#include "kernels/world_layout.h"

namespace vkphys::kern::wide {

using uint = std::uint32_t;
using index_t = std::size_t;

inline constexpr uint kLanes = 4u;

// GCC's and Clang's vector extensions: SSE on x86-64, NEON on AArch64, plain code elsewhere.
using f4v = float __attribute__((vector_size(16)));
using i4v = std::int32_t __attribute__((vector_size(16)));

// One condition a lane: all ones or all zeros (a vector comparison's result).
struct lane_bool {
  i4v m;
};

struct lane_float {
  f4v v;
  lane_float() = default;
  lane_float(float s) : v{s, s, s, s} {}  // NOLINT(google-explicit-constructor): literals
  explicit lane_float(f4v x) : v(x) {}
};

inline lane_float operator+(lane_float a, lane_float b) {
  return lane_float(a.v + b.v);
}
inline lane_float operator-(lane_float a, lane_float b) {
  return lane_float(a.v - b.v);
}
inline lane_float operator*(lane_float a, lane_float b) {
  return lane_float(a.v * b.v);
}
inline lane_float operator/(lane_float a, lane_float b) {
  return lane_float(a.v / b.v);
}
inline lane_float operator-(lane_float a) {
  return lane_float(-a.v);
}
inline lane_bool operator<(lane_float a, lane_float b) {
  return {a.v < b.v};
}
inline lane_bool operator>(lane_float a, lane_float b) {
  return {a.v > b.v};
}
inline lane_bool operator>=(lane_float a, lane_float b) {
  return {a.v >= b.v};
}
inline lane_bool operator&&(lane_bool a, lane_bool b) {
  return {a.m & b.m};
}

inline bool any_lane(lane_bool c) {
#if defined(__SSE__)
  return _mm_movemask_ps(__m128(c.m)) != 0;
#else
  return (c.m[0] | c.m[1] | c.m[2] | c.m[3]) != 0;
#endif
}

inline lane_float lane_select(lane_bool c, lane_float a, lane_float b) {
  return lane_float(f4v((c.m & i4v(a.v)) | (~c.m & i4v(b.v))));
}

// glm's max and min (x < y ? y : x, y < x ? y : x): the same choice for -0 and +0 as the
// scalar code.
inline lane_float max(lane_float x, lane_float y) {
  return lane_select(x < y, y, x);
}
inline lane_float min(lane_float x, lane_float y) {
  return lane_select(y < x, y, x);
}

// IEEE's correctly rounded root, as sqrtf's.
inline lane_float sqrt(lane_float x) {
#if defined(__SSE__)
  return lane_float(f4v(_mm_sqrt_ps(x.v)));
#else
  return lane_float(
      f4v{std::sqrt(x.v[0]), std::sqrt(x.v[1]), std::sqrt(x.v[2]), std::sqrt(x.v[3])});
#endif
}

struct vec2 {
  lane_float x, y;
  vec2() = default;
  explicit vec2(lane_float s) : x(s), y(s) {}
  vec2(lane_float a, lane_float b) : x(a), y(b) {}
};

inline vec2 operator*(vec2 a, lane_float s) {
  return {a.x * s, a.y * s};
}
inline lane_float dot(vec2 a, vec2 b) {
  return a.x * b.x + a.y * b.y;
}
inline lane_float length(vec2 a) {
  return sqrt(dot(a, a));
}
inline vec2 clamp(vec2 x, vec2 lo, vec2 hi) {
  return {min(max(x.x, lo.x), hi.x), min(max(x.y, lo.y), hi.y)};
}
inline vec2 lane_select(lane_bool c, vec2 a, vec2 b) {
  return {lane_select(c, a.x, b.x), lane_select(c, a.y, b.y)};
}

struct vec3 {
  lane_float x, y, z;
  vec3() = default;
  vec3(lane_float a, lane_float b, lane_float c) : x(a), y(b), z(c) {}
};

inline vec3 operator+(vec3 a, vec3 b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline vec3 operator-(vec3 a, vec3 b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
inline vec3 operator*(lane_float s, vec3 a) {
  return {s * a.x, s * a.y, s * a.z};
}
inline vec3& operator+=(vec3& a, vec3 b) {
  return a = {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline vec3& operator-=(vec3& a, vec3 b) {
  return a = {a.x - b.x, a.y - b.y, a.z - b.z};
}
inline lane_float dot(vec3 a, vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline vec3 lane_select(lane_bool c, vec3 a, vec3 b) {
  return {lane_select(c, a.x, b.x), lane_select(c, a.y, b.y), lane_select(c, a.z, b.z)};
}

struct vec4 {
  lane_float x, y, z, w;
  vec4() = default;
  vec4(lane_float a, lane_float b, lane_float c, lane_float d) : x(a), y(b), z(c), w(d) {}
};

// kernels/rows.h's RowParts and BodyState, a lane each (a sweep reads no inverse inertia).
struct RowParts {
  vec3 ca;
  vec3 cb;
  vec3 ia;
  vec3 ib;
};

struct BodyState {
  vec3 v;
  vec3 w;
  lane_float im;
};

#include "kernels/row_sweep.inl"
// (after the row arithmetic they are written with)
#include "kernels/pcontact_rows.inl"
#include "kernels/tangent_basis.inl"

// ---- lanes from and to the scalar world ------------------------------------------------------

inline lane_float lanes_of(const float (&s)[kLanes]) {
  return lane_float(f4v{s[0], s[1], s[2], s[3]});
}

// Lane l of each value is v[l]'s.
inline vec3 pack(const glm::vec3 (&v)[kLanes]) {
  return {lane_float(f4v{v[0].x, v[1].x, v[2].x, v[3].x}),
          lane_float(f4v{v[0].y, v[1].y, v[2].y, v[3].y}),
          lane_float(f4v{v[0].z, v[1].z, v[2].z, v[3].z})};
}

inline vec4 pack(const glm::vec4& a, const glm::vec4& b, const glm::vec4& c, const glm::vec4& d) {
  return {lane_float(f4v{a.x, b.x, c.x, d.x}), lane_float(f4v{a.y, b.y, c.y, d.y}),
          lane_float(f4v{a.z, b.z, c.z, d.z}), lane_float(f4v{a.w, b.w, c.w, d.w})};
}

[[gnu::always_inline]] inline BodyState pack(const kern::BodyState (&s)[kLanes]) {
  glm::vec3 v[kLanes];
  glm::vec3 w[kLanes];
  float im[kLanes];
  for (uint l = 0u; l < kLanes; ++l) {
    v[l] = s[l].v;
    w[l] = s[l].w;
    im[l] = s[l].im;
  }
  return {pack(v), pack(w), lanes_of(im)};
}

inline glm::vec3 lane(vec3 v, uint l) {
  return {v.x.v[l], v.y.v[l], v.z.v[l]};
}
inline glm::vec4 lane(vec4 v, uint l) {
  return {v.x.v[l], v.y.v[l], v.z.v[l], v.w.v[l]};
}

// Lane l's velocities written into s (its mass and inertia are unchanged by a sweep).
inline void unpack(const BodyState& b, uint l, kern::BodyState& s) {
  s.v = lane(b.v, l);
  s.w = lane(b.w, l);
}

inline BodyState lane_select(lane_bool c, const BodyState& a, const BodyState& b) {
  return {lane_select(c, a.v, b.v), lane_select(c, a.w, b.w), a.im};
}

// ---- the point functions' environment --------------------------------------------------------

// Four vec4 (a lane each) as four lanes of x, y, z and w: the SSE transpose where there is SSE.
[[gnu::always_inline]] inline vec4 transpose(const glm::vec4& a, const glm::vec4& b,
                                             const glm::vec4& c, const glm::vec4& d) {
#if defined(__SSE__)
  __m128 r0 = _mm_loadu_ps(&a.x);
  __m128 r1 = _mm_loadu_ps(&b.x);
  __m128 r2 = _mm_loadu_ps(&c.x);
  __m128 r3 = _mm_loadu_ps(&d.x);
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  return {lane_float(f4v(r0)), lane_float(f4v(r1)), lane_float(f4v(r2)), lane_float(f4v(r3))};
#else
  return pack(a, b, c, d);
#endif
}

// transpose's inverse: lane l's x, y, z and w as out[l].
[[gnu::always_inline]] inline void untranspose(const vec4& v, glm::vec4 (&out)[kLanes]) {
#if defined(__SSE__)
  __m128 r0 = v.x.v;
  __m128 r1 = v.y.v;
  __m128 r2 = v.z.v;
  __m128 r3 = v.w.v;
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  _mm_storeu_ps(&out[0].x, r0);
  _mm_storeu_ps(&out[1].x, r1);
  _mm_storeu_ps(&out[2].x, r2);
  _mm_storeu_ps(&out[3].x, r3);
#else
  for (uint l = 0u; l < kLanes; ++l) out[l] = lane(v, l);
#endif
}

// The manifolds of the lanes, and the point the point functions work on: seek(k) sets each
// lane's slot to its manifold's k-th point, or its last one past its count (a lane without a
// manifold has lane 0's pair and no points: lane 0's points are read, computed, never stored).
struct ManifoldLanes {
  const glm::vec4* prep = nullptr;
  glm::vec4* lambda = nullptr;
  uint pair[kLanes]{};
  uint points[kLanes]{};
  index_t slot[kLanes]{};
  // The lanes' row parts gathered once a step (WorldEnv::gather_lane_row_parts): point k's row r
  // at 3 k + r, or null to gather them from prep at each use.
  const RowParts* parts = nullptr;

  void seek(uint k) {
    for (uint l = 0u; l < kLanes; ++l) {
      uint last = (points[l] > 0u ? points[l] : points[0]) - 1u;
      slot[l] = 4u * index_t(pair[l]) + (k < last ? k : last);
    }
  }
  lane_bool live(uint k) const {
    return {
        i4v{-int(k < points[0]), -int(k < points[1]), -int(k < points[2]), -int(k < points[3])}};
  }
  [[gnu::always_inline]] vec4 gather(const glm::vec4* base, index_t stride, index_t at) const {
    return transpose(base[stride * slot[0] + at], base[stride * slot[1] + at],
                     base[stride * slot[2] + at], base[stride * slot[3] + at]);
  }
};

// point_lambda[k] of kernels/contact_point_rows.inl: the lanes' impulses at the point seek set,
// read and written (a write stores only the lanes that have a k-th point).
struct LambdaRef {
  const ManifoldLanes& m;
  uint k;
  // NOLINTNEXTLINE(google-explicit-constructor): reads as the buffer's element
  [[gnu::always_inline]] operator vec4() const { return m.gather(m.lambda, 1u, 0u); }
  [[gnu::always_inline]] void operator=(const vec4& v) const {
#if defined(__SSE__)
    __m128 r[kLanes] = {v.x.v, v.y.v, v.z.v, v.w.v};
    _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);
    for (uint l = 0u; l < kLanes; ++l) {
      if (k < m.points[l]) _mm_storeu_ps(&m.lambda[m.slot[l]].x, r[l]);
    }
#else
    for (uint l = 0u; l < kLanes; ++l) {
      if (k < m.points[l]) {
        m.lambda[m.slot[l]] = glm::vec4(v.x.v[l], v.y.v[l], v.z.v[l], v.w.v[l]);
      }
    }
#endif
  }
};

struct LambdaColumn {
  const ManifoldLanes& m;
  LambdaRef operator[](uint k) const { return {m, k}; }
};

// The environment kernels/contact_point_rows.inl's functions run in, four manifolds at a time:
// their `slot` is the point index k that ManifoldLanes::seek set, the accessors gather the
// lanes' k-th points (the layout of kernels/contact_manifold.inl's point_prep) and point_lambda
// scatters them back.
struct PointLanes {
  const ManifoldLanes& m;
  LambdaColumn point_lambda{m};

  // k: the point seek set (the functions below pass their `slot` through).
  [[gnu::always_inline]] vec4 point_prep_at(uint /*k*/, uint at) const {
    return m.gather(m.prep, VKPHYS_POINT_PREP, at);
  }

  [[gnu::always_inline]] RowParts row_parts_at(uint k, uint row) const {
    if (m.parts != nullptr) return m.parts[3u * k + row];
    return gather_row_parts(k, row);
  }

  // Row `row` of the lanes' point k (after seek(k)): three gathers of four vec4 each.
  [[gnu::always_inline]] RowParts gather_row_parts(uint k, uint row) const {
    uint at = 6u + 3u * row;
    return unpack_row_parts(point_prep_at(k, at), point_prep_at(k, at + 1u),
                            point_prep_at(k, at + 2u));
  }

#include "kernels/contact_point_rows.inl"
};

}  // namespace vkphys::kern::wide
