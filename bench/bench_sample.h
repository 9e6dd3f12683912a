// One timed statement: wall time and the CPU time the whole process spent on
// it (DuckDB may run parts of a statement on its worker threads, so a
// per-thread clock would under-count). On a shared, noisy machine the CPU
// figure is the steadier one; both are printed.
#pragma once

#include <time.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace moraine::bench {

struct Sample {
  double wall_ms = 0;
  double cpu_ms = 0;
};

inline double ProcessCpuMillis() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

template <class Fn>
Sample TimeOne(Fn&& fn) {
  const double cpu_start = ProcessCpuMillis();
  const auto wall_start = std::chrono::steady_clock::now();
  fn();
  const auto wall_end = std::chrono::steady_clock::now();
  return {std::chrono::duration<double, std::milli>(wall_end - wall_start).count(),
          ProcessCpuMillis() - cpu_start};
}

inline double Median(std::vector<double> samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

// Medians of wall and CPU time over a series of samples.
struct Medians {
  double wall_ms = 0;
  double cpu_ms = 0;
};

inline Medians MediansOf(const std::vector<Sample>& samples) {
  std::vector<double> wall, cpu;
  for (const Sample& sample : samples) {
    wall.push_back(sample.wall_ms);
    cpu.push_back(sample.cpu_ms);
  }
  return {Median(wall), Median(cpu)};
}

}  // namespace moraine::bench
