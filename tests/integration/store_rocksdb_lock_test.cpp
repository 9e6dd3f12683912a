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

// The child that tries the store once told to go: forked before this process
// touches RocksDB.
struct Child {
  pid_t pid = -1;
  int go_fd = -1;  // this process's end of the pipe the child waits on
};

Child ForkChild(const std::string& location) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(pipe_fds[1]);
    _exit(RunChild(location, pipe_fds[0]));
  }
  close(pipe_fds[0]);
  return {pid, pipe_fds[1]};
}

// Tells the child to go and expects it to end as RunChild ends when all is well.
void ExpectChildOk(const Child& child) {
  ASSERT_EQ(write(child.go_fd, "g", 1), 1);
  close(child.go_fd);
  int status = 0;
  ASSERT_EQ(waitpid(child.pid, &status, 0), child.pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kChildOk);
}

// Writes the key the child reads.
void WriteCommitted(KvStore& store) {
  WriteBatch batch;
  batch.Put("committed", "yes");
  store.Write(batch);
}

// A store location and the child that will try it, forked before the test
// body touches RocksDB.
class StoreLock : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.location = dir_.path("lake.moraine");
    child_ = ForkChild(options_.location);
    ASSERT_GT(child_.pid, 0);
  }

  test::TempDir dir_;
  KvOptions options_;
  Child child_;
};

TEST_F(StoreLock, SecondProcessCannotOpenReadWriteButCanRead) {
  auto writer = OpenKvStore(options_);
  WriteCommitted(*writer);
  ExpectChildOk(child_);
}

// A writer that has not written yet holds the store too: it opened RocksDB
// read-only (until its first write), yet a second process is refused at its
// open, and may still read.
TEST_F(StoreLock, AWriterThatHasNotWrittenYetRefusesASecondProcess) {
  WriteCommitted(*OpenKvStore(options_));  // then closed
  auto writer = OpenKvStore(options_);
  ExpectChildOk(child_);
  WriteBatch batch;
  batch.Put("after", "yes");
  writer->Write(batch);  // the writer writes on after the refusal
  EXPECT_EQ(GetLatest(*writer, "after"), std::optional<std::string>("yes"));
}

}  // namespace
}  // namespace moraine::store
