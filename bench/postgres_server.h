// A throwaway PostgreSQL server for a benchmark: initdb into a temp dir,
// pg_ctl start on a free loopback port (trust auth, user "bench"), and
// pg_ctl stop -m immediate plus the directory removed when the object goes.
// PostgreSQL refuses to run as root, so as root the server runs as "nobody".
// With an extra address it listens there too, and trusts the clients of an
// extra subnet (the links of virtual hosts, virtual_hosts.h).
//
// Not thread-safe; start and stop from one thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "util/temp_dir.h"

namespace moraine::bench {

class PostgresServer {
 public:
  // Throws std::runtime_error (with the log's path) if it does not come up.
  explicit PostgresServer(const std::string& extra_address = "",
                          const std::string& extra_clients = "") {
    bin_ = FindBinDir();
    dir_ = util::CreateTempDir("moraine-bench-pg-").string();
    port_ = FreePort();
    as_ = ::geteuid() == 0 ? "runuser -u nobody -- " : "";
    if (::geteuid() == 0) Shell("chown nobody " + dir_);
    Shell(as_ + bin_ + "/initdb -D " + dir_ + "/data -U bench --auth=trust -E UTF8 > " + dir_ +
          "/initdb.log 2>&1");
    std::string listen = "127.0.0.1";
    if (!extra_address.empty()) listen += "," + extra_address;
    if (!extra_clients.empty()) {
      Shell("echo 'host all all " + extra_clients + " trust' >> " + dir_ + "/data/pg_hba.conf");
    }
    Shell(as_ + bin_ + "/pg_ctl -D " + dir_ + "/data -l " + dir_ + "/server.log -w -o \"-p " +
          std::to_string(port_) + " -k " + dir_ + " -c listen_addresses=" + listen +
          " -c max_connections=200\" start > " + dir_ + "/pg_ctl.log 2>&1");
    started_ = true;
  }
  ~PostgresServer() {
    if (started_) {
      std::system(
          (as_ + bin_ + "/pg_ctl -D " + dir_ + "/data -m immediate stop > /dev/null 2>&1").c_str());
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // Creates a database and returns its libpq connection string, reaching
  // the server at `address` (loopback, or the extra address).
  std::string CreateDatabase(const std::string& name, const std::string& address = "127.0.0.1") {
    Shell(bin_ + "/createdb -h 127.0.0.1 -p " + std::to_string(port_) + " -U bench " + name);
    return "dbname=" + name + " host=" + address + " port=" + std::to_string(port_) + " user=bench";
  }

 private:
  static std::string FindBinDir() {
    if (const char* bin = std::getenv("MORAINE_BENCH_PG_BIN"); bin && *bin) return bin;
    // Debian's postgresql package: the newest major version installed.
    std::string best;
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ignored)) {
      const std::string bin = entry.path().string() + "/bin";
      if (std::filesystem::exists(bin + "/initdb") && bin > best) best = bin;
    }
    if (best.empty()) {
      throw std::runtime_error(
          "no PostgreSQL server found (scripts/setup.sh installs Debian's postgresql; or set "
          "MORAINE_BENCH_PG_BIN)");
    }
    return best;
  }

  void Shell(const std::string& command) const {
    if (std::system(command.c_str()) != 0) {
      throw std::runtime_error("failed: " + command + " (logs in " + dir_ + ")");
    }
  }

  static int FreePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw std::runtime_error("no free loopback port");
    }
    ::close(fd);
    return ntohs(address.sin_port);
  }

  std::string bin_, dir_, as_;
  int port_ = 0;
  bool started_ = false;
};

}  // namespace moraine::bench
