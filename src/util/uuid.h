// Random (version 4, RFC 4122 variant) UUIDs in canonical lower-case text
// form (8-4-4-4-12 hex digits).
//
// Thread-safety: safe from any thread: each thread has its own generator,
// seeded from std::random_device.
#pragma once

#include <string>

namespace moraine::util {

std::string NewUuid();

}  // namespace moraine::util
