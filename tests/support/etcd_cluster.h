// A real etcd cluster for one test or suite: N members (3 by default) on
// loopback ports picked free at start, data directories in a temp dir, up and
// healthy within a bound, and gone when the object is: every member is killed
// (its process group) and waited for, and the directories are removed.
//
// With Options::secured, the cluster runs as production ones do: TLS on the
// client and peer ports with certificates from a test CA (etcd_test_pki.h),
// --client-cert-auth on both, and etcd's auth enabled with a root user, a
// lake_writer role (readwrite on one key prefix) and a lake_reader role (read
// on it), and users of those names holding them, plus other_writer, whose
// role has readwrite on another prefix only. Users have passwords
// (Password()) and client certificates of their name (Pki()).
//
// Members are separate processes started with fork/exec, so a test can kill
// -9 one (the leader, a follower) and restart it on its data. Each member dies
// with the thread that started it (PR_SET_PDEATHSIG), so a crashed test leaves
// no etcd behind: start and restart members from the test's main thread.
//
// With Options::hosts, member i runs on virtual host i % hosts->size()
// (virtual_hosts.h) and listens on that host's address: its peers and clients
// reach it over the hosts' links, not one loopback.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/etcd_test_pki.h"
#include "support/run_process.h"
#include "support/temp_dir.h"
#include "support/virtual_hosts.h"

namespace moraine::test {

// Says why no test can run on etcd here, or nothing if one can.
inline std::optional<std::string> EtcdUnavailableReason();

class EtcdCluster {
 public:
  struct Options {
    int members = 3;
    // Extra flags for every member, e.g. {"--max-txn-ops=1024"}.
    std::vector<std::string> flags = {};
    std::chrono::milliseconds start_timeout{20000};
    // TLS, client certificates and auth (see above); the key prefix the
    // lake roles are granted on, e.g. "e2e-" for every lake named e2e-...
    std::optional<std::string> secured_prefix = std::nullopt;
    // Members on these hosts instead of this loopback (not with secured: the
    // test CA's member certificate names 127.0.0.1); outlives the cluster.
    const VirtualHosts* hosts = nullptr;
  };

  // The identities of a secured cluster's users.
  static constexpr const char* kWriter = "lake_writer";
  static constexpr const char* kReader = "lake_reader";
  static constexpr const char* kOtherWriter = "other_writer";
  // The prefix other_writer's role is granted on.
  static constexpr const char* kOtherPrefix = "elsewhere-";
  static std::string Password(const std::string& user) { return user + "-pw"; }

  EtcdCluster() : EtcdCluster(Options{}) {}
  explicit EtcdCluster(Options options) : options_(std::move(options)) {
    if (options_.hosts && secured()) {
      throw std::invalid_argument("EtcdCluster: a secured cluster runs on loopback only");
    }
    // A port picked free may be taken by someone else before etcd binds it;
    // a second try with fresh ports settles that race.
    for (int attempt = 0;; ++attempt) {
      try {
        StartAll();
        return;
      } catch (const std::runtime_error&) {
        StopAll();
        if (attempt == 1) throw;
      }
    }
  }
  ~EtcdCluster() { StopAll(); }
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  int size() const { return static_cast<int>(members_.size()); }
  std::string Endpoint(int member) const {
    return Address(member) + ":" + std::to_string(members_[member].client_port);
  }
  // "127.0.0.1:p0,127.0.0.1:p1,..." (on hosts, their addresses)
  std::string Endpoints() const {
    std::string out;
    for (int i = 0; i < size(); ++i) out += (i ? "," : "") + Endpoint(i);
    return out;
  }
  // The moraine location of a lake named `prefix` in this cluster.
  std::string Location(const std::string& prefix) const {
    return (secured() ? "etcds://" : "etcd://") + Endpoints() + "/" + prefix;
  }

  bool secured() const { return options_.secured_prefix.has_value(); }
  const EtcdTestPki& Pki() const { return *pki_; }

  // Makes this process's etcd handles act as `user` of a secured cluster,
  // through the MORAINE_ETCD_* environment the store falls back on: by its
  // client certificate (the CN is the user) or by its password (with a client
  // certificate whose CN names no user, which --client-cert-auth requires).
  void ActAs(const std::string& user, bool by_password) const {
    ::setenv("MORAINE_ETCD_CA_FILE", pki_->CaFile().c_str(), 1);
    const std::string cert = by_password ? "anonymous" : user;
    ::setenv("MORAINE_ETCD_CERT_FILE", pki_->CertFile(cert).c_str(), 1);
    ::setenv("MORAINE_ETCD_KEY_FILE", pki_->KeyFile(cert).c_str(), 1);
    ::setenv("MORAINE_ETCD_USER", by_password ? user.c_str() : "", 1);
    ::setenv("MORAINE_ETCD_PASSWORD", by_password ? Password(user).c_str() : "", 1);
  }

  // Undoes ActAs: handles opened from now on use no credentials.
  static void ActAsNobody() {
    for (const char* name :
         {"MORAINE_ETCD_CA_FILE", "MORAINE_ETCD_CERT_FILE", "MORAINE_ETCD_KEY_FILE",
          "MORAINE_ETCD_SERVER_NAME", "MORAINE_ETCD_USER", "MORAINE_ETCD_PASSWORD"}) {
      ::unsetenv(name);
    }
  }

  // etcdctl against the cluster as root; its output, or throws (with
  // `shown` for the arguments, so a password in them stays out of the test's
  // output).
  std::string EtcdCtl(const std::string& arguments, const std::string& shown = "") const {
    std::string command = "ETCDCTL_API=3 etcdctl --command-timeout=5s --endpoints=";
    for (int i = 0; i < size(); ++i) {
      command += (i ? "," : "") + std::string(secured() ? "https" : "http") + "://" + Endpoint(i);
    }
    if (secured()) {
      command += " --cacert=" + pki_->CaFile() + " --cert=" + pki_->CertFile("root") +
                 " --key=" + pki_->KeyFile("root");
    }
    const auto result = RunCommand(command + " " + arguments + " 2>&1");
    if (result.exit_code != 0) {
      throw std::runtime_error("etcdctl " + (shown.empty() ? arguments : shown) +
                               " failed: " + result.output);
    }
    return result.output;
  }

  bool Running(int member) const { return members_[member].pid > 0; }

  // kill -9, and waits until the process is gone.
  void Kill(int member) {
    auto& m = members_[member];
    if (m.pid <= 0) return;
    ::kill(-m.pid, SIGKILL);
    ::waitpid(m.pid, nullptr, 0);
    m.pid = -1;
  }

  // SIGSTOP / SIGCONT: a member that is there but falls behind while paused.
  void Pause(int member) {
    if (Running(member)) ::kill(-members_[member].pid, SIGSTOP);
  }
  void Resume(int member) {
    if (Running(member)) ::kill(-members_[member].pid, SIGCONT);
  }

  // Starts a killed member again on its data directory.
  void Restart(int member) {
    if (Running(member)) return;
    Spawn(member, /*existing=*/true);
  }

  // True once every running member reports itself healthy (it has a leader).
  bool WaitHealthy(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      bool all = true;
      for (int i = 0; i < size() && all; ++i) {
        if (!Running(i)) continue;
        all = secured()
                  ? MemberCtl(i, "endpoint health").exit_code == 0
                  : Http(i, "GET", "/health").find("\"health\":\"true\"") != std::string::npos;
      }
      if (all) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  // The index of the current leader, as a running member reports it; -1 if
  // no running member knows one.
  int Leader() {
    std::vector<std::string> ids(size());
    std::string leader;
    for (int i = 0; i < size(); ++i) {
      if (!Running(i)) continue;
      const std::string status = MemberStatus(i);
      ids[i] = JsonString(status, "member_id");
      if (leader.empty()) leader = JsonString(status, "leader");
    }
    for (int i = 0; i < size(); ++i) {
      if (!leader.empty() && ids[i] == leader) return i;
    }
    return -1;
  }

  // The cluster's current revision, as the first running member reports it
  // (through etcd's JSON gateway, or etcdctl on a secured cluster); -1 if
  // none answers.
  int64_t Revision() {
    for (int i = 0; i < size(); ++i) {
      if (!Running(i)) continue;
      const std::string range =
          secured() ? MemberStatus(i) : Http(i, "POST", "/v3/kv/range", "{\"key\":\"AA==\"}");
      const std::string revision = JsonString(range, "revision");
      if (!revision.empty()) return std::stoll(revision);
    }
    return -1;
  }

  // How many keys (of any prefix) the commit at `revision` put: a Txn is one
  // revision. -1 if no member answers. (etcd filters by mod revision after
  // counting, so the keys are counted here, not by count_only.)
  int64_t KeysPutAt(int64_t revision) {
    // etcd's JSON gateway ignores client certificates, and etcdctl has no
    // mod-revision filter: plain clusters only.
    if (secured()) throw std::logic_error("KeysPutAt needs a plain test cluster");
    const std::string rev = "\"" + std::to_string(revision) + "\"";
    for (int i = 0; i < size(); ++i) {
      if (!Running(i)) continue;
      const std::string range = Http(i, "POST", "/v3/kv/range",
                                     "{\"key\":\"AA==\",\"range_end\":\"AA==\",\"keys_only\":true,"
                                     "\"min_mod_revision\":" +
                                         rev + ",\"max_mod_revision\":" + rev + "}");
      if (range.find("\"header\"") == std::string::npos) continue;
      int64_t keys = 0;
      const std::string needle = "\"mod_revision\":" + rev;
      for (size_t at = range.find(needle); at != std::string::npos;
           at = range.find(needle, at + 1)) {
        ++keys;
      }
      return keys;
    }
    return -1;
  }

  // The last lines of a member's log, for failure messages.
  std::string LogTail(int member, size_t bytes = 2000) const {
    std::ifstream in(LogPath(member));
    std::stringstream text;
    text << in.rdbuf();
    const std::string all = text.str();
    return all.size() > bytes ? all.substr(all.size() - bytes) : all;
  }

 private:
  struct Member {
    int client_port = 0;
    int peer_port = 0;
    pid_t pid = -1;
  };

  // The member's listening address: its host's, or loopback.
  std::string Address(int member) const {
    return options_.hosts ? options_.hosts->Address(Host(member)) : "127.0.0.1";
  }
  int Host(int member) const { return member % options_.hosts->size(); }

  std::string DataDir(int member) const { return dir_.path("m" + std::to_string(member)); }
  std::string LogPath(int member) const { return dir_.path("m" + std::to_string(member) + ".log"); }

  void StartAll() {
    if (secured() && !pki_) {
      pki_ = std::make_unique<EtcdTestPki>(dir_.path("pki"));
      for (const char* user : {"root", kWriter, kReader, kOtherWriter, "anonymous"}) {
        pki_->MakeClient(user, user);
      }
    }
    members_.assign(options_.members, Member{});
    const std::vector<int> ports = FreePorts(2 * options_.members);
    for (int i = 0; i < size(); ++i) {
      members_[i].client_port = ports[2 * i];
      members_[i].peer_port = ports[2 * i + 1];
    }
    for (int i = 0; i < size(); ++i) Spawn(i, /*existing=*/false);
    if (!WaitHealthy(options_.start_timeout)) {
      std::string logs;
      for (int i = 0; i < size(); ++i)
        logs += "\n--- member " + std::to_string(i) + ":\n" + LogTail(i);
      throw std::runtime_error("etcd cluster not healthy within " +
                               std::to_string(options_.start_timeout.count()) + " ms" + logs);
    }
    if (secured()) EnableAuth();
  }

  // Users, roles and etcd's auth, as an operator of a secured cluster sets
  // them up.
  void EnableAuth() {
    const std::string& prefix = *options_.secured_prefix;
    EtcdCtl("user add root:" + Password("root"), "user add root");
    for (const char* user : {kWriter, kReader, kOtherWriter}) {
      EtcdCtl(std::string("user add ") + user + ":" + Password(user),
              std::string("user add ") + user);
      EtcdCtl(std::string("role add ") + user);
      EtcdCtl(std::string("user grant-role ") + user + " " + user);
    }
    EtcdCtl(std::string("role grant-permission --prefix=true ") + kWriter + " readwrite " + prefix);
    EtcdCtl(std::string("role grant-permission --prefix=true ") + kReader + " read " + prefix);
    EtcdCtl(std::string("role grant-permission --prefix=true ") + kOtherWriter + " readwrite " +
            kOtherPrefix);
    EtcdCtl("auth enable");
  }

  void StopAll() {
    for (int i = 0; i < size(); ++i) Kill(i);
    for (int i = 0; i < size(); ++i) {
      std::error_code ignored;
      std::filesystem::remove_all(DataDir(i), ignored);
    }
  }

  void Spawn(int member, bool existing) {
    const auto& m = members_[member];
    std::string cluster;
    for (int i = 0; i < size(); ++i) {
      cluster += (i ? "," : "") + std::string("m") + std::to_string(i) + "=" +
                 (secured() ? "https" : "http") + "://" + Address(i) + ":" +
                 std::to_string(members_[i].peer_port);
    }
    const std::string scheme = secured() ? "https" : "http";
    const std::string client = scheme + "://" + Endpoint(member);
    const std::string peer = scheme + "://" + Address(member) + ":" + std::to_string(m.peer_port);
    std::vector<std::string> args = {
        "etcd",
        "--name=m" + std::to_string(member),
        "--data-dir=" + DataDir(member),
        "--listen-client-urls=" + client,
        "--advertise-client-urls=" + client,
        "--listen-peer-urls=" + peer,
        "--initial-advertise-peer-urls=" + peer,
        "--initial-cluster=" + cluster,
        "--initial-cluster-token=moraine-test",
        std::string("--initial-cluster-state=") + (existing ? "existing" : "new"),
        "--logger=zap",
        "--log-level=warn",
    };
    if (secured()) {
      const std::string cert = pki_->CertFile("member"), key = pki_->KeyFile("member");
      for (std::string flag :
           {"--cert-file=" + cert, "--key-file=" + key, "--trusted-ca-file=" + pki_->CaFile(),
            std::string("--client-cert-auth"), "--peer-cert-file=" + cert, "--peer-key-file=" + key,
            "--peer-trusted-ca-file=" + pki_->CaFile(), std::string("--peer-client-cert-auth")}) {
        args.push_back(flag);
      }
    }
    args.insert(args.end(), options_.flags.begin(), options_.flags.end());
    const std::string log = LogPath(member);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      // The child: its own process group (so a kill takes everything it
      // starts), dead with its parent, output to its log.
      ::setpgid(0, 0);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      if (options_.hosts && !options_.hosts->Enter(Host(member))) ::_exit(126);
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      const int null = ::open("/dev/null", O_RDONLY);
      if (out >= 0) {
        ::dup2(out, 1);
        ::dup2(out, 2);
      }
      if (null >= 0) ::dup2(null, 0);
      std::vector<char*> argv;
      for (auto& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      ::execvp("etcd", argv.data());
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // also from the parent, so a kill right away finds the group
    members_[member].pid = pid;
  }

  // Ports the kernel hands out for port 0, held open together so that they
  // differ, then released for etcd to bind.
  static std::vector<int> FreePorts(int count) {
    std::vector<int> sockets, ports;
    for (int i = 0; i < count; ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      address.sin_port = 0;
      socklen_t length = sizeof(address);
      if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
          ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        throw std::runtime_error("no free loopback port");
      }
      sockets.push_back(fd);
      ports.push_back(ntohs(address.sin_port));
    }
    for (int fd : sockets) ::close(fd);
    return ports;
  }

  // One HTTP/1.0 request to a member's client port (etcd serves /health and
  // a JSON gateway to its gRPC API there); "" if it does not answer in 1 s.
  std::string Http(int member, const std::string& method, const std::string& path,
                   const std::string& body = "") const {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return "";
    timeval timeout{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    ::inet_pton(AF_INET, Address(member).c_str(), &address.sin_addr);
    address.sin_port = htons(static_cast<uint16_t>(members_[member].client_port));
    std::string response;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
      const std::string request =
          method + " " + path + " HTTP/1.0\r\nHost: " + Address(member) + "\r\n" +
          "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
          "\r\n\r\n" + body;
      if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
        char buffer[4096];
        ssize_t n;
        while ((n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) response.append(buffer, n);
      }
    }
    ::close(fd);
    return response;
  }

  // etcdctl as root against member `member` alone.
  ProcessResult MemberCtl(int member, const std::string& arguments) const {
    std::string command =
        "ETCDCTL_API=3 etcdctl --command-timeout=1s --dial-timeout=1s "
        "--endpoints=" +
        std::string(secured() ? "https" : "http") + "://" + Endpoint(member);
    if (secured()) {
      command += " --cacert=" + pki_->CaFile() + " --cert=" + pki_->CertFile("root") +
                 " --key=" + pki_->KeyFile("root");
    }
    return RunCommand(command + " " + arguments + " 2>/dev/null");
  }

  // A member's status (member id, leader, header revision): from etcd's JSON
  // gateway, or from etcdctl on a secured cluster, whose gateway ignores
  // client certificates.
  std::string MemberStatus(int member) const {
    if (!secured()) return Http(member, "POST", "/v3/maintenance/status", "{}");
    return MemberCtl(member, "endpoint status -w json").output;
  }

  // The value of "name":"..." or "name":123 in a flat JSON text, or "".
  static std::string JsonString(const std::string& json, const std::string& name) {
    const std::string needle = "\"" + name + "\":";
    const size_t at = json.find(needle);
    if (at == std::string::npos) return "";
    size_t begin = at + needle.size();
    if (begin < json.size() && json[begin] == '"') {
      ++begin;
      return json.substr(begin, json.find('"', begin) - begin);
    }
    return json.substr(begin, json.find_first_not_of("0123456789", begin) - begin);
  }

  Options options_;
  TempDir dir_;
  std::unique_ptr<EtcdTestPki> pki_;  // secured clusters only
  std::vector<Member> members_;
};

inline std::optional<std::string> EtcdUnavailableReason() {
  if (std::system("command -v etcd >/dev/null 2>&1") != 0) {
    return "etcd is not installed (scripts/setup.sh installs Debian's etcd-server)";
  }
  return std::nullopt;
}

}  // namespace moraine::test
