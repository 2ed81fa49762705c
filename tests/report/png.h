#pragma once
// Just enough PNG reading to tell a rendered page from a blank one: the size
// from IHDR, and the pixels (8-bit RGB or RGBA, not interlaced: what
// Chromium's --screenshot writes) through zlib.
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace railkit::testing {

struct Png {
  uint32_t width = 0, height = 0;
  int channels = 0;
  std::vector<uint8_t> pixels;  // width * height * channels, filters undone
  std::string error;
};

inline uint32_t be32(const std::string& s, size_t at) {
  return (uint32_t(uint8_t(s[at])) << 24) | (uint32_t(uint8_t(s[at + 1])) << 16) |
         (uint32_t(uint8_t(s[at + 2])) << 8) | uint32_t(uint8_t(s[at + 3]));
}

inline Png decodePng(const std::string& file) {
  Png png;
  if (file.size() < 33 || file.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return png.error = "not a PNG", png;
  std::string idat;
  int colour = -1, depth = 0, interlace = 0;
  for (size_t at = 8; at + 12 <= file.size();) {
    uint32_t length = be32(file, at);
    std::string type = file.substr(at + 4, 4);
    if (at + 12 + length > file.size()) return png.error = "truncated chunk", png;
    if (type == "IHDR") {
      png.width = be32(file, at + 8);
      png.height = be32(file, at + 12);
      depth = uint8_t(file[at + 16]);
      colour = uint8_t(file[at + 17]);
      interlace = uint8_t(file[at + 20]);
    } else if (type == "IDAT") {
      idat.append(file, at + 8, length);
    }
    at += 12 + length;
  }
  if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0)
    return png.error = "unsupported PNG format", png;
  png.channels = colour == 6 ? 4 : 3;
  size_t stride = size_t(png.width) * png.channels;
  std::vector<uint8_t> raw((stride + 1) * png.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      raw_size != raw.size())
    return png.error = "bad IDAT", png;
  png.pixels.resize(stride * png.height);
  int bpp = png.channels;
  for (uint32_t y = 0; y < png.height; ++y) {
    uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &png.pixels[y * stride];
    const uint8_t* up = y ? &png.pixels[(y - 1) * stride] : nullptr;
    for (size_t x = 0; x < stride; ++x) {
      int a = x >= size_t(bpp) ? out[x - bpp] : 0, b = up ? up[x] : 0,
          c = up && x >= size_t(bpp) ? up[x - bpp] : 0;
      int predictor = 0;
      switch (filter) {
        case 0: break;
        case 1: predictor = a; break;
        case 2: predictor = b; break;
        case 3: predictor = (a + b) / 2; break;
        case 4: {
          int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: return png.error = "bad filter", png;
      }
      out[x] = uint8_t(in[x] + predictor);
    }
  }
  return png;
}

}  // namespace railkit::testing
