// DuckLake writer processes (moraine_ducklake_writer, see
// tests/distributed/ducklake_writer_main.cpp) started together and collected:
// what each acknowledged, what failed and why, and every commit's latency.
// Shared by the multi-writer tests and the writer benchmark.
//
// Not thread-safe: start and collect from one thread.
#pragma once

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace moraine::test {

struct WriterSpec {
  int writer = 0;
  std::string table;  // e.g. "lake.t0"; commit k inserts (writer, k)
  long commits = 0;
  double seconds = 0;            // 0: no time bound
  std::vector<std::string> sql;  // setup statements: LOAD, ATTACH, SET ...
  // The first commit waits until this file exists ("": no wait), so that
  // several writers share one window; see AwaitReady.
  std::string start_file = {};
  // Every alter_every-th commit is a schema change of the table instead
  // (0: none); see ducklake_writer_main.cpp.
  long alter_every = 0;
  // Prepended to the writer's command line, e.g. VirtualHosts::Prefix to run
  // it on another host; empty: this one.
  std::string host_prefix = {};
};

struct WriterCommit {
  long k = 0;
  bool ok = false;
  double latency_ms = 0;
  // When the statement returned, on the steady clock (one clock for every
  // process of the machine).
  std::chrono::steady_clock::time_point done;
  std::string error;  // DuckDB's, when !ok
};

struct WriterResult {
  int writer = 0;
  std::string table;
  std::vector<WriterCommit> commits;  // in order
  // The writer's closing counters line (name -> value), empty if it gave none.
  std::map<std::string, long long> counters;
  std::string unexpected;  // output that is no commit or counters line
  int exit_code = -1;

  std::vector<long> Acknowledged() const {
    std::vector<long> out;
    for (const auto& commit : commits) {
      if (commit.ok) out.push_back(commit.k);
    }
    return out;
  }
  std::vector<const WriterCommit*> Failed() const {
    std::vector<const WriterCommit*> out;
    for (const auto& commit : commits) {
      if (!commit.ok) out.push_back(&commit);
    }
    return out;
  }
};

// Single quotes for the shell around any text.
inline std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

class WriterProcesses {
 public:
  explicit WriterProcesses(std::string executable) : executable_(std::move(executable)) {}
  ~WriterProcesses() {
    for (auto& running : running_) {
      if (running.pipe) ::pclose(running.pipe);
    }
  }
  WriterProcesses(const WriterProcesses&) = delete;
  WriterProcesses& operator=(const WriterProcesses&) = delete;

  // Starts one writer process; it runs until its loop ends.
  void Start(const WriterSpec& spec) {
    std::string command = spec.host_prefix + ShellQuote(executable_) + " --writer " +
                          std::to_string(spec.writer) + " --table " + ShellQuote(spec.table) +
                          " --commits " + std::to_string(spec.commits);
    if (spec.seconds > 0) command += " --seconds " + std::to_string(spec.seconds);
    if (spec.alter_every > 0) command += " --alter-every " + std::to_string(spec.alter_every);
    if (!spec.start_file.empty()) command += " --start-file " + ShellQuote(spec.start_file);
    for (const auto& statement : spec.sql) command += " --sql " + ShellQuote(statement);
    command += " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot start " + executable_);
    running_.push_back({pipe, spec});
  }

  // Waits until every started writer has attached (said `ready`) or ended;
  // false if one ended first. Writers started with a start_file then wait
  // for it, so that their window opens once all of them can commit.
  bool AwaitReady() {
    bool all = true;
    for (auto& running : running_) {
      for (std::string line;;) {
        if (!ReadLine(running.pipe, &line)) {
          all = false;
          break;
        }
        running.read.push_back(line);
        if (line == "ready") break;
      }
    }
    return all;
  }

  // Waits for every started writer and parses what each printed.
  std::vector<WriterResult> Collect() {
    std::vector<WriterResult> results;
    for (auto& running : running_) {
      WriterResult result;
      result.writer = running.spec.writer;
      result.table = running.spec.table;
      for (const auto& line : running.read) Parse(line, &result);
      for (std::string line; ReadLine(running.pipe, &line);) Parse(line, &result);
      const int status = ::pclose(running.pipe);
      running.pipe = nullptr;
      result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      results.push_back(std::move(result));
    }
    running_.clear();
    return results;
  }

 private:
  struct Running {
    FILE* pipe = nullptr;
    WriterSpec spec;
    std::vector<std::string> read = {};  // lines AwaitReady read
  };

  // The next line of `pipe` without its newline; false at its end.
  static bool ReadLine(FILE* pipe, std::string* line) {
    line->clear();
    char buffer[4096];
    while (std::fgets(buffer, sizeof(buffer), pipe)) {
      *line += buffer;
      if (line->back() == '\n') {
        line->pop_back();
        return true;
      }
    }
    return !line->empty();
  }

  static void Parse(const std::string& line, WriterResult* result) {
    WriterCommit commit;
    long long micros = 0, done = 0;
    int consumed = 0;
    if (line == "ready") return;
    if (line.rfind("counters", 0) == 0) {
      std::istringstream fields(line.substr(8));
      std::string field;
      while (fields >> field) {
        const auto equals = field.find('=');
        if (equals == std::string::npos) continue;
        result->counters[field.substr(0, equals)] = std::atoll(field.c_str() + equals + 1);
      }
      return;
    }
    if (std::sscanf(line.c_str(), "ok %ld %lld %lld", &commit.k, &micros, &done) == 3) {
      commit.ok = true;
    } else if (std::sscanf(line.c_str(), "fail %ld %lld %lld %n", &commit.k, &micros, &done,
                           &consumed) == 3) {
      commit.error = line.substr(static_cast<size_t>(consumed));
    } else {
      result->unexpected += line + "\n";
      return;
    }
    commit.latency_ms = static_cast<double>(micros) / 1000.0;
    commit.done = std::chrono::steady_clock::time_point(std::chrono::microseconds(done));
    result->commits.push_back(std::move(commit));
  }

  std::string executable_;
  std::vector<Running> running_;
};

}  // namespace moraine::test
