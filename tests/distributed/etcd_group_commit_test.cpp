// Group commit on a real cluster (EtcdStore::LandOffered, etcd_commit_queue.h):
// writers that wait for their turn put their commits' intents in their queue
// entries, and the writer whose turn it is lands them with its own in one
// Txn; each commit lands exactly once, by a group or by its own writer.
//
// The intents here are a writer's name, replayed by a replayer shaped as the
// commit layer's (commit/rows/commit_intent.h): it reads the head from the
// view it is given, so a group's later members build on its earlier ones.
// The DuckLake writer tests (etcd_ducklake_writers_test.cpp) run the same
// path with DuckLake's commits and the commit layer's replayer.

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "distributed/etcd_store_fixture.h"
#include "store/key.h"

namespace moraine::store {
namespace {

const std::string kHead = Key::Current(Kind::kHead, {}).Encode();

std::string RowKey(const std::string& writer) { return "row/" + writer; }

// Lands the intent "<writer>" as its writer would have: its row, and the
// head moved on by its name. Refuses the writers in `refused`.
IntentReplayer NameReplayer(std::set<std::string> refused = {}) {
  return [refused](std::unique_ptr<KvSnapshot> view,
                   std::string_view intent) -> std::optional<ReplayedIntent> {
    const std::string writer(intent);
    if (refused.contains(writer)) return std::nullopt;
    ReplayedIntent replayed;
    replayed.batch.Put(RowKey(writer), "landed by a group");
    replayed.batch.Put(kHead, view->Get(kHead).value_or("") + "+" + writer);
    replayed.outcome = "outcome of " + writer;
    return replayed;
  };
}

// One writer's commit, staged on head `base`, offered to the others.
struct OfferedCommit {
  std::string writer;
  WriteBatch batch;
  CommitOffer offer;
  bool landed = false;

  OfferedCommit(std::string name, const std::string& base) : writer(std::move(name)) {
    batch.Put(RowKey(writer), "landed by its writer");
    batch.Put(kHead, base + "+" + writer);
    offer.intent = [this]() -> std::optional<std::string> { return writer; };
  }
  void Land(KvStore& store, const std::string& base) {
    landed = store.LandOffered(kHead, base, batch, offer) != nullptr;
  }
};

class EtcdGroupCommitTest : public test::EtcdStoreFixture {
 protected:
  // A lake whose head is "h", and an entry a killed writer left first in its
  // queue: writers opened after it queue behind it for kStall, long enough
  // to publish their intents before one of them goes first.
  void SetUpQueuedLake() {
    auto setup = OpenEtcd({});
    WriteBatch batch;
    batch.Put(kHead, "h");
    ASSERT_TRUE(setup->WriteIfHeadUnchanged(kHead, std::nullopt, batch));
    cluster_->EtcdCtl("put " + prefix_ + "/i/killed-writer x");
  }

  // Writers named `names`, each on a handle of its own with `replayer`,
  // each committing on head "h" once the previous one is queued.
  std::vector<std::unique_ptr<OfferedCommit>> CommitTogether(const std::vector<std::string>& names,
                                                             const IntentReplayer& replayer) {
    std::vector<std::unique_ptr<EtcdStore>> handles;
    std::vector<std::unique_ptr<OfferedCommit>> commits;
    std::vector<std::thread> threads;
    for (const auto& name : names) {
      handles.push_back(OpenEtcd({}));
      handles.back()->SetIntentReplayer(replayer);
      commits.push_back(std::make_unique<OfferedCommit>(name, "h"));
    }
    for (size_t i = 0; i < names.size(); ++i) {
      threads.emplace_back([&, i] { commits[i]->Land(*handles[i], "h"); });
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (!handles[i]->InCommitQueue() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    for (auto& thread : threads) thread.join();
    for (auto& handle : handles) handle->LeaveCommitQueue();
    return commits;
  }

  std::optional<std::string> Read(const std::string& key) {
    return OpenEtcd({})->GetSnapshot()->Get(key);
  }
};

TEST_F(EtcdGroupCommitTest, TheTurnHolderLandsTheIntentsBehindItEachOnce) {
  SetUpQueuedLake();
  const auto commits = CommitTogether({"a", "b", "c"}, NameReplayer());

  // One of them went first and landed its own commit and the others'.
  size_t by_group = 0;
  std::string head = "h";
  for (const auto& commit : commits) {
    ASSERT_TRUE(commit->landed) << commit->writer;
    const auto row = Read(RowKey(commit->writer));
    ASSERT_TRUE(row.has_value()) << commit->writer;
    if (commit->offer.outcome) {
      EXPECT_EQ(*row, "landed by a group");
      EXPECT_EQ(*commit->offer.outcome, "outcome of " + commit->writer);
      ++by_group;
    } else {
      EXPECT_EQ(*row, "landed by its writer");
      EXPECT_TRUE(commit->offer.landed_others) << commit->writer;
      head += "+" + commit->writer;
    }
  }
  EXPECT_EQ(by_group, 2u);
  // The head is the lander's, moved on by each member in queue order.
  const auto landed_head = Read(kHead);
  ASSERT_TRUE(landed_head.has_value());
  EXPECT_TRUE(landed_head->starts_with(head)) << *landed_head;
  EXPECT_EQ(landed_head->size(), std::string("h+a+b+c").size()) << *landed_head;
  EXPECT_EQ(cluster_->EtcdCtl("get --prefix --keys-only " + prefix_ + "/i/"), "");
}

TEST_F(EtcdGroupCommitTest, AnIntentTheReplayerRefusesStaysItsWritersAndIsTakenBack) {
  SetUpQueuedLake();
  const auto commits = CommitTogether({"a", "b"}, NameReplayer({"a", "b"}));

  // Neither lands the other's: the first lands its own commit, and the
  // second, staged on the head the first moved, lost its race, with its
  // intent taken back so that no later group can land it.
  size_t landed = 0;
  for (const auto& commit : commits) {
    EXPECT_FALSE(commit->offer.outcome.has_value()) << commit->writer;
    EXPECT_FALSE(commit->offer.landed_others) << commit->writer;
    if (commit->landed) {
      ++landed;
      EXPECT_EQ(Read(kHead), "h+" + commit->writer);
    } else {
      EXPECT_EQ(Read(RowKey(commit->writer)), std::nullopt);
    }
  }
  EXPECT_EQ(landed, 1u);
  EXPECT_EQ(cluster_->EtcdCtl("get --prefix --keys-only " + prefix_ + "/i/"), "");
}

TEST_F(EtcdGroupCommitTest, WithoutGroupCommitEachWriterLandsItsOwn) {
  SetUpQueuedLake();
  std::vector<std::unique_ptr<EtcdStore>> handles;
  handles.push_back(OpenEtcd({.group_commit = false}));
  handles.push_back(OpenEtcd({.group_commit = false}));
  OfferedCommit first("a", "h");
  OfferedCommit second("b", "h");
  std::thread one([&] { first.Land(*handles[0], "h"); });
  while (!handles[0]->InCommitQueue()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::thread two([&] { second.Land(*handles[1], "h"); });
  one.join();
  two.join();
  EXPECT_NE(first.landed, second.landed);  // the second, staged on "h", lost its race
  EXPECT_FALSE(first.offer.outcome || second.offer.outcome);
}

}  // namespace
}  // namespace moraine::store
