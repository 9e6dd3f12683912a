// Certificates for a secured test etcd cluster, made with the openssl tool in
// a directory of the test's: a CA, a certificate for the members (both server
// and client use, for 127.0.0.1 and localhost, so peers verify each other),
// client certificates named by common name (etcd's --client-cert-auth takes
// the CN as the user), and for the refusal tests a second CA's client
// certificate and an expired one. EC P-256 keys: quick to make.
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "support/run_process.h"

namespace moraine::test {

class EtcdTestPki {
 public:
  // Makes the CA and the members' certificate in `directory` (created).
  explicit EtcdTestPki(std::string directory) : dir_(std::move(directory)) {
    std::filesystem::create_directories(dir_);
    MakeCa("ca");
    MakeLeaf("ca", "member", "member",
             "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
             "extendedKeyUsage=serverAuth,clientAuth\n");
  }

  std::string Path(const std::string& file) const { return dir_ + "/" + file; }
  std::string CaFile() const { return Path("ca.pem"); }
  std::string CertFile(const std::string& name) const { return Path(name + ".pem"); }
  std::string KeyFile(const std::string& name) const { return Path(name + "-key.pem"); }

  // A client certificate `name`.pem with common name `common_name`, signed
  // by the cluster's CA.
  void MakeClient(const std::string& name, const std::string& common_name) {
    MakeLeaf("ca", name, common_name, "extendedKeyUsage=clientAuth\n");
  }
  // The same signed by a CA the cluster does not trust.
  void MakeUntrustedClient(const std::string& name, const std::string& common_name) {
    if (!std::filesystem::exists(Path("other-ca.pem"))) MakeCa("other-ca");
    MakeLeaf("other-ca", name, common_name, "extendedKeyUsage=clientAuth\n");
  }
  // The same, signed by the cluster's CA but valid only on one day of 2020.
  void MakeExpiredClient(const std::string& name, const std::string& common_name) {
    Key(name);
    Run("openssl req -new -key " + KeyFile(name) + " -out " + Path(name + ".csr") +
        " -subj /CN=" + common_name);
    std::ofstream(Path("index.txt"), std::ios::app).flush();
    if (!std::filesystem::exists(Path("serial"))) std::ofstream(Path("serial")) << "1000\n";
    std::ofstream(Path("ca.cnf")) << "[ca]\ndefault_ca=d\n[d]\ndatabase=" << Path("index.txt")
                                  << "\nnew_certs_dir=" << dir_ << "\nserial=" << Path("serial")
                                  << "\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n"
                                  << "[ext]\nextendedKeyUsage=clientAuth\n";
    Run("openssl ca -batch -config " + Path("ca.cnf") + " -cert " + CaFile() + " -keyfile " +
        KeyFile("ca") + " -in " + Path(name + ".csr") + " -out " + CertFile(name) +
        " -startdate 20200101000000Z -enddate 20200102000000Z -extensions ext");
  }

 private:
  void Run(const std::string& command) const {
    const auto result = RunCommand(command + " 2>&1");
    if (result.exit_code != 0) {
      throw std::runtime_error("test PKI: `" + command + "` failed: " + result.output);
    }
  }
  void Key(const std::string& name) const {
    Run("openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out " + KeyFile(name));
  }
  void MakeCa(const std::string& name) const {
    Key(name);
    Run("openssl req -x509 -new -key " + KeyFile(name) + " -out " + CertFile(name) +
        " -days 3650 -subj /CN=moraine-test-" + name);
  }
  void MakeLeaf(const std::string& ca, const std::string& name, const std::string& common_name,
                const std::string& extensions) const {
    Key(name);
    Run("openssl req -new -key " + KeyFile(name) + " -out " + Path(name + ".csr") +
        " -subj /CN=" + common_name);
    std::ofstream(Path(name + ".ext")) << extensions;
    Run("openssl x509 -req -in " + Path(name + ".csr") + " -CA " + CertFile(ca) + " -CAkey " +
        KeyFile(ca) + " -CAcreateserial -out " + CertFile(name) + " -days 365 -extfile " +
        Path(name + ".ext"));
  }

  std::string dir_;
};

}  // namespace moraine::test
