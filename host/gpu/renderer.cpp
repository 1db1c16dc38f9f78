#include "host/gpu/renderer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <glm/gtc/matrix_transform.hpp>
#include <limits>

#include "host/vk/buffer.h"
#include "render_fs.spv.h"
#include "render_vs.spv.h"

namespace vkphys::gpu {

namespace {

constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;
constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;

struct Vertex {
  glm::vec4 position, normal, color;
};

struct Push {
  glm::mat4 view_proj;
  glm::vec4 light;
};

// An image in device memory of its own, and a view of it.
void make_image(const vk::Context& ctx, std::uint32_t w, std::uint32_t h, VkFormat format,
                VkImageUsageFlags usage, VkImageAspectFlags aspect, VkImage& image,
                VkDeviceMemory& memory, VkImageView& view) {
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
      ctx.find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  vk::check(vkAllocateMemory(ctx.device(), &alloc, nullptr, &memory), "vkAllocateMemory");
  vk::check(vkBindImageMemory(ctx.device(), image, memory, 0), "vkBindImageMemory");
  VkImageViewCreateInfo vinfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  vinfo.image = image;
  vinfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
  vinfo.format = format;
  vinfo.subresourceRange = {aspect, 0, 1, 0, 1};
  vk::check(vkCreateImageView(ctx.device(), &vinfo, nullptr, &view), "vkCreateImageView");
}

VkShaderModule make_module(const vk::Context& ctx, const std::uint32_t* words, std::size_t n) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = n * sizeof(std::uint32_t);
  info.pCode = words;
  VkShaderModule m = VK_NULL_HANDLE;
  vk::check(vkCreateShaderModule(ctx.device(), &info, nullptr, &m), "vkCreateShaderModule");
  return m;
}

// Triangles with a flat normal and their owner's colour: each polygon as a fan. A plane's square
// (wound about its normal) is left out when the eye is behind it, in its solid half-space: a
// funnel's walls would hide what falls into it.
std::vector<Vertex> triangles(const io::SurfaceMesh& mesh, glm::dvec3 eye) {
  std::vector<Vertex> out;
  for (const std::vector<std::uint32_t>& f : mesh.polys) {
    if (f.size() < 3) continue;
    const glm::dvec3 a = mesh.points[f[0]];
    glm::dvec3 n = glm::cross(mesh.points[f[1]] - a, mesh.points[f[2]] - a);
    n = glm::length(n) > 0.0 ? glm::normalize(n) : glm::dvec3(0.0, 1.0, 0.0);
    if (mesh.kind[f[0]] == io::PointKind::plane && glm::dot(n, eye - a) < 0.0) continue;
    const glm::vec4 color(kind_color(static_cast<io::PointKind>(mesh.kind[f[0]])), 1.0f);
    for (std::size_t k = 1; k + 1 < f.size(); ++k) {
      for (std::uint32_t v : {f[0], f[k], f[k + 1]}) {
        out.push_back(
            {glm::vec4(glm::vec3(mesh.points[v]), 1.0f), glm::vec4(glm::vec3(n), 0.0f), color});
      }
    }
  }
  return out;
}

}  // namespace

glm::u8vec4 Image::at(std::uint32_t x, std::uint32_t y) const {
  const std::size_t i = 4 * (std::size_t{y} * width + x);
  return {rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]};
}

glm::vec3 kind_color(io::PointKind kind) {
  switch (kind) {
    case io::PointKind::particle:
      return {0.25f, 0.5f, 0.95f};
    case io::PointKind::plane:
      return {0.6f, 0.6f, 0.6f};
    default:
      return {0.95f, 0.55f, 0.2f};
  }
}

Camera framing_camera(const Scene& scene, const WorldState& state) {
  glm::dvec3 lo(std::numeric_limits<double>::infinity()), hi(-lo);
  auto grow = [&](glm::dvec3 x, double r) {
    lo = glm::min(lo, x - r);
    hi = glm::max(hi, x + r);
  };
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const Body& b = scene.bodies[i];
    const double r =
        b.shape == Shape::box
            ? glm::length(glm::dvec3(b.half_extents))
            : static_cast<double>(b.shape == Shape::capsule ? b.radius + b.half_height : b.radius);
    grow(glm::dvec3(state.pos[i]), r);
  }
  for (const glm::vec4& p : state.particles.pos_radius) grow(glm::dvec3(p), p.w);
  if (!(lo.x <= hi.x)) lo = hi = glm::dvec3(0.0);
  Camera c;
  c.target = glm::vec3(0.5 * (lo + hi));
  const double radius = std::max(0.5 * glm::length(hi - lo), 0.5);
  const double distance = radius / std::sin(0.5 * static_cast<double>(c.fov_y)) * 1.1;
  c.eye = c.target + glm::vec3(distance * glm::normalize(glm::dvec3(0.5, 0.6, 1.0)));
  return c;
}

Renderer::Renderer(const vk::Context& ctx, std::uint32_t width, std::uint32_t height)
    : ctx_(ctx), width_(width), height_(height) {
  std::uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical(), &families, nullptr);
  std::vector<VkQueueFamilyProperties> props(families);
  vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical(), &families, props.data());
  if (!(props.at(ctx.queue_family()).queueFlags & VK_QUEUE_GRAPHICS_BIT)) {
    throw vk::Error("render: the device's compute queue cannot draw (no graphics bit): " +
                    ctx.info().name);
  }
  make_image(ctx, width, height, kColorFormat,
             VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
             VK_IMAGE_ASPECT_COLOR_BIT, color_, color_memory_, color_view_);
  make_image(ctx, width, height, kDepthFormat, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
             VK_IMAGE_ASPECT_DEPTH_BIT, depth_, depth_memory_, depth_view_);

  VkAttachmentDescription att[2]{};
  att[0].format = kColorFormat;
  att[0].samples = VK_SAMPLE_COUNT_1_BIT;
  att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  att[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
  att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
  att[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  att[0].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
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

  VkImageView views[2] = {color_view_, depth_view_};
  VkFramebufferCreateInfo finfo{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  finfo.renderPass = pass_;
  finfo.attachmentCount = 2;
  finfo.pAttachments = views;
  finfo.width = width;
  finfo.height = height;
  finfo.layers = 1;
  vk::check(vkCreateFramebuffer(ctx.device(), &finfo, nullptr, &framebuffer_),
            "vkCreateFramebuffer");

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
  VkViewport viewport{0.0f, 0.0f, float(width), float(height), 0.0f, 1.0f};
  VkRect2D scissor{{0, 0}, {width, height}};
  VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  vp.viewportCount = 1;
  vp.pViewports = &viewport;
  vp.scissorCount = 1;
  vp.pScissors = &scissor;
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
  gp.layout = layout_;
  gp.renderPass = pass_;
  vk::check(vkCreateGraphicsPipelines(ctx.device(), VK_NULL_HANDLE, 1, &gp, nullptr, &pipeline_),
            "vkCreateGraphicsPipelines(render)");
}

Renderer::~Renderer() {
  VkDevice d = ctx_.device();
  vkDestroyPipeline(d, pipeline_, nullptr);
  vkDestroyPipelineLayout(d, layout_, nullptr);
  vkDestroyShaderModule(d, vs_, nullptr);
  vkDestroyShaderModule(d, fs_, nullptr);
  vkDestroyFramebuffer(d, framebuffer_, nullptr);
  vkDestroyRenderPass(d, pass_, nullptr);
  vkDestroyImageView(d, color_view_, nullptr);
  vkDestroyImageView(d, depth_view_, nullptr);
  vkDestroyImage(d, color_, nullptr);
  vkDestroyImage(d, depth_, nullptr);
  vkFreeMemory(d, color_memory_, nullptr);
  vkFreeMemory(d, depth_memory_, nullptr);
}

glm::mat4 Renderer::view_proj(const Camera& c) const {
  glm::mat4 proj = glm::perspectiveRH_ZO(c.fov_y, float(width_) / float(height_), 0.05f, 1000.0f);
  proj[1][1] *= -1.0f;  // Vulkan's y points down
  return proj * glm::lookAtRH(c.eye, c.target, c.up);
}

glm::vec2 Renderer::project(const Camera& camera, glm::vec3 world) const {
  const glm::vec4 clip = view_proj(camera) * glm::vec4(world, 1.0f);
  const glm::vec2 ndc = glm::vec2(clip) / clip.w;
  return {(ndc.x * 0.5f + 0.5f) * float(width_), (ndc.y * 0.5f + 0.5f) * float(height_)};
}

Image Renderer::draw(const io::SurfaceMesh& mesh, const Camera& camera) const {
  const std::vector<Vertex> verts = triangles(mesh, glm::dvec3(camera.eye));
  vk::Buffer vertices(ctx_, std::max<std::size_t>(verts.size(), 1) * sizeof(Vertex),
                      VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true);
  if (!verts.empty()) std::memcpy(vertices.mapped(), verts.data(), verts.size() * sizeof(Vertex));
  const VkDeviceSize bytes = VkDeviceSize{width_} * height_ * 4;
  vk::Buffer readback(ctx_, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  Push push{view_proj(camera), glm::vec4(glm::normalize(camera.eye - camera.target), 0.0f)};
  ctx_.run_once([&](VkCommandBuffer cb) {
    VkClearValue clear[2]{};
    clear[0].color = {{kBackground.r, kBackground.g, kBackground.b, 1.0f}};
    clear[1].depthStencil = {1.0f, 0};
    VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    begin.renderPass = pass_;
    begin.framebuffer = framebuffer_;
    begin.renderArea = {{0, 0}, {width_, height_}};
    begin.clearValueCount = 2;
    begin.pClearValues = clear;
    vkCmdBeginRenderPass(cb, &begin, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_);
    vkCmdPushConstants(cb, layout_, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                       sizeof(Push), &push);
    const VkBuffer vb = vertices.handle();
    const VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(cb, 0, 1, &vb, &offset);
    vkCmdDraw(cb, static_cast<std::uint32_t>(verts.size()), 1, 0, 0);
    vkCmdEndRenderPass(cb);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {width_, height_, 1};
    vkCmdCopyImageToBuffer(cb, color_, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.handle(), 1,
                           &region);
    VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &to_host, 0, nullptr, 0, nullptr);
  });
  Image img{width_, height_, std::vector<std::uint8_t>(bytes)};
  std::memcpy(img.rgba.data(), readback.mapped(), bytes);
  return img;
}

}  // namespace vkphys::gpu
