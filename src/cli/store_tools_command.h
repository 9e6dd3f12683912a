// The store tools on the command line: `moraine inspect|verify|schema|lineage|log|tags
// PATH ...`. Each opens the store read-only (safe beside a live writer), reads
// one consistent snapshot and prints tables as `moraine sql` does.
//
// Thread-safety: StoreToolOptions is plain data. Each Run* opens a read-only
// handle of its own and writes to `out` (RunVerify also to standard error when
// it is a terminal), so runs share nothing but what they are given.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "cli/result_format.h"

namespace moraine::cli {

struct StoreToolOptions {
  std::string path;
  OutputFormat format = OutputFormat::kBox;
};

// Exit codes. Store errors (not a store, no such table or snapshot) are
// thrown; the caller prints them and exits 1.
inline constexpr int kVerifyViolations = 2;

int RunInspect(const StoreToolOptions& options, std::ostream& out);
// 0 when every invariant holds; kVerifyViolations with one line per
// violation ("check key: problem") otherwise (CSV/JSON rows on request).
int RunVerify(const StoreToolOptions& options, std::ostream& out);
int RunSchema(const StoreToolOptions& options, const std::string& table, std::optional<int64_t> at,
              std::ostream& out);
// `column` is "TABLE.COLUMN" (nested: "TABLE.s.x", schema-qualified:
// "SCHEMA.TABLE.COLUMN" when that schema has the table), or "TABLE" with
// `field_id`.
int RunLineage(const StoreToolOptions& options, const std::string& column,
               std::optional<int64_t> field_id, std::ostream& out);
int RunLog(const StoreToolOptions& options, std::ostream& out);
// The protected tags; every tag ever made, ended ones too, with `history`.
int RunTags(const StoreToolOptions& options, bool history, std::ostream& out);

}  // namespace moraine::cli
