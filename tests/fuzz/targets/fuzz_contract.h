// The contract every fuzz target asserts (DESIGN.md, invariant 4): decoding
// untrusted bytes either succeeds or throws a moraine::store::Error subtype.
// Any other exception is a finding, as are the crashes, UB and leaks the
// sanitizers report, and a violated property (Require).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <typeinfo>

#include "store/error.h"

namespace moraine::fuzz {

// A broken property: print why and abort, so libFuzzer saves the input.
[[noreturn]] inline void Fail(std::string_view what) {
  std::fprintf(stderr, "moraine fuzz contract violated: %.*s\n", static_cast<int>(what.size()),
               what.data());
  std::abort();
}

inline void Require(bool holds, std::string_view what) {
  if (!holds) Fail(what);
}

// Runs `decode`; returns true if it succeeded, false if it threw a typed
// store::Error. Anything else thrown aborts.
template <class Decode>
bool Decodes(Decode&& decode) {
  try {
    decode();
    return true;
  } catch (const store::Error&) {
    return false;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "untyped exception %s: %s\n", typeid(e).name(), e.what());
    Fail("a decode threw something other than moraine::store::Error");
  } catch (...) {
    Fail("a decode threw a non-std::exception");
  }
}

}  // namespace moraine::fuzz
