#include "util/wall_clock.h"

#include <chrono>

namespace moraine::util {

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace moraine::util
