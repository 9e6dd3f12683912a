// build/moraine.duckdb_extension is self-contained: it needs no libduckdb,
// points into no build tree, exports only its entry point and names in its
// footer the DuckDB it was built for; the DuckDB inside is the pinned release.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_process.h"

namespace moraine {
namespace {

const std::string kExtension = MORAINE_LOADABLE_EXTENSION;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string MustRun(const std::string& command) {
  auto result = test::RunCommand(command);
  EXPECT_EQ(result.exit_code, 0) << command << "\n" << result.output;
  return result.output;
}

TEST(ExtensionFile, NeedsNoLibduckdbAndNoPathIntoTheBuildTree) {
  const std::string dynamic = MustRun("readelf -d '" + kExtension + "'");
  ASSERT_NE(dynamic.find("(NEEDED)"), std::string::npos) << dynamic;
  EXPECT_EQ(dynamic.find("libduckdb"), std::string::npos) << dynamic;
  EXPECT_EQ(dynamic.find("(RUNPATH)"), std::string::npos) << dynamic;
  EXPECT_EQ(dynamic.find("(RPATH)"), std::string::npos) << dynamic;
  EXPECT_EQ(dynamic.find(BUILD_TREE), std::string::npos) << dynamic;
}

// What stock DuckLake's own extension needs at run time, and no more: the C
// and C++ runtimes every Linux has. RocksDB, protobuf, libcurl and the rest
// are inside, so the file loads on any distribution with a recent enough
// glibc, not only on the one it was built on.
TEST(ExtensionFile, NeedsOnlyTheLibcFamily) {
  const std::set<std::string> allowed = {
      "libc.so.6",  "libm.so.6",      "libstdc++.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2",
      "libdl.so.2", "libpthread.so.0"};
  const auto needed = Lines(
      MustRun("readelf -d '" + kExtension + "' | sed -n 's/.*(NEEDED).*\\[\\(.*\\)\\]/\\1/p'"));
  ASSERT_FALSE(needed.empty());
  for (const auto& library : needed) {
    EXPECT_TRUE(allowed.contains(library)) << "the extension needs " << library;
  }
}

// The README states the newest glibc and libstdc++ symbol versions the file
// needs (which distributions it loads on); a build that needs newer ones
// breaks that promise.
int NewestSymbolVersion(const std::string& prefix) {
  const auto versions = Lines(MustRun("objdump -T '" + kExtension + "' | grep -o '" + prefix +
                                      "[0-9]*' | sed 's/.*\\.//' | sort -n -u"));
  EXPECT_FALSE(versions.empty()) << prefix;
  return versions.empty() ? 0 : std::stoi(versions.back());
}

TEST(ExtensionFile, NeedsNoNewerGlibcOrLibstdcxxThanTheReadmeStates) {
  EXPECT_LE(NewestSymbolVersion("GLIBC_2\\."), 34);
  EXPECT_LE(NewestSymbolVersion("GLIBCXX_3\\.4\\."), 30);
}

TEST(ExtensionFile, ExportsOnlyItsEntryPoint) {
  const auto symbols = Lines(MustRun("nm -D --defined-only '" + kExtension + "'"));
  ASSERT_EQ(symbols.size(), 1u) << MustRun("nm -D --defined-only '" + kExtension + "' | head");
  EXPECT_TRUE(symbols[0].ends_with(" T moraine_duckdb_cpp_init")) << symbols[0];
  // DuckDB's own symbols are inside, but local: the engine that loads the
  // file never binds to them, nor the file to the engine's. (Only zstd's
  // optional trace hooks stay weak and undefined, as in DuckDB's own builds.)
  const auto undefined = MustRun("nm -D --undefined-only '" + kExtension + "' | grep ' U '; true");
  EXPECT_EQ(undefined.find("duckdb"), std::string::npos) << undefined;
}

// DuckDB reads the last 512 bytes before it loads the file: eight 32-byte
// fields (three unused, the ABI type, the extension version, the DuckDB
// version, the platform, the magic "4") and a 256-byte signature.
TEST(ExtensionFile, FooterNamesThePinnedDuckDBAndPlatform) {
  std::ifstream in(kExtension, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 512u);
  const std::string footer = bytes.substr(bytes.size() - 512, 256);
  const auto field = [&](int index) {
    const std::string raw = footer.substr(index * 32, 32);
    return raw.substr(0, raw.find('\0'));
  };
  EXPECT_EQ(field(3), "CPP");
  EXPECT_EQ(field(5), DUCKDB_VERSION_DIRECTORY);
  EXPECT_EQ(field(6), DUCKDB_PLATFORM);
  EXPECT_EQ(field(7), "4");
}

// The engine inside is the pinned source, and a release build: DuckDB's
// DEBUG builds change struct layouts. A debug build calls
// DuckDBAssertInternal from nearly every one of its unity objects, a release
// build from a few at most.
TEST(ExtensionFile, TheDuckDBInsideIsThePinnedRelease) {
  const std::string source_ids =
      MustRun("strings '" + kExtension + "' | grep -x '" DUCKDB_SOURCE_ID "'; true");
  EXPECT_EQ(Lines(source_ids), (std::vector<std::string>{DUCKDB_SOURCE_ID}));
  const std::string archive = DUCKDB_STATIC_LIBRARY;
  const auto objects = Lines(MustRun("nm -A -C '" + archive +
                                     "' 2>/dev/null | grep ' U duckdb::DuckDBAssertInternal' "
                                     "| cut -d: -f2 | sort -u; true"));
  const auto all = Lines(MustRun("ar t '" + archive + "'"));
  ASSERT_GT(all.size(), 50u);
  EXPECT_LE(objects.size(), 3u) << "objects asserting: " << objects.size() << " of " << all.size();
}

}  // namespace
}  // namespace moraine
