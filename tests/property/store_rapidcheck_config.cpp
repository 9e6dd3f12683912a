// Every store property runs at least 1000 cases. rapidcheck reads RC_PARAMS
// lazily on first use, so setting it during static initialization (without
// overriding a value the caller exported) applies to every property here.

#include <cstdlib>

namespace {
const bool kRapidcheckParamsSet = [] {
  setenv("RC_PARAMS", "max_success=1000", /*overwrite=*/0);
  return true;
}();
}  // namespace
