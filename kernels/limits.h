// Sizes shared by the kernels, the shaders and the host: the workgroup sizes of the compute
// shaders, and the fixed-size tables of the step constants.
#ifndef VKPHYS_KERNELS_LIMITS_H
#define VKPHYS_KERNELS_LIMITS_H

#define VKPHYS_GROUP_SIZE 64
// The one workgroup of shaders/world_fused.comp (small scenes' colouring and sweeps).
#define VKPHYS_FUSED_GROUP_SIZE 256
#define VKPHYS_MAX_PLANES 16           // scene planes (WorldParams.plane_bodies)
#define VKPHYS_MAX_MATERIALS 64        // materials (WorldParams.materials)
#define VKPHYS_EMPTY_CELL 0xFFFFFFFFu  // an empty bucket of the particle grid

#endif
