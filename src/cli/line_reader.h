// Line editing and history for the interactive shell (libedit, BSD licensed).
//
// Thread-safety: not thread-safe: libedit's history is process-wide, so one
// reader per process, used by one thread (the shell's).
#pragma once

#include <string>

namespace moraine::cli {

class LineReader {
 public:
  // History persists in ~/.moraine_history when HOME is set.
  LineReader();
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // False at end of input.
  bool ReadLine(const char* prompt, std::string* line);
  void AddHistory(const std::string& entry);

 private:
  std::string history_path_;
};

}  // namespace moraine::cli
