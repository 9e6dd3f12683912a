#pragma once

// Test hooks of the store layer, armed only through the environment of a
// process that a crash or fault test starts, so that DuckLake SQL can be
// driven through exactly the code users run:
//
//   MORAINE_TEST_CRASH_AT=<point>[@<n>]   the process dies (SIGKILL, no
//       cleanup) the n-th time (default 1) it reaches <point>:
//         commit.before_write   a commit's batch is built, nothing is written
//         commit.torn_log_write half of the batch's log record is written
//         commit.after_write    the batch is durable, the commit not yet
//                               acknowledged to its caller
//         close.before_flush    a writer closes; every commit is acknowledged,
//                               its memtable not yet flushed
//         commit.before_sync    a group sync is about to sync the log
//         commit.before_high_water  the log is synced, the high-water mark
//                               not yet advanced
//         backup.chunk_written  a backup wrote a chunk new to its repository
//         backup.before_manifest  every chunk is written, the manifest not
//         restore.batch_written a restore wrote a batch into the new store
//         restore.before_rename the new store is whole and closed, not yet
//                               renamed into place
//         restore.renamed       the new store is renamed into place and its
//                               directory synced
//       and, on any store file, before an operation runs: "<kind>.<op>",
//         <kind>: log | manifest | current | tmp | mark | other |
//                 flush.sst | compaction.sst | open.sst (a table file written
//                 by a flush, a compaction, or neither: recovery or repair)
//         <op>:   append | sync | rename (to that name) | write (in place)
//       and "dir.sync", a directory's sync.
//   MORAINE_TEST_POWER_CUT=1   dying at a crash point is a power cut: first
//       every byte, file and rename the store's files did not make durable is
//       taken back (power_cut_file_system.h), then SIGKILL.
//   MORAINE_TEST_FAULT=<fault>@<op>[:<n>]   the n-th (default 1) <op> on a
//       write-ahead log file fails with <fault>, once:
//         <op>:    append | sync
//         <fault>: eio | enospc | short (append half the bytes, then EIO)
//
// Unarmed, a hook costs one comparison.
//
// Thread-safety: safe from any thread: a hook reads the environment once (a
// function-local static) and counts arrivals atomically.

#include <memory>
#include <string_view>

namespace rocksdb {
class Env;
class EventListener;
}  // namespace rocksdb

namespace moraine::store {

// Dies here if the environment armed `point` and this is its n-th arrival.
void CrashPoint(std::string_view point);

// True when a crash point or a fault is armed: the store's files then go
// through TestHookEnv() and its engine has TestHookListener().
bool FileHooksArmed();

// A disk Env whose file system applies the armed log-file hooks; one per
// process. Only meaningful when FileHooksArmed().
rocksdb::Env* TestHookEnv();

// Tells the file hooks which background job (flush, compaction) a thread runs.
std::shared_ptr<rocksdb::EventListener> TestHookListener();

// "flush", "compaction", or "open" (neither) for the calling thread.
std::string_view BackgroundJobOfThisThread();

}  // namespace moraine::store
