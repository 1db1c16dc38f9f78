#include "host/io/png.h"

#include <zlib.h>

#include <stdexcept>

namespace vkphys::io {

namespace {

void put32(std::string& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((v >> s) & 0xFF));
}

// A chunk: length, type, data, CRC-32 of type and data.
void chunk(std::string& out, const char* type, const std::string& data) {
  put32(out, static_cast<std::uint32_t>(data.size()));
  const std::string body = std::string(type, 4) + data;
  out += body;
  put32(out, static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(body.data()),
                                              static_cast<uInt>(body.size()))));
}

}  // namespace

std::string png_bytes(std::uint32_t width, std::uint32_t height,
                      const std::vector<std::uint8_t>& rgba) {
  const std::size_t row = std::size_t{width} * 4;
  if (rgba.size() != row * height) {
    throw std::invalid_argument("png_bytes: " + std::to_string(rgba.size()) + " bytes for a " +
                                std::to_string(width) + " x " + std::to_string(height) +
                                " RGBA image");
  }
  std::string raw;  // each row with filter type 0 (none)
  raw.reserve((row + 1) * height);
  for (std::uint32_t y = 0; y < height; ++y) {
    raw.push_back('\0');
    raw.append(reinterpret_cast<const char*>(rgba.data() + y * row), row);
  }
  uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
  std::string packed(packed_size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(packed.data()), &packed_size,
                reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()),
                6) != Z_OK) {
    throw std::runtime_error("png_bytes: zlib could not compress the image");
  }
  packed.resize(packed_size);
  std::string out("\x89PNG\r\n\x1a\n", 8);
  std::string header;
  put32(header, width);
  put32(header, height);
  header += std::string("\x08\x06\x00\x00\x00", 5);  // 8 bits, RGBA, deflate, filters, no interlace
  chunk(out, "IHDR", header);
  chunk(out, "IDAT", packed);
  chunk(out, "IEND", "");
  return out;
}

}  // namespace vkphys::io
