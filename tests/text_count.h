// How often a piece of text occurs in a page, for the tests that read generated HTML and SVG
// (tests/test_api_tools.cpp, tests/test_compare_report.cpp).
#pragma once

#include <cstddef>
#include <string>

namespace vkphys::test {

// The occurrences of `what` in `text`, overlapping ones included.
inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

}  // namespace vkphys::test
