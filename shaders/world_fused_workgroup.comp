#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
#pragma use_vulkan_memory_model
// shaders/world_fused.comp for a GPU with the Vulkan memory model (vk::DeviceInfo::memory_model;
// host/gpu/world_kernels.cpp picks it): every buffer coherent within the workgroup only
// (`workgroupcoherent`), with one control barrier that releases and acquires the buffers. The
// whole workgroup runs on one multiprocessor, whose L1 may then keep the bodies between
// colours, where device-wide `coherent` sends every access to L2: on an H200 the 210-box
// pyramid's fused step went from 2.37 to 1.87 ms and the 1,000-particle one from 2.32 to 1.26,
// with the same bits as the per-colour dispatches (FusedSolve, on the card; docs/benchmarks.md).
//
// A CPU Vulkan driver gets world_fused.comp instead: on lavapipe (Mesa 22.3.6) this variant gave
// different results from the per-colour dispatches (FusedSolve failed), where the card gave the
// same bits; a CPU driver runs a workgroup on one core, so it gains nothing from it anyway.
#define VKPHYS_LOCAL_SIZE VKPHYS_FUSED_GROUP_SIZE
#define VKPHYS_BUFFER_QUALIFIER workgroupcoherent
#include "world_common.glsl"

// Every write before it visible to every invocation of the workgroup after it.
void workgroup_sync() {
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,
                 gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, gl_SemanticsAcquireRelease);
}

#include "world_fused_body.glsl"
