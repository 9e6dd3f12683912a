#include "cli/line_reader.h"

#include <editline/readline.h>

#include <cstdlib>

namespace moraine::cli {

LineReader::LineReader() {
  if (const char* home = std::getenv("HOME"); home && *home) {
    history_path_ = std::string(home) + "/.moraine_history";
    read_history(history_path_.c_str());
  }
}

LineReader::~LineReader() {
  if (!history_path_.empty()) write_history(history_path_.c_str());
}

bool LineReader::ReadLine(const char* prompt, std::string* line) {
  char* raw = readline(prompt);
  if (!raw) return false;
  *line = raw;
  std::free(raw);
  return true;
}

void LineReader::AddHistory(const std::string& entry) { add_history(entry.c_str()); }

}  // namespace moraine::cli
