// Round trips of the etcd client alone: one-key compare-and-swap Txn commits
// and one-key Range reads (linearizable, then serializable), one after
// another on one thread, against a 3-member cluster on loopback. Prints the
// median, p99 and mean of each, in microseconds, and the client process's
// CPU time per call (all its threads: a transport's background threads count).
//
// Then the same compare-and-swap carrying the writes of 1, 4, 8 and 16
// one-row commits in one Txn (each commit's writes shaped as a one-row
// inlined INSERT's: 11 small values and one summary page), which is what a
// group commit across writer processes would send
// (docs/research/cross-process-group-commit.md): whether a Txn of several
// commits costs about what one costs is what makes groups pay.
//
//   moraine_etcd_rpc_bench [host:port,host:port,...] [count]
//
// Without endpoints it starts its own cluster (tests/support/etcd_cluster.h).
// The client starts on the first endpoint, leader or not, as a store does.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "store/etcd/etcd_client.h"
#include "store/etcd/etcd_location.h"
#include "support/etcd_cluster.h"

namespace {

using moraine::store::EtcdClient;
using Clock = std::chrono::steady_clock;

double ProcessCpuMicros() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
}

void Report(const char* what, std::vector<double> micros, double cpu_micros) {
  std::sort(micros.begin(), micros.end());
  double sum = 0;
  for (double m : micros) sum += m;
  const size_t n = micros.size();
  std::printf("%-24s n=%zu median=%.1f us p99=%.1f us mean=%.1f us cpu=%.1f us/call\n", what, n,
              micros[n / 2], micros[std::min(n - 1, n * 99 / 100)], sum / static_cast<double>(n),
              cpu_micros / static_cast<double>(n));
}

template <class Fn>
double Micros(Fn&& fn) {
  const auto start = Clock::now();
  fn();
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<moraine::test::EtcdCluster> cluster;
  std::string endpoints;
  if (argc > 1) {
    endpoints = argv[1];
  } else {
    // Room for the largest group's Txn, as writers_bench's cluster has.
    cluster.emplace(moraine::test::EtcdCluster::Options{
        .flags = {"--max-txn-ops=4096", "--max-request-bytes=33554432"}});
    endpoints = cluster->Endpoints();
  }
  const int count = argc > 2 ? std::atoi(argv[2]) : 2000;
  const std::string location = "etcd://" + endpoints + "/rpc-bench";
  EtcdClient client(moraine::store::EtcdLocation::Parse(location), location, {});
  const std::string key = "rpc-bench/" + std::to_string(Clock::now().time_since_epoch().count());

  int64_t mod_revision = 0;  // an absent key compares as mod revision 0
  // A compare-and-swap of `key`, with whatever `add_writes` puts beside it.
  auto compare_and_swap = [&](auto&& add_writes) {
    etcdserverpb::TxnRequest request;
    auto* compare = request.add_compare();
    compare->set_key(key);
    compare->set_target(etcdserverpb::Compare::MOD);
    compare->set_result(etcdserverpb::Compare::EQUAL);
    compare->set_mod_revision(mod_revision);
    auto* put = request.add_success()->mutable_request_put();
    put->set_key(key);
    put->set_value("value");
    add_writes(request);
    etcdserverpb::TxnResponse response;
    const auto status = client.TxnOnce(request, &response);
    if (!status.ok() || !response.succeeded()) {
      std::fprintf(stderr, "a compare-and-swap failed\n");
      std::exit(1);
    }
    mod_revision = response.header().revision();
  };
  auto commit = [&] { compare_and_swap([](etcdserverpb::TxnRequest&) {}); };
  auto read = [&](bool serializable) {
    etcdserverpb::RangeRequest request;
    request.set_key(key);
    request.set_serializable(serializable);
    if (client.Range(request).kvs_size() != 1) {
      std::fprintf(stderr, "a read missed the key\n");
      std::exit(1);
    }
  };

  for (int i = 0; i < 100; ++i) commit();  // connections up, caches warm
  auto run = [&](const char* what, auto&& call) {
    std::vector<double> micros;
    const double cpu_start = ProcessCpuMicros();
    for (int i = 0; i < count; ++i) micros.push_back(Micros(call));
    Report(what, std::move(micros), ProcessCpuMicros() - cpu_start);
  };
  run("txn compare-and-swap", commit);
  run("range linearizable", [&] { read(false); });
  run("range serializable", [&] { read(true); });

  // A one-row inlined INSERT writes about a dozen keys: snapshot, changes,
  // stats rows, its batch, the head, the commit marker and token (small
  // values), and its table's summary page (a few KiB).
  constexpr int kSmallWritesPerCommit = 11;
  const std::string small_value(200, 's');
  const std::string page_value(3000, 'p');
  for (const int commits : {1, 4, 8, 16}) {
    auto group = [&] {
      compare_and_swap([&](etcdserverpb::TxnRequest& request) {
        auto put = [&](const std::string& name, const std::string& value) {
          auto* op = request.add_success()->mutable_request_put();
          op->set_key(name);
          op->set_value(value);
        };
        for (int c = 0; c < commits; ++c) {
          const std::string prefix = key + "/c" + std::to_string(c) + "/";
          for (int w = 0; w < kSmallWritesPerCommit; ++w) {
            put(prefix + std::to_string(w), small_value);
          }
          put(prefix + "page", page_value);
        }
      });
    };
    const std::string what = "txn of " + std::to_string(commits) + " commits' writes";
    run(what.c_str(), group);
  }
  return 0;
}
