#include "host/gpu/renderer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace vkphys::gpu {

namespace {
constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;
}  // namespace

glm::u8vec4 Image::at(std::uint32_t x, std::uint32_t y) const {
  const std::size_t i = 4 * (std::size_t{y} * width + x);
  return {rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]};
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
  for (const glm::vec4& p : state.particles.pos_radius) grow(glm::dvec3(p), double(p.w));
  if (!(lo.x <= hi.x)) lo = hi = glm::dvec3(0.0);
  Camera c;
  c.target = glm::vec3(0.5 * (lo + hi));
  const double radius = std::max(0.5 * glm::length(hi - lo), 0.5);
  const double distance = radius / std::sin(0.5 * static_cast<double>(c.fov_y)) * 1.1;
  c.eye = c.target + glm::vec3(distance * glm::normalize(glm::dvec3(0.5, 0.6, 1.0)));
  return c;
}

Camera scene_camera(const Scene& scene, const WorldState& state) {
  if (!scene.camera) return framing_camera(scene, state);
  const SceneCamera& s = *scene.camera;
  return {s.position, s.target, s.up, glm::radians(s.fov_y_deg)};
}

Renderer::Renderer(const vk::Context& ctx, std::uint32_t width, std::uint32_t height)
    : ctx_(ctx),
      width_(width),
      height_(height),
      pass_(ctx, kColorFormat, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL),
      color_(ctx, width, height, kColorFormat,
             VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
             VK_IMAGE_ASPECT_COLOR_BIT),
      depth_(ctx, width, height, kDepthFormat, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
             VK_IMAGE_ASPECT_DEPTH_BIT) {
  VkImageView views[2] = {color_.view, depth_.view};
  VkFramebufferCreateInfo finfo{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  finfo.renderPass = pass_.render_pass();
  finfo.attachmentCount = 2;
  finfo.pAttachments = views;
  finfo.width = width;
  finfo.height = height;
  finfo.layers = 1;
  vk::check(vkCreateFramebuffer(ctx.device(), &finfo, nullptr, &framebuffer_),
            "vkCreateFramebuffer");
}

Renderer::~Renderer() {
  vkDestroyFramebuffer(ctx_.device(), framebuffer_, nullptr);
}

Image Renderer::draw(const io::SurfaceMesh& mesh, const Camera& camera) const {
  const Drawable drawable(ctx_, mesh, camera);
  const VkDeviceSize bytes = VkDeviceSize{width_} * height_ * 4;
  vk::Buffer readback(ctx_, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  ctx_.run_once([&](VkCommandBuffer cb) {
    pass_.record(cb, framebuffer_, {width_, height_}, drawable);
    copy_to_host(cb, color_.image, {width_, height_}, readback);
  });
  Image img{width_, height_, std::vector<std::uint8_t>(bytes)};
  std::memcpy(img.rgba.data(), readback.mapped(), bytes);
  return img;
}

}  // namespace vkphys::gpu
