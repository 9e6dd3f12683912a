#include "cli/progress_line.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace moraine::cli {
namespace {
constexpr int kSubspaces = 8;  // store::Subspace 0x01..0x08
constexpr int kWidth = 24;
}  // namespace

ProgressLine::ProgressLine() : enabled_(isatty(STDERR_FILENO) == 1) {}

ProgressLine::~ProgressLine() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void ProgressLine::Update(uint64_t keys, uint8_t subspace) {
  if (!enabled_) return;
  const int done = subspace == 0xFF ? kSubspaces : std::min<int>(subspace, kSubspaces) - 1;
  const int filled = std::max(0, done) * kWidth / kSubspaces;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\rverifying [%s] %llu keys", bar.c_str(),
               static_cast<unsigned long long>(keys));
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace moraine::cli
