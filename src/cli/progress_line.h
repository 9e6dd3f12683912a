// A one-line progress display on standard error for long store scans, shown
// only when standard error is a terminal (never in pipes, logs or tests).
//
// Thread-safety: not thread-safe; one line per scan, updated by the thread
// running the scan (standard error is the process's: one line at a time).
#pragma once

#include <cstdint>

namespace moraine::cli {

class ProgressLine {
 public:
  ProgressLine();
  ~ProgressLine();  // clears the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Keys read so far and the subspace byte being read (0xFF: done). The bar
  // advances by subspace: the keyspace is ordered by it.
  void Update(uint64_t keys, uint8_t subspace);

 private:
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace moraine::cli
