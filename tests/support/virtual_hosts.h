// Hosts of one machine for tests and benchmarks that must cross a network:
// each host a Linux network namespace with its own loopback and one veth link
// to a bridge in this process's namespace (the "router"), on a private /28
// subnet that reaches no other network. A process started in a host (Prefix
// for a shell command, Enter in a forked child) has that host's address and
// port space, and reaches the other hosts and the router only over the links.
//
// Needs root and iproute2 (`ip netns`, veth, bridge): UnavailableReason says
// why not. Names carry the creating process's id, so hosts left by a killed
// run are swept by the next construction (their process is gone).
//
// Not thread-safe: construct and destroy from one thread; the accessors are
// const and may be read from any thread.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/run_process.h"

namespace moraine::test {

class VirtualHosts {
 public:
  // At most 13 hosts (a /28 holds the router and 13 hosts).
  static constexpr int kMaxHosts = 13;

  // Says why no virtual host can be made here, or nothing if one can: it
  // makes one (a namespace, a bridge, a veth link) and removes it again.
  static std::optional<std::string> UnavailableReason() {
    if (::geteuid() != 0) return "virtual hosts need root (network namespaces)";
    if (std::system("command -v ip >/dev/null 2>&1") != 0) {
      return "virtual hosts need iproute2's ip (scripts/setup.sh installs it)";
    }
    try {
      VirtualHosts probe(1);
    } catch (const std::runtime_error& error) {
      return std::string("cannot make a virtual host here: ") + error.what();
    }
    return std::nullopt;
  }

  // Makes `count` hosts; throws std::runtime_error (having removed what it
  // made) if a step fails.
  explicit VirtualHosts(int count) {
    if (count < 1 || count > kMaxHosts) {
      throw std::invalid_argument("VirtualHosts: 1 to 13 hosts, not " + std::to_string(count));
    }
    SweepStale();
    static int instances = 0;
    const int instance = instances++ % 16;
    const int pid = ::getpid();
    std::ostringstream stem;
    stem << std::hex << pid << "-" << instance;
    bridge_ = "mrb" + stem.str();
    // 10.(64 + pid/256 % 128).(pid % 256).(16 * instance + k)/28: distinct for
    // the instances of processes whose ids differ modulo 32768 (a machine's
    // default pid_max), each /28 its own route.
    subnet_ = "10." + std::to_string(64 + (pid >> 8) % 128) + "." + std::to_string(pid & 255) + ".";
    base_ = 16 * instance;
    try {
      Ip("link add " + bridge_ + " type bridge");
      Ip("addr add " + RouterAddress() + "/28 dev " + bridge_);
      Ip("link set " + bridge_ + " up");
      for (int i = 0; i < count; ++i) {
        const std::string ns = "moraine-" + std::to_string(pid) + "-" + std::to_string(instance) +
                               "-" + std::to_string(i);
        Ip("netns add " + ns);
        namespaces_.push_back(ns);
        paths_.push_back("/run/netns/" + ns);
        const std::string link = "mrv" + stem.str() + "-" + std::to_string(i);
        Ip("link add " + link + " type veth peer name eth0 netns " + ns);
        Ip("link set " + link + " master " + bridge_ + " up");
        Ip("-n " + ns + " addr add " + Address(i) + "/28 dev eth0");
        Ip("-n " + ns + " link set eth0 up");
        Ip("-n " + ns + " link set lo up");
      }
    } catch (...) {
      Remove();
      throw;
    }
  }
  ~VirtualHosts() { Remove(); }
  VirtualHosts(const VirtualHosts&) = delete;
  VirtualHosts& operator=(const VirtualHosts&) = delete;

  int size() const { return static_cast<int>(namespaces_.size()); }
  // Host `host`'s address on its link, e.g. "10.95.12.2".
  std::string Address(int host) const { return subnet_ + std::to_string(base_ + 2 + host); }
  // This process's namespace's address on the bridge, which every host reaches.
  std::string RouterAddress() const { return subnet_ + std::to_string(base_ + 1); }
  // The links' subnet, e.g. "10.95.12.0/28".
  std::string Subnet() const { return subnet_ + std::to_string(base_) + "/28"; }
  // The network namespace's name (see `ip netns`).
  const std::string& Namespace(int host) const { return namespaces_.at(host); }
  // Prepended to a shell command, runs it on the host.
  std::string Prefix(int host) const { return "ip netns exec " + Namespace(host) + " "; }

  // Moves the calling process (a forked child, before exec) onto the host;
  // false if the kernel refused. Allocates nothing: safe after fork.
  bool Enter(int host) const {
    const int fd = ::open(paths_[host].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool entered = ::setns(fd, CLONE_NEWNET) == 0;
    ::close(fd);
    return entered;
  }

 private:
  static void Ip(const std::string& arguments) {
    const ProcessResult result = RunCommand("ip " + arguments + " 2>&1");
    if (result.exit_code != 0) {
      throw std::runtime_error("ip " + arguments + " failed: " + result.output);
    }
  }

  // Deleting a namespace destroys its end of the veth and so the pair.
  void Remove() {
    for (const auto& ns : namespaces_) RunCommand("ip netns del " + ns + " 2>/dev/null");
    namespaces_.clear();
    paths_.clear();
    if (!bridge_.empty()) RunCommand("ip link del " + bridge_ + " 2>/dev/null");
    bridge_.clear();
  }

  static bool ProcessAlive(long pid) {
    return pid > 0 && std::filesystem::exists("/proc/" + std::to_string(pid));
  }

  // Namespaces moraine-<pid>-... and bridges mrb<hex pid>-... of processes
  // that are gone.
  static void SweepStale() {
    std::istringstream namespaces(RunCommand("ip netns list 2>/dev/null").output);
    for (std::string line; std::getline(namespaces, line);) {
      const std::string name = line.substr(0, line.find(' '));
      if (name.rfind("moraine-", 0) != 0) continue;
      const long pid = std::atol(name.c_str() + 8);
      if (pid > 0 && !ProcessAlive(pid)) RunCommand("ip netns del " + name + " 2>/dev/null");
    }
    std::istringstream bridges(RunCommand("ip -o link show type bridge 2>/dev/null").output);
    for (std::string line; std::getline(bridges, line);) {
      // "<index>: <name>: <flags> ..."
      const size_t begin = line.find(": ");
      if (begin == std::string::npos) continue;
      const std::string name = line.substr(begin + 2, line.find(':', begin + 2) - begin - 2);
      if (name.rfind("mrb", 0) != 0) continue;
      const long pid = std::strtol(name.c_str() + 3, nullptr, 16);
      if (pid > 0 && !ProcessAlive(pid)) RunCommand("ip link del " + name + " 2>/dev/null");
    }
  }

  std::string bridge_, subnet_;
  int base_ = 0;
  std::vector<std::string> namespaces_;
  std::vector<std::string> paths_;  // /run/netns/<namespace>, where `ip netns` keeps them
};

}  // namespace moraine::test
