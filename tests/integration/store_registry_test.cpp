// The store registry (commit/lake/store_registry.h): an open that waits (an
// etcd endpoint that accepts connections and never answers, as a hung member
// does) holds up only opens of its own location, not the rest of the process.

#include "commit/lake/store_registry.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "store/error.h"
#include "support/temp_dir.h"

namespace moraine::commit {
namespace {

// A loopback TCP port whose connections the kernel completes (its backlog)
// and nobody ever reads or answers.
class SilentListener {
 public:
  SilentListener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        listen(fd_, 64) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ADD_FAILURE() << "cannot listen on loopback";
    }
    port_ = ntohs(address.sin_port);
  }
  ~SilentListener() {
    if (fd_ >= 0) close(fd_);
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(StoreRegistry, AnOpenThatWaitsHoldsUpOnlyItsOwnLocation) {
  SilentListener silent;
  auto waiting = std::async(std::launch::async, [&] {
    try {
      StoreRegistry::Instance().Open(
          "etcd://127.0.0.1:" + std::to_string(silent.port()) + "/silent", /*read_only=*/false);
      return std::string("opened");
    } catch (const store::Error& error) {
      return std::string(error.what());
    }
  });
  // The etcd open is under way (it waits for an answer until its timeouts).
  ASSERT_EQ(waiting.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
  test::TempDir dir;
  auto store = StoreRegistry::Instance().Open(dir.path("lake.moraine"), /*read_only=*/false);
  ASSERT_NE(store, nullptr);
  // The directory opened while the etcd open still waits.
  EXPECT_EQ(waiting.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  // The silent endpoint fails its open, typed, once its timeouts pass.
  EXPECT_NE(waiting.get(), "opened");
}

}  // namespace
}  // namespace moraine::commit
