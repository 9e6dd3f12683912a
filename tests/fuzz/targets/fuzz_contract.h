// The contract every fuzz target asserts (DESIGN.md, invariant 4): decoding
// untrusted bytes either succeeds or throws a moraine::store::Error subtype.
// Any other exception is a finding, as are the crashes, UB and leaks the
// sanitizers report, and a violated property (Require).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>

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

// Runs `decode`; returns nothing if it succeeded, the message of the typed
// store::Error it threw otherwise. Anything else thrown aborts.
template <class Decode>
std::optional<std::string> TypedError(Decode&& decode) {
  try {
    decode();
    return std::nullopt;
  } catch (const store::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "untyped exception %s: %s\n", typeid(e).name(), e.what());
    Fail("a decode threw something other than moraine::store::Error");
  } catch (...) {
    Fail("a decode threw a non-std::exception");
  }
}

// TypedError, as whether `decode` succeeded.
template <class Decode>
bool Decodes(Decode&& decode) {
  return !TypedError(std::forward<Decode>(decode)).has_value();
}

}  // namespace moraine::fuzz
