// A fresh temporary directory for one test, removed when the test ends.
#pragma once

#include "util/temp_dir.h"

namespace moraine::test {

class TempDir : public util::TempDir {
 public:
  TempDir() : util::TempDir("moraine-test-") {}
};

}  // namespace moraine::test
