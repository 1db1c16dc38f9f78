// Radix sort of a small list in ONE workgroup: the whole sort in one dispatch.
//
// Why: the block radix sort costs three dispatches per 8-bit pass (histogram, scan, scatter), 12
// for 32-bit keys, each followed by a full barrier, and on a real GPU those cost a few
// microseconds each however few the keys; a step sorts a small scene's sweep keys and unit
// colours this way every step. Up to VKPHYS_LOCAL_SORT_MAX pairs fit in shared memory (16 KiB,
// the smallest maxComputeSharedMemorySize Vulkan allows), where a bitonic network sorts them.
//
// A bitonic network is not stable, so it orders (key's low key_bits bits, input position): no two
// entries tie, and the order is exactly the stable order the block radix sort gives (equal low
// bits keep their input order), so either path gives the same bits. Padding entries
// (0xFFFFFFFF, 0xFFFFFFFF) sort after every real one, whose position is below the count.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "kernels/radix.h"

#define GROUP VKPHYS_LOCAL_SORT_GROUP
#define MAX_N VKPHYS_LOCAL_SORT_MAX
#define PER_INVOCATION (MAX_N / GROUP)

layout(local_size_x = GROUP) in;

layout(std430, binding = 0) buffer Keys { uint keys[]; };
layout(std430, binding = 1) buffer Values { uint values[]; };

layout(std430, binding = 2) readonly buffer Live { uint live[]; };

// The block sort's push layout (`blocks` and `width` unused here), and where the live count is:
// only the first min(count, live[live_word]) pairs are sorted and the rest stay where they are
// (host/gpu/primitives.h); a list without a live count points at a word holding 0xFFFFFFFF.
layout(push_constant) uniform Push {
  uint count;
  uint pass_index;
  uint key_bits;
  uint blocks;
  uint width;
  uint live_word;
};

shared uint s_key[MAX_N];  // the key's low key_bits bits
shared uint s_pos[MAX_N];  // input position

bool after(uint i, uint j) {
  return s_key[i] > s_key[j] || (s_key[i] == s_key[j] && s_pos[i] > s_pos[j]);
}

void main() {
  uint t = gl_LocalInvocationID.x;
  uint n = min(count, live[live_word]);  // the same in every invocation
  if (n <= 1u) return;
  uint padded = 1u << uint(findMSB(n - 1u) + 1);  // the power of two >= n
  uint mask = key_bits >= 32u ? 0xFFFFFFFFu : (1u << key_bits) - 1u;
  for (uint i = t; i < padded; i += GROUP) {
    bool real = i < n;
    s_key[i] = real ? keys[i] & mask : 0xFFFFFFFFu;
    s_pos[i] = real ? i : 0xFFFFFFFFu;
  }
  barrier();
  for (uint k = 2u; k <= padded; k <<= 1u) {
    for (uint j = k >> 1u; j > 0u; j >>= 1u) {
      for (uint i = t; i < padded; i += GROUP) {
        uint l = i ^ j;
        if (l > i && after(i, l) == ((i & k) == 0u)) {
          uint key = s_key[i];
          uint pos = s_pos[i];
          s_key[i] = s_key[l];
          s_pos[i] = s_pos[l];
          s_key[l] = key;
          s_pos[l] = pos;
        }
      }
      barrier();
    }
  }
  // Gather every output pair before any is written back in place.
  uint out_key[PER_INVOCATION];
  uint out_value[PER_INVOCATION];
  for (uint c = 0u; c < PER_INVOCATION; ++c) {
    uint i = t + c * GROUP;
    if (i < n) {
      out_key[c] = keys[s_pos[i]];
      out_value[c] = values[s_pos[i]];
    }
  }
  memoryBarrierBuffer();
  barrier();
  for (uint c = 0u; c < PER_INVOCATION; ++c) {
    uint i = t + c * GROUP;
    if (i < n) {
      keys[i] = out_key[c];
      values[i] = out_value[c];
    }
  }
}
