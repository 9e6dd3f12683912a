// Random (version 4) UUIDs in canonical text form, for new schemas and tables
// (util/uuid.h).
#pragma once

#include "util/uuid.h"

namespace moraine::catalog {

using util::NewUuid;

}  // namespace moraine::catalog
