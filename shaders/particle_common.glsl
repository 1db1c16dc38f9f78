// Common prologue of the particle-step shaders: the shared layout, the workgroup size and the
// step constants at binding 0. Every particle shader is thin: index, bounds check, call a
// function from kernels/, store.
#include "kernels/layout.h"
#include "kernels/spook.h"
#include "kernels/integrate.h"
#include "kernels/grid.h"
#include "kernels/narrowphase.h"
#include "kernels/contact_row.h"

layout(local_size_x = VKPHYS_GROUP_SIZE) in;
layout(std140, binding = 0) uniform Params { StepParams params; };
