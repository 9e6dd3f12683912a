// `moraine tour`: a short, printed walk through a DuckLake session for a newcomer.
#pragma once

#include <string>

namespace moraine::cli {

// Runs the tour in a fresh directory under `work_dir`; returns the exit status.
int RunTour(const std::string& work_dir);

}  // namespace moraine::cli
