#include "store/rocksdb/test_hooks.h"

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/listener.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <optional>
#include <string>

#include "store/rocksdb/power_cut_file_system.h"

namespace moraine::store {
namespace {

struct ArmedHook {
  std::string name;  // a crash point, or "<fault>@<op>"
  uint64_t nth = 0;  // 0: unarmed
  std::atomic<uint64_t> arrivals{0};

  // Parses "<name>[<separator><n>]" from the environment variable `variable`.
  ArmedHook(const char* variable, char separator) {
    const char* value = std::getenv(variable);
    if (value == nullptr || *value == '\0') return;
    std::string text = value;
    nth = 1;
    if (auto at = text.rfind(separator); at != std::string::npos) {
      nth = std::strtoull(text.c_str() + at + 1, nullptr, 10);
      text.resize(at);
    }
    name = text;
  }

  // True exactly once: at the n-th arrival at the armed `here`.
  bool Fires(std::string_view here) {
    if (nth == 0 || here != name) return false;
    return arrivals.fetch_add(1) + 1 == nth;
  }
};

ArmedHook& CrashHook() {
  static ArmedHook hook("MORAINE_TEST_CRASH_AT", '@');
  return hook;
}

ArmedHook& FaultHook() {
  static ArmedHook hook("MORAINE_TEST_FAULT", ':');
  return hook;
}

bool PowerCutArmed() {
  static const bool armed = [] {
    const char* value = std::getenv("MORAINE_TEST_POWER_CUT");
    return value != nullptr && std::string_view(value) == "1";
  }();
  return armed;
}

const std::shared_ptr<PowerCutFileSystem>& PowerCut() {
  static const auto fs = std::make_shared<PowerCutFileSystem>(rocksdb::FileSystem::Default());
  return fs;
}

[[noreturn]] void Die() {
  if (PowerCutArmed()) PowerCut()->CutPower();
  std::raise(SIGKILL);
  std::abort();  // not reached: SIGKILL cannot be caught
}

bool IsLogFile(const std::string& name) { return name.ends_with(".log"); }

class HookedLogFile final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  using FSWritableFileOwnerWrapper::FSWritableFileOwnerWrapper;

  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override {
    if (auto injected = Inject("append", data, options, dbg)) return *injected;
    return target()->Append(data, options, dbg);
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* dbg) override {
    if (auto injected = Inject("append", data, options, dbg)) return *injected;
    return target()->Append(data, options, info, dbg);
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
    if (auto injected = Inject("sync", {}, options, dbg)) return *injected;
    return target()->Sync(options, dbg);
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    if (auto injected = Inject("sync", {}, options, dbg)) return *injected;
    return target()->Fsync(options, dbg);
  }

 private:
  std::optional<rocksdb::IOStatus> Inject(std::string_view op, const rocksdb::Slice& data,
                                          const rocksdb::IOOptions& options,
                                          rocksdb::IODebugContext* dbg) {
    if (op == "append" && CrashHook().Fires("commit.torn_log_write")) {
      target()->Append(rocksdb::Slice(data.data(), data.size() / 2), options, dbg);
      target()->Flush(options, dbg);  // into the page cache, as a real torn write leaves it
      Die();
    }
    for (std::string_view fault : {"eio", "enospc", "short"}) {
      if (!FaultHook().Fires(std::string(fault) + "@" + std::string(op))) continue;
      if (fault == "enospc") return rocksdb::IOStatus::NoSpace("injected ENOSPC");
      if (fault == "short") {
        target()->Append(rocksdb::Slice(data.data(), data.size() / 2), options, dbg);
        return rocksdb::IOStatus::IOError("injected short write");
      }
      return rocksdb::IOStatus::IOError("injected EIO");
    }
    return std::nullopt;
  }
};

thread_local std::string_view background_job = "open";

// Names the thread's flush or compaction for the cut points of the table
// files it writes; RocksDB calls both on the thread that does the work.
class BackgroundJobNamer final : public rocksdb::EventListener {
 public:
  void OnFlushBegin(rocksdb::DB*, const rocksdb::FlushJobInfo&) override {
    background_job = "flush";
  }
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) override {
    background_job = "open";
  }
  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo&) override {
    background_job = "compaction";
  }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo&) override {
    background_job = "open";
  }
};

// The fault hooks of log files, over the power-cut file system, which keeps
// track of what is durable whether or not a cut is armed (it costs nothing a
// test would notice).
class HookedFileSystem final : public rocksdb::FileSystemWrapper {
 public:
  HookedFileSystem() : FileSystemWrapper(PowerCut()) {}
  const char* Name() const override { return "MoraineTestHooks"; }

  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus status = target()->NewWritableFile(name, options, result, dbg);
    if (status.ok() && IsLogFile(name))
      *result = std::make_unique<HookedLogFile>(std::move(*result));
    return status;
  }
  rocksdb::IOStatus ReuseWritableFile(const std::string& name, const std::string& old_name,
                                      const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus status = target()->ReuseWritableFile(name, old_name, options, result, dbg);
    if (status.ok() && IsLogFile(name))
      *result = std::make_unique<HookedLogFile>(std::move(*result));
    return status;
  }
};

}  // namespace

void CrashPoint(std::string_view point) {
  if (CrashHook().Fires(point)) Die();
}

bool FileHooksArmed() { return CrashHook().nth != 0 || FaultHook().nth != 0; }

std::string_view BackgroundJobOfThisThread() { return background_job; }

std::shared_ptr<rocksdb::EventListener> TestHookListener() {
  return std::make_shared<BackgroundJobNamer>();
}

rocksdb::Env* TestHookEnv() {
  static const std::unique_ptr<rocksdb::Env> env =
      rocksdb::NewCompositeEnv(std::make_shared<HookedFileSystem>());
  return env.get();
}

}  // namespace moraine::store
