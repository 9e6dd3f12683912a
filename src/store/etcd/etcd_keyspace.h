#pragma once

// Where a lake's keys live in the cluster. etcd keys are byte strings ordered
// bytewise, like moraine's, so a moraine key maps to data_prefix + key and
// every range and its order carry over unchanged:
//   <prefix>/c                 the commit marker: every commit puts it, so its
//                              mod revision is the lake's newest commit's
//   <prefix>/i/<handle>/<slot> a writer's entry in the lake's commit queue
//                              (etcd_commit_queue.h); slot a or b
//   <prefix>/j/<offer id>      the outcome of an intent another writer landed
//                              (group commit, etcd_commit_queue.h)
//   <prefix>/k/<moraine key>   the lake's keys (everything KvStore exposes)
//   <prefix>/t/<handle>/<n>    commit tokens, one per concurrent commit of a
//                              store handle (see etcd_store.h)
// Tokens sit beside the data, never inside it, so no scan of the lake sees them.
//
// Thread-safety: a value type: concurrent const reads are safe; a write needs
// the instance to itself.

#include <string>
#include <string_view>

#include "store/key_range.h"

namespace moraine::store {

struct EtcdKeyspace {
  explicit EtcdKeyspace(std::string_view prefix)
      : commit_marker(std::string(prefix) + "/c"),
        commit_queue(std::string(prefix) + "/i/"),
        commit_outcomes(std::string(prefix) + "/j/"),
        data_prefix(std::string(prefix) + "/k/"),
        token_prefix(std::string(prefix) + "/t/") {}

  std::string Data(std::string_view key) const { return data_prefix + std::string(key); }
  std::string_view StripData(std::string_view etcd_key) const {
    return etcd_key.substr(data_prefix.size());
  }
  // [begin, end) in etcd keys; an unbounded end stops at the data's end.
  std::string DataBegin(const KeyRange& range) const { return Data(range.begin); }
  std::string DataEnd(const KeyRange& range) const {
    return range.end.empty() ? PrefixSuccessor(data_prefix) : Data(range.end);
  }

  // What a change watch covers: the commit marker, the commit queue, the
  // commit outcomes and the data (in that order, and nothing else of the
  // lake lies between).
  std::string WatchBegin() const { return commit_marker; }
  std::string WatchEnd() const { return PrefixSuccessor(data_prefix); }

  std::string commit_marker;
  std::string commit_queue;
  std::string commit_outcomes;
  std::string data_prefix;
  std::string token_prefix;
};

}  // namespace moraine::store
