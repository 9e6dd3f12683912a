// Random (version 4) UUIDs in canonical text form, for new schemas and tables.
#pragma once

#include <string>

namespace moraine::catalog {

std::string NewUuid();

}  // namespace moraine::catalog
