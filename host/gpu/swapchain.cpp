#include "host/gpu/swapchain.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace vkphys::gpu {

namespace {

VkSurfaceFormatKHR pick_format(const vk::Context& ctx, VkSurfaceKHR surface) {
  std::uint32_t n = 0;
  vk::check(vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical(), surface, &n, nullptr),
            "vkGetPhysicalDeviceSurfaceFormatsKHR");
  std::vector<VkSurfaceFormatKHR> formats(n);
  vk::check(vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical(), surface, &n, formats.data()),
            "vkGetPhysicalDeviceSurfaceFormatsKHR");
  if (formats.empty()) throw vk::Unavailable("the window's surface offers no pixel format");
  for (const VkSurfaceFormatKHR& f : formats) {
    if (f.format == VK_FORMAT_B8G8R8A8_UNORM || f.format == VK_FORMAT_R8G8B8A8_UNORM) return f;
  }
  return formats[0];
}

// Moves an image between the layout the pass leaves it in and the one a copy reads.
void transition(VkCommandBuffer cb, VkImage image, VkImageLayout from, VkImageLayout to) {
  VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  b.srcAccessMask = from == VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
                        ? VK_ACCESS_TRANSFER_READ_BIT
                        : VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  b.dstAccessMask = to == VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL ? VK_ACCESS_TRANSFER_READ_BIT : 0;
  b.oldLayout = from;
  b.newLayout = to;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(
      cb, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, nullptr, 0,
      nullptr, 1, &b);
}

}  // namespace

Swapchain::Swapchain(const vk::Context& ctx, VkSurfaceKHR surface, VkExtent2D wanted)
    : ctx_(ctx), surface_(surface) {
  VkBool32 can_present = VK_FALSE;
  vk::check(vkGetPhysicalDeviceSurfaceSupportKHR(ctx.physical(), ctx.queue_family(), surface,
                                                 &can_present),
            "vkGetPhysicalDeviceSurfaceSupportKHR");
  if (!can_present) {
    throw vk::Unavailable("Vulkan device " + ctx.info().name +
                          " cannot present to this window (its queue has no surface support); "
                          "`vkphys render` still draws to PNG files");
  }
  format_ = pick_format(ctx, surface);
  VkFenceCreateInfo finfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  vk::check(vkCreateFence(ctx.device(), &finfo, nullptr, &acquired_), "vkCreateFence");
  create(wanted);
}

Swapchain::~Swapchain() {
  vkDeviceWaitIdle(ctx_.device());
  destroy();
  vkDestroyFence(ctx_.device(), acquired_, nullptr);
}

void Swapchain::create(VkExtent2D wanted) {
  VkSurfaceCapabilitiesKHR caps;
  vk::check(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx_.physical(), surface_, &caps),
            "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
  // currentExtent 0xFFFFFFFF: the surface takes the swapchain's size.
  extent_ =
      caps.currentExtent.width != UINT32_MAX
          ? caps.currentExtent
          : VkExtent2D{
                std::clamp(wanted.width, caps.minImageExtent.width, caps.maxImageExtent.width),
                std::clamp(wanted.height, caps.minImageExtent.height, caps.maxImageExtent.height)};
  VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  info.surface = surface_;
  info.minImageCount = caps.maxImageCount == 0
                           ? caps.minImageCount + 1
                           : std::min(caps.minImageCount + 1, caps.maxImageCount);
  info.imageFormat = format_.format;
  info.imageColorSpace = format_.colorSpace;
  info.imageExtent = extent_;
  info.imageArrayLayers = 1;
  // Transfer source: --screenshot copies the presented picture out.
  capturable_ = (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
  info.imageUsage =
      VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
      (capturable_ ? VkImageUsageFlags{VK_IMAGE_USAGE_TRANSFER_SRC_BIT} : VkImageUsageFlags{0});
  info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.preTransform = caps.currentTransform;
  info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  info.presentMode = VK_PRESENT_MODE_FIFO_KHR;  // the one mode every device has; paced by display
  info.clipped = VK_TRUE;
  vk::check(vkCreateSwapchainKHR(ctx_.device(), &info, nullptr, &swapchain_),
            "vkCreateSwapchainKHR");
  std::uint32_t n = 0;
  vk::check(vkGetSwapchainImagesKHR(ctx_.device(), swapchain_, &n, nullptr),
            "vkGetSwapchainImagesKHR");
  images_.resize(n);
  vk::check(vkGetSwapchainImagesKHR(ctx_.device(), swapchain_, &n, images_.data()),
            "vkGetSwapchainImagesKHR");
  if (!pass_)
    pass_ = std::make_unique<ScenePass>(ctx_, format_.format, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
  depth_ = std::make_unique<Attachment>(ctx_, extent_.width, extent_.height, kDepthFormat,
                                        VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                        VK_IMAGE_ASPECT_DEPTH_BIT);
  for (VkImage image : images_) {
    VkImageViewCreateInfo vinfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vinfo.image = image;
    vinfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vinfo.format = format_.format;
    vinfo.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageView view = VK_NULL_HANDLE;
    vk::check(vkCreateImageView(ctx_.device(), &vinfo, nullptr, &view), "vkCreateImageView");
    views_.push_back(view);
    VkImageView attachments[2] = {view, depth_->view};
    VkFramebufferCreateInfo finfo{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    finfo.renderPass = pass_->render_pass();
    finfo.attachmentCount = 2;
    finfo.pAttachments = attachments;
    finfo.width = extent_.width;
    finfo.height = extent_.height;
    finfo.layers = 1;
    VkFramebuffer fb = VK_NULL_HANDLE;
    vk::check(vkCreateFramebuffer(ctx_.device(), &finfo, nullptr, &fb), "vkCreateFramebuffer");
    framebuffers_.push_back(fb);
  }
}

void Swapchain::destroy() {
  for (VkFramebuffer fb : framebuffers_) vkDestroyFramebuffer(ctx_.device(), fb, nullptr);
  for (VkImageView v : views_) vkDestroyImageView(ctx_.device(), v, nullptr);
  framebuffers_.clear();
  views_.clear();
  images_.clear();
  depth_.reset();
  vkDestroySwapchainKHR(ctx_.device(), swapchain_, nullptr);
  swapchain_ = VK_NULL_HANDLE;
}

void Swapchain::recreate() {
  vkDeviceWaitIdle(ctx_.device());
  const VkExtent2D wanted = extent_;
  destroy();
  create(wanted);
}

bool Swapchain::present(const Drawable& drawable, Image* capture) {
  std::uint32_t index = 0;
  VkResult r = vkAcquireNextImageKHR(ctx_.device(), swapchain_, UINT64_MAX, VK_NULL_HANDLE,
                                     acquired_, &index);
  if (r == VK_ERROR_OUT_OF_DATE_KHR) {
    recreate();
    return false;
  }
  if (r != VK_SUBOPTIMAL_KHR) vk::check(r, "vkAcquireNextImageKHR");
  vk::check(vkWaitForFences(ctx_.device(), 1, &acquired_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  vk::check(vkResetFences(ctx_.device(), 1, &acquired_), "vkResetFences");

  const VkDeviceSize bytes = VkDeviceSize{extent_.width} * extent_.height * 4;
  vk::Buffer readback;
  if (capture) {
    if (!capturable_) {
      throw vk::Error(
          "--screenshot: this window's swapchain images cannot be copied out (no "
          "TRANSFER_SRC usage)");
    }
    readback = vk::Buffer(ctx_, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  }
  const VkImage image = images_[index];
  ctx_.run_once([&](VkCommandBuffer cb) {
    pass_->record(cb, framebuffers_[index], extent_, drawable);
    if (!capture) return;
    transition(cb, image, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    copy_to_host(cb, image, extent_, readback);
    transition(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
  });
  if (capture) {
    *capture = Image{extent_.width, extent_.height, std::vector<std::uint8_t>(bytes)};
    std::memcpy(capture->rgba.data(), readback.mapped(), bytes);
    if (format_.format == VK_FORMAT_B8G8R8A8_UNORM || format_.format == VK_FORMAT_B8G8R8A8_SRGB) {
      for (std::size_t i = 0; i < bytes; i += 4) std::swap(capture->rgba[i], capture->rgba[i + 2]);
    }
  }

  VkPresentInfoKHR info{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
  info.swapchainCount = 1;
  info.pSwapchains = &swapchain_;
  info.pImageIndices = &index;
  r = vkQueuePresentKHR(ctx_.queue(), &info);
  if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR) {
    recreate();
    return true;
  }
  vk::check(r, "vkQueuePresentKHR");
  return true;
}

}  // namespace vkphys::gpu
