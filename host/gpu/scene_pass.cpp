#include "host/gpu/scene_pass.h"

#include <algorithm>
#include <cstring>
#include <glm/gtc/matrix_transform.hpp>
#include <vector>

#include "render_fs.spv.h"
#include "render_vs.spv.h"

namespace vkphys::gpu {

namespace {

struct Vertex {
  glm::vec4 position, normal, color;
};

struct Push {
  glm::mat4 view_proj;
  glm::vec4 light;
};

VkShaderModule make_module(const vk::Context& ctx, const std::uint32_t* words, std::size_t n) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = n * sizeof(std::uint32_t);
  info.pCode = words;
  VkShaderModule m = VK_NULL_HANDLE;
  vk::check(vkCreateShaderModule(ctx.device(), &info, nullptr, &m), "vkCreateShaderModule");
  return m;
}

// A face's unit normal (x1 - x0) x (x2 - x0), its length twice the area before normalising; a
// face without area gets +y.
glm::dvec3 face_normal(const io::SurfaceMesh& mesh, const std::vector<std::uint32_t>& f,
                       bool unit) {
  const glm::dvec3 a = mesh.points[f[0]];
  const glm::dvec3 n = glm::cross(mesh.points[f[1]] - a, mesh.points[f[2]] - a);
  if (!unit) return n;
  return glm::length(n) > 0.0 ? glm::normalize(n) : glm::dvec3(0.0, 1.0, 0.0);
}

// Per-point normals of the cloth points (kind cloth) from their current positions: the sum of
// the adjacent facets' area-weighted normals (cross products), normalised, so a draped cloth
// shades smoothly across its facets. A point whose facets cancel (a sharp fold) keeps a zero
// normal and its facets fall back to their flat one. One pass over the triangles on the host
// each frame: with the vertex list and its upload, a Drawable of a 32^2 cloth takes 0.23 ms,
// 128^2 4.1 ms and 256^2 (130k triangles) 24 ms (one core of this machine, lavapipe memory).
std::vector<glm::dvec3> cloth_normals(const io::SurfaceMesh& mesh) {
  std::vector<glm::dvec3> n(mesh.points.size(), glm::dvec3(0.0));
  for (const std::vector<std::uint32_t>& f : mesh.polys) {
    if (f.size() != 3 || mesh.kind[f[0]] != io::PointKind::cloth) continue;
    const glm::dvec3 fn = face_normal(mesh, f, false);
    for (std::uint32_t v : f) n[v] += fn;
  }
  for (glm::dvec3& v : n) {
    if (glm::length(v) > 0.0) v = glm::normalize(v);
  }
  return n;
}

// A joint's line as a strip facing the eye, 2 kLineWidth of the distance to the eye wide, so it
// looks alike from near and far: about 1.1% of the picture's height with the default 40 degree
// view (5 pixels in a 480-pixel-high picture), lit head-on.
constexpr double kLineWidth = 0.004;
void add_line(std::vector<Vertex>& out, glm::dvec3 a, glm::dvec3 b, glm::dvec3 eye,
              glm::vec4 color) {
  const glm::dvec3 mid = 0.5 * (a + b);
  glm::dvec3 side = glm::cross(b - a, eye - mid);
  if (!(glm::length(side) > 0.0)) return;  // seen end on, or of no length: nothing to draw
  side = glm::normalize(side);
  const glm::vec4 n(glm::vec3(glm::normalize(eye - mid)), 0.0f);
  const glm::dvec3 wa = side * (kLineWidth * glm::length(eye - a));
  const glm::dvec3 wb = side * (kLineWidth * glm::length(eye - b));
  const glm::dvec3 quad[6] = {a - wa, b - wb, b + wb, a - wa, b + wb, a + wa};
  for (const glm::dvec3& x : quad) out.push_back({glm::vec4(glm::vec3(x), 1.0f), n, color});
}

// Triangles with their owner's colour: each polygon as a fan with a flat normal, cloth
// facets with their points' normals, and joints' lines as strips. A plane's square (wound
// about its normal) is left out when the eye is behind it, in its solid half-space: a funnel's
// walls would hide what falls into it.
std::vector<Vertex> triangles(const io::SurfaceMesh& mesh, glm::dvec3 eye) {
  std::vector<Vertex> out;
  const std::vector<glm::dvec3> smooth = cloth_normals(mesh);
  for (const std::vector<std::uint32_t>& f : mesh.polys) {
    if (f.size() < 3) continue;
    const glm::dvec3 n = face_normal(mesh, f, true);
    if (mesh.kind[f[0]] == io::PointKind::plane && glm::dot(n, eye - mesh.points[f[0]]) < 0.0)
      continue;
    const glm::vec4 color(kind_color(static_cast<io::PointKind>(mesh.kind[f[0]])), 1.0f);
    for (std::size_t k = 1; k + 1 < f.size(); ++k) {
      for (std::uint32_t v : {f[0], f[k], f[k + 1]}) {
        const glm::dvec3 vn = glm::length(smooth[v]) > 0.0 ? smooth[v] : n;
        out.push_back(
            {glm::vec4(glm::vec3(mesh.points[v]), 1.0f), glm::vec4(glm::vec3(vn), 0.0f), color});
      }
    }
  }
  const glm::vec4 joint(kind_color(io::PointKind::anchor), 1.0f);
  for (const std::vector<std::uint32_t>& l : mesh.lines) {
    for (std::size_t k = 0; k + 1 < l.size(); ++k) {
      add_line(out, mesh.points[l[k]], mesh.points[l[k + 1]], eye, joint);
    }
  }
  return out;
}

}  // namespace

glm::vec3 kind_color(io::PointKind kind) {
  switch (kind) {
    case io::PointKind::particle:
      return {0.25f, 0.5f, 0.95f};
    case io::PointKind::plane:
      return {0.6f, 0.6f, 0.6f};
    case io::PointKind::cloth:
      return {0.3f, 0.72f, 0.42f};
    case io::PointKind::anchor:
      return {0.2f, 0.2f, 0.25f};
    default:
      return {0.95f, 0.55f, 0.2f};
  }
}

Attachment::Attachment(const vk::Context& c, std::uint32_t w, std::uint32_t h, VkFormat format,
                       VkImageUsageFlags usage, VkImageAspectFlags aspect)
    : ctx(c) {
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format;
  info.extent = {w, h, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  vk::check(vkCreateImage(ctx.device(), &info, nullptr, &image), "vkCreateImage");
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(ctx.device(), image, &req);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex =
      ctx.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT).index;
  vk::check(vkAllocateMemory(ctx.device(), &alloc, nullptr, &memory), "vkAllocateMemory");
  vk::check(vkBindImageMemory(ctx.device(), image, memory, 0), "vkBindImageMemory");
  VkImageViewCreateInfo vinfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  vinfo.image = image;
  vinfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
  vinfo.format = format;
  vinfo.subresourceRange = {aspect, 0, 1, 0, 1};
  vk::check(vkCreateImageView(ctx.device(), &vinfo, nullptr, &view), "vkCreateImageView");
}

Attachment::~Attachment() {
  vkDestroyImageView(ctx.device(), view, nullptr);
  vkDestroyImage(ctx.device(), image, nullptr);
  vkFreeMemory(ctx.device(), memory, nullptr);
}

glm::mat4 view_proj(const Camera& c, std::uint32_t width, std::uint32_t height) {
  glm::mat4 proj = glm::perspectiveRH_ZO(c.fov_y, float(width) / float(height), 0.05f, 1000.0f);
  proj[1][1] *= -1.0f;  // Vulkan's y points down
  return proj * glm::lookAtRH(c.eye, c.target, c.up);
}

glm::vec2 project(const Camera& camera, std::uint32_t width, std::uint32_t height,
                  glm::vec3 world) {
  const glm::vec4 clip = view_proj(camera, width, height) * glm::vec4(world, 1.0f);
  const glm::vec2 ndc = glm::vec2(clip) / clip.w;
  return {(ndc.x * 0.5f + 0.5f) * float(width), (ndc.y * 0.5f + 0.5f) * float(height)};
}

CameraRay pixel_ray(const Camera& camera, std::uint32_t width, std::uint32_t height,
                    glm::dvec2 pixel) {
  const glm::dmat4 inv = glm::inverse(glm::dmat4(view_proj(camera, width, height)));
  const glm::dvec2 ndc(2.0 * pixel.x / width - 1.0, 2.0 * pixel.y / height - 1.0);
  const glm::dvec4 far = inv * glm::dvec4(ndc, 1.0, 1.0);
  const glm::dvec3 eye(camera.eye);
  return {eye, glm::normalize(glm::dvec3(far) / far.w - eye)};
}

void copy_to_host(VkCommandBuffer cb, VkImage image, VkExtent2D extent, const vk::Buffer& dst) {
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {extent.width, extent.height, 1};
  vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst.handle(), 1, &region);
  vk::barrier_to_host(cb);
}

Drawable::Drawable(const vk::Context& ctx, const io::SurfaceMesh& mesh, const Camera& cam)
    : camera(cam) {
  const std::vector<Vertex> verts = triangles(mesh, glm::dvec3(cam.eye));
  vertices = vk::Buffer(ctx, std::max<std::size_t>(verts.size(), 1) * sizeof(Vertex),
                        VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true);
  if (!verts.empty()) std::memcpy(vertices.mapped(), verts.data(), verts.size() * sizeof(Vertex));
  count = static_cast<std::uint32_t>(verts.size());
}

ScenePass::ScenePass(const vk::Context& ctx, VkFormat color_format, VkImageLayout final_layout)
    : ctx_(ctx) {
  std::uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical(), &families, nullptr);
  std::vector<VkQueueFamilyProperties> props(families);
  vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical(), &families, props.data());
  if (!(props.at(ctx.queue_family()).queueFlags & VK_QUEUE_GRAPHICS_BIT)) {
    throw vk::Error("render: the device's compute queue cannot draw (no graphics bit): " +
                    ctx.info().name);
  }
  VkAttachmentDescription att[2]{};
  att[0].format = color_format;
  att[0].samples = VK_SAMPLE_COUNT_1_BIT;
  att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  att[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  att[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  att[0].finalLayout = final_layout;
  att[1] = att[0];
  att[1].format = kDepthFormat;
  att[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  att[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
  VkAttachmentReference color_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  VkSubpassDescription sub{};
  sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  sub.colorAttachmentCount = 1;
  sub.pColorAttachments = &color_ref;
  sub.pDepthStencilAttachment = &depth_ref;
  VkSubpassDependency deps[2]{};
  deps[0].srcSubpass = VK_SUBPASS_EXTERNAL;
  deps[0].dstSubpass = 0;
  deps[0].srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  deps[0].srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  deps[0].dstStageMask =
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT;
  deps[0].dstAccessMask =
      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  deps[1].srcSubpass = 0;
  deps[1].dstSubpass = VK_SUBPASS_EXTERNAL;
  deps[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  deps[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  deps[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  deps[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  VkRenderPassCreateInfo pinfo{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  pinfo.attachmentCount = 2;
  pinfo.pAttachments = att;
  pinfo.subpassCount = 1;
  pinfo.pSubpasses = &sub;
  pinfo.dependencyCount = 2;
  pinfo.pDependencies = deps;
  vk::check(vkCreateRenderPass(ctx.device(), &pinfo, nullptr, &pass_), "vkCreateRenderPass");

  vs_ = make_module(ctx, render_vs_spv, sizeof(render_vs_spv) / sizeof(render_vs_spv[0]));
  fs_ = make_module(ctx, render_fs_spv, sizeof(render_fs_spv) / sizeof(render_fs_spv[0]));
  VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                            sizeof(Push)};
  VkPipelineLayoutCreateInfo linfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  linfo.pushConstantRangeCount = 1;
  linfo.pPushConstantRanges = &range;
  vk::check(vkCreatePipelineLayout(ctx.device(), &linfo, nullptr, &layout_),
            "vkCreatePipelineLayout");

  VkPipelineShaderStageCreateInfo stages[2]{};
  stages[0].sType = stages[1].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vs_;
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = fs_;
  stages[1].pName = "main";
  VkVertexInputBindingDescription binding{0, sizeof(Vertex), VK_VERTEX_INPUT_RATE_VERTEX};
  VkVertexInputAttributeDescription attrs[3] = {
      {0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(Vertex, position)},
      {1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(Vertex, normal)},
      {2, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(Vertex, color)}};
  VkPipelineVertexInputStateCreateInfo input{
      VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  input.vertexBindingDescriptionCount = 1;
  input.pVertexBindingDescriptions = &binding;
  input.vertexAttributeDescriptionCount = 3;
  input.pVertexAttributeDescriptions = attrs;
  VkPipelineInputAssemblyStateCreateInfo assembly{
      VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = 1;
  vp.scissorCount = 1;
  const VkDynamicState dynamic[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dyn{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dyn.dynamicStateCount = 2;
  dyn.pDynamicStates = dynamic;
  VkPipelineRasterizationStateCreateInfo raster{
      VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineDepthStencilStateCreateInfo ds{
      VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  ds.depthTestEnable = VK_TRUE;
  ds.depthWriteEnable = VK_TRUE;
  ds.depthCompareOp = VK_COMPARE_OP_LESS;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                         VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  cb.attachmentCount = 1;
  cb.pAttachments = &blend;
  VkGraphicsPipelineCreateInfo gp{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  gp.stageCount = 2;
  gp.pStages = stages;
  gp.pVertexInputState = &input;
  gp.pInputAssemblyState = &assembly;
  gp.pViewportState = &vp;
  gp.pRasterizationState = &raster;
  gp.pMultisampleState = &ms;
  gp.pDepthStencilState = &ds;
  gp.pColorBlendState = &cb;
  gp.pDynamicState = &dyn;
  gp.layout = layout_;
  gp.renderPass = pass_;
  vk::check(
      vkCreateGraphicsPipelines(ctx.device(), ctx.pipeline_cache(), 1, &gp, nullptr, &pipeline_),
      "vkCreateGraphicsPipelines(render)");
}

ScenePass::~ScenePass() {
  VkDevice d = ctx_.device();
  vkDestroyPipeline(d, pipeline_, nullptr);
  vkDestroyPipelineLayout(d, layout_, nullptr);
  vkDestroyShaderModule(d, vs_, nullptr);
  vkDestroyShaderModule(d, fs_, nullptr);
  vkDestroyRenderPass(d, pass_, nullptr);
}

void ScenePass::record(VkCommandBuffer cb, VkFramebuffer framebuffer, VkExtent2D extent,
                       const Drawable& drawable) const {
  const Camera& camera = drawable.camera;
  Push push{view_proj(camera, extent.width, extent.height),
            glm::vec4(glm::normalize(camera.eye - camera.target), 0.0f)};
  VkClearValue clear[2]{};
  clear[0].color = {{kBackground.r, kBackground.g, kBackground.b, 1.0f}};
  clear[1].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  begin.renderPass = pass_;
  begin.framebuffer = framebuffer;
  begin.renderArea = {{0, 0}, extent};
  begin.clearValueCount = 2;
  begin.pClearValues = clear;
  vkCmdBeginRenderPass(cb, &begin, VK_SUBPASS_CONTENTS_INLINE);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_);
  const VkViewport viewport{0.0f, 0.0f, float(extent.width), float(extent.height), 0.0f, 1.0f};
  const VkRect2D scissor{{0, 0}, extent};
  vkCmdSetViewport(cb, 0, 1, &viewport);
  vkCmdSetScissor(cb, 0, 1, &scissor);
  vkCmdPushConstants(cb, layout_, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                     sizeof(Push), &push);
  const VkBuffer vb = drawable.vertices.handle();
  const VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(cb, 0, 1, &vb, &offset);
  vkCmdDraw(cb, drawable.count, 1, 0, 0);
  vkCmdEndRenderPass(cb);
}

}  // namespace vkphys::gpu
