#include "ducklake_adapter/inlined_table_ddl.h"

#include <array>
#include <cctype>

namespace moraine::ducklake_adapter {
namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool IsWordStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}
bool SameWord(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// Words that can only mean a clause after a column's type: a column that
// has one is left to DuckDB.
// (A bare column name that is one of them, or FOREIGN, starts a table
// constraint; DuckLake quotes such names.)
constexpr std::array<std::string_view, 16> kClauseWords = {
    "NOT", "NULL",       "DEFAULT",    "PRIMARY", "UNIQUE", "CHECK",  "COLLATE",     "GENERATED",
    "AS",  "REFERENCES", "CONSTRAINT", "USING",   "ALWAYS", "STORED", "COMPRESSION", "FOREIGN"};

bool IsClauseWord(std::string_view word) {
  for (std::string_view clause : kClauseWords) {
    if (SameWord(word, clause)) return true;
  }
  return false;
}

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (at_ < text_.size() && IsSpace(text_[at_])) at_++;
  }
  bool AtEnd() {
    SkipSpace();
    return at_ == text_.size();
  }
  bool Take(char c) {
    SkipSpace();
    if (at_ < text_.size() && text_[at_] == c) {
      at_++;
      return true;
    }
    return false;
  }
  // The keyword `word`, whole.
  bool TakeWord(std::string_view word) {
    SkipSpace();
    const size_t end = at_ + word.size();
    if (end > text_.size() || !SameWord(text_.substr(at_, word.size()), word)) return false;
    if (end < text_.size() && IsWordChar(text_[end])) return false;
    at_ = end;
    return true;
  }
  // A column's name: a double-quoted identifier, or a bare one that is no
  // clause word.
  std::optional<std::string> ColumnName() {
    SkipSpace();
    const bool quoted = at_ < text_.size() && text_[at_] == '"';
    auto name = Identifier();
    if (name && !quoted && IsClauseWord(*name)) return std::nullopt;
    return name;
  }
  // A bare or double-quoted identifier, unquoted.
  std::optional<std::string> Identifier() {
    SkipSpace();
    if (at_ >= text_.size()) return std::nullopt;
    std::string name;
    if (text_[at_] == '"') {
      for (at_++; at_ < text_.size(); at_++) {
        if (text_[at_] != '"') {
          name += text_[at_];
        } else if (at_ + 1 < text_.size() && text_[at_ + 1] == '"') {
          name += '"';
          at_++;
        } else {
          at_++;
          return name.empty() ? std::nullopt : std::optional<std::string>(name);
        }
      }
      return std::nullopt;  // unterminated
    }
    if (!IsWordStart(text_[at_])) return std::nullopt;
    while (at_ < text_.size() && IsWordChar(text_[at_])) name += text_[at_++];
    return name;
  }
  // A column's type as written: up to the `,` or `)` that ends the column,
  // outside parentheses and quotes. nullopt if it holds a clause word.
  std::optional<std::string> TypeText() {
    SkipSpace();
    const size_t start = at_;
    int depth = 0;
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '"') {
        if (!Identifier()) return std::nullopt;
        continue;
      }
      if (c == '\'') return std::nullopt;  // no literal belongs in a type DuckLake writes
      if (IsWordStart(c)) {
        const size_t word = at_;
        while (at_ < text_.size() && IsWordChar(text_[at_])) at_++;
        if (IsClauseWord(text_.substr(word, at_ - word))) return std::nullopt;
        continue;
      }
      if (c == '(') {
        // DuckLake writes `STRUCT()` for a struct left without fields, which
        // DuckDB's parser refuses: it must see it.
        size_t next = at_ + 1;
        while (next < text_.size() && IsSpace(text_[next])) next++;
        if (next < text_.size() && text_[next] == ')') return std::nullopt;
        depth++;
      }
      if (c == ')' || c == ',') {
        if (depth == 0) break;
        if (c == ')') depth--;
      }
      at_++;
    }
    size_t end = at_;
    while (end > start && IsSpace(text_[end - 1])) end--;
    if (end == start) return std::nullopt;
    return std::string(text_.substr(start, end - start));
  }

 private:
  std::string_view text_;
  size_t at_ = 0;
};

bool Blank(std::string_view text) {
  for (char c : text) {
    if (!IsSpace(c)) return false;
  }
  return true;
}

// The statements of `batch` (without their `;`), or nullopt when a comment,
// a dollar quote, an escape string or an unterminated quote leaves where
// they end in doubt.
std::optional<std::vector<std::string_view>> Statements(std::string_view batch) {
  std::vector<std::string_view> statements;
  size_t start = 0;
  char quote = 0;
  for (size_t i = 0; i < batch.size(); i++) {
    const char c = batch[i];
    if (quote) {
      if (c == quote) quote = 0;  // a doubled quote closes and opens again
      continue;
    }
    const char next = i + 1 < batch.size() ? batch[i + 1] : '\0';
    if ((c == '-' && next == '-') || (c == '/' && next == '*') || c == '$' || c == '\\') {
      return std::nullopt;
    }
    if (c == '\'' || c == '"') {
      if (c == '\'' && i > 0 && (batch[i - 1] == 'e' || batch[i - 1] == 'E')) return std::nullopt;
      quote = c;
      continue;
    }
    if (c == ';') {
      statements.push_back(batch.substr(start, i - start));
      start = i + 1;
    }
  }
  if (quote) return std::nullopt;
  if (!Blank(batch.substr(start))) statements.push_back(batch.substr(start));
  return statements;
}

}  // namespace

std::optional<InlinedTableDdl> ReadInlinedTableDdl(std::string_view statement) {
  Reader reader(statement);
  for (std::string_view word : {"CREATE", "TABLE", "IF", "NOT", "EXISTS"}) {
    if (!reader.TakeWord(word)) return std::nullopt;
  }
  std::vector<std::string> parts;
  do {
    auto part = reader.Identifier();
    if (!part) return std::nullopt;
    parts.push_back(std::move(*part));
  } while (reader.Take('.'));
  if (parts.size() != 3 || !reader.Take('(')) return std::nullopt;
  InlinedTableDdl ddl{parts[0], parts[1], parts[2], {}};
  do {
    auto name = reader.ColumnName();
    if (!name) return std::nullopt;
    auto type = reader.TypeText();
    if (!type) return std::nullopt;
    ddl.columns.emplace_back(std::move(*name), std::move(*type));
  } while (reader.Take(','));
  if (!reader.Take(')') || !reader.AtEnd()) return std::nullopt;
  return ddl;
}

std::optional<std::vector<BatchSegment>> SplitAtInlinedTableDdl(std::string_view batch) {
  if (batch.find("CREATE TABLE IF NOT EXISTS") == std::string_view::npos) return std::nullopt;
  const auto statements = Statements(batch);
  if (!statements) return std::nullopt;
  std::vector<BatchSegment> segments;
  bool read_any = false;
  // Consecutive other statements stay one run of SQL text, `;`s included.
  const char* run_begin = nullptr;
  const char* run_end = nullptr;
  const auto end_run = [&] {
    if (run_begin) segments.push_back({std::string_view(run_begin, run_end - run_begin), {}});
    run_begin = nullptr;
  };
  for (std::string_view statement : *statements) {
    if (auto ddl = ReadInlinedTableDdl(statement)) {
      end_run();
      segments.push_back({statement, std::move(ddl)});
      read_any = true;
      continue;
    }
    if (!run_begin) run_begin = statement.data();
    run_end = statement.data() + statement.size();
    if (run_end < batch.data() + batch.size()) run_end++;  // its `;`
  }
  end_run();
  if (!read_any) return std::nullopt;
  return segments;
}

}  // namespace moraine::ducklake_adapter
