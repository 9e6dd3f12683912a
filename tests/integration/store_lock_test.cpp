// One read-write process per store: a second process is refused with
// StoreLockedError, while it may still open the store read-only; also while
// the first has not written yet (and holds RocksDB open read-only).
//
// The child is forked before this process touches RocksDB (ctest runs each
// test case in its own process), so it inherits no engine threads or locks.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/error.h"
#include "store/kv_store.h"
#include "support/temp_dir.h"

namespace moraine::store {
namespace {

enum ChildResult : int {
  kChildOk = 0,
  kChildOpenedTwice = 10,
  kChildWrongError = 11,
  kChildReadOnlyFailed = 12,
  kChildReadWrong = 13,
  kChildPipeFailed = 14,
};

int RunChild(const std::string& location, int ready_fd) {
  char signal = 0;
  if (read(ready_fd, &signal, 1) != 1) return kChildPipeFailed;
  KvOptions options;
  options.location = location;
  try {
    OpenKvStore(options);
    return kChildOpenedTwice;
  } catch (const StoreLockedError&) {
  } catch (...) {
    return kChildWrongError;
  }
  try {
    options.read_only = true;
    auto reader = OpenKvStore(options);
    return GetLatest(*reader, "committed") == std::optional<std::string>("yes") ? kChildOk
                                                                                : kChildReadWrong;
  } catch (...) {
    return kChildReadOnlyFailed;
  }
}

TEST(StoreLock, SecondProcessCannotOpenReadWriteButCanRead) {
  test::TempDir dir;
  const std::string location = dir.path("lake.moraine");
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipe_fds[1]);
    _exit(RunChild(location, pipe_fds[0]));
  }
  close(pipe_fds[0]);

  KvOptions options;
  options.location = location;
  auto writer = OpenKvStore(options);
  WriteBatch batch;
  batch.Put("committed", "yes");
  writer->Write(batch);
  ASSERT_EQ(write(pipe_fds[1], "g", 1), 1);
  close(pipe_fds[1]);

  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kChildOk);
}

// A writer that has not written yet holds the store too: it opened RocksDB
// read-only (until its first write), yet a second process is refused at its
// open, and may still read.
TEST(StoreLock, AWriterThatHasNotWrittenYetRefusesASecondProcess) {
  test::TempDir dir;
  const std::string location = dir.path("lake.moraine");
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipe_fds[1]);
    _exit(RunChild(location, pipe_fds[0]));
  }
  close(pipe_fds[0]);

  KvOptions options;
  options.location = location;
  {
    auto creator = OpenKvStore(options);
    WriteBatch batch;
    batch.Put("committed", "yes");
    creator->Write(batch);
  }
  auto writer = OpenKvStore(options);
  ASSERT_EQ(write(pipe_fds[1], "g", 1), 1);
  close(pipe_fds[1]);

  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kChildOk);
  WriteBatch batch;
  batch.Put("after", "yes");
  writer->Write(batch);  // the writer writes on after the refusal
  EXPECT_EQ(GetLatest(*writer, "after"), std::optional<std::string>("yes"));
}

}  // namespace
}  // namespace moraine::store
