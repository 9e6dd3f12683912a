// moraine on a secured etcd cluster (TLS on client and peer ports,
// --client-cert-auth, etcd's auth with lake_writer, lake_reader and
// other_writer roles: support/etcd_cluster.h). Every refusal is a typed,
// one-sentence error without the password, and writes nothing: the lake's
// whole prefix reads the same before and after. Credentials reach the store
// explicitly here (KvOptions::etcd_security) or through a moraine_etcd
// secret in DuckDB, never through the environment, which the test clears.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "store/error.h"
#include "store/etcd/etcd_security.h"
#include "store/etcd/etcd_store.h"
#include "store/key.h"
#include "store/kv_store.h"
#include "store/write_batch.h"
#include "support/ducklake_session.h"
#include "support/etcd_cluster.h"
#include "support/temp_dir.h"

namespace moraine::test {
namespace {

constexpr const char* kLakes = "sec-";

class EtcdSecurityTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    EtcdCluster::ActAsNobody();
    if (EtcdUnavailableReason() || cluster_) return;
    // Tokens expire after a second unused (etcd's default is five minutes),
    // so a handle's token is renewed within a test. Requests as large as the
    // README advises: the probe of that limit once ranged over a key outside
    // the lake's prefix, which a role scoped to it may not read.
    cluster_ = new EtcdCluster(EtcdCluster::Options{
        .flags = {"--auth-token-ttl=1", "--max-request-bytes=33554432"}, .secured_prefix = kLakes});
    auto& pki = const_cast<EtcdTestPki&>(cluster_->Pki());
    pki.MakeUntrustedClient("untrusted", EtcdCluster::kWriter);
    pki.MakeExpiredClient("expired", EtcdCluster::kWriter);
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    if (auto reason = EtcdUnavailableReason()) GTEST_SKIP() << *reason;
    ASSERT_TRUE(cluster_->WaitHealthy(std::chrono::seconds(20)));
    static std::atomic<int> counter{0};
    prefix_ = std::string(kLakes) + std::to_string(::getpid()) + "-" + std::to_string(++counter);
  }

  const EtcdTestPki& pki() const { return cluster_->Pki(); }
  std::string Location() const { return cluster_->Location(prefix_); }

  // A user known by a password, over TLS with the anonymous certificate.
  store::EtcdSecurity ByPassword(const std::string& user, const std::string& password) const {
    store::EtcdSecurity security = ByCertificate("anonymous");
    security.user = user;
    security.password = password;
    return security;
  }
  // A user known by its client certificate `name`.
  store::EtcdSecurity ByCertificate(const std::string& name) const {
    store::EtcdSecurity security;
    security.ca_file = pki().CaFile();
    security.cert_file = pki().CertFile(name);
    security.key_file = pki().KeyFile(name);
    return security;
  }

  std::unique_ptr<store::KvStore> Open(const store::EtcdSecurity& security, bool read_only = false,
                                       std::string location = "") const {
    return store::OpenKvStore({.location = location.empty() ? Location() : location,
                               .read_only = read_only,
                               .etcd_security = security});
  }

  // A lake with one commit, written by lake_writer.
  void MakeLake() const {
    auto store = Open(ByCertificate(EtcdCluster::kWriter));
    store::WriteBatch batch;
    batch.Put(store::Key::Current(store::Kind::kTable, {1}).Encode(), "one");
    store->Write(batch);
  }

  // Everything under the lake's prefix, keys and values, as root reads it.
  std::string WholePrefix() const { return cluster_->EtcdCtl("get --prefix " + prefix_ + "/"); }

  // Runs `open`, which must throw `Expected`; returns its message after
  // checking that it is one sentence without the password and that the
  // prefix is unchanged.
  template <typename Expected, typename Open>
  std::string Refused(Open open, const std::string& password = "") {
    const std::string before = WholePrefix();
    std::string message;
    try {
      open();
      ADD_FAILURE() << "not refused";
    } catch (const Expected& error) {
      message = error.what();
    } catch (const std::exception& error) {
      ADD_FAILURE() << "refused with another type: " << error.what();
    }
    EXPECT_EQ(WholePrefix(), before) << "a refused handle changed the lake";
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    if (!password.empty()) {
      EXPECT_EQ(message.find(password), std::string::npos) << message;
    }
    return message;
  }

  static inline EtcdCluster* cluster_ = nullptr;
  std::string prefix_;
};

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(EtcdSecurityTest, AWriterKnownByCertificateOrPasswordWritesAndAReaderReads) {
  MakeLake();
  {
    auto store =
        Open(ByPassword(EtcdCluster::kWriter, EtcdCluster::Password(EtcdCluster::kWriter)));
    store::WriteBatch batch;
    batch.Put(store::Key::Current(store::Kind::kTable, {2}).Encode(), "two");
    store->Write(batch);
  }
  for (const auto& reader :
       {ByCertificate(EtcdCluster::kReader),
        ByPassword(EtcdCluster::kReader, EtcdCluster::Password(EtcdCluster::kReader))}) {
    auto store = Open(reader, /*read_only=*/true);
    auto snapshot = store->GetSnapshot();
    EXPECT_EQ(snapshot->Get(store::Key::Current(store::Kind::kTable, {1}).Encode()), "one");
    EXPECT_EQ(snapshot->Get(store::Key::Current(store::Kind::kTable, {2}).Encode()), "two");
  }
}

TEST_F(EtcdSecurityTest, AnExpiredTokenIsTakenAgain) {
  MakeLake();
  auto store = Open(ByPassword(EtcdCluster::kWriter, EtcdCluster::Password(EtcdCluster::kWriter)));
  for (uint64_t round = 0; round < 2; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // the token has expired
    store::WriteBatch batch;
    batch.Put(store::Key::Current(store::Kind::kTable, {10 + round}).Encode(), "later");
    ASSERT_NO_THROW(store->Write(batch));
    EXPECT_EQ(
        store->GetSnapshot()->Get(store::Key::Current(store::Kind::kTable, {10 + round}).Encode()),
        "later");
  }
}

TEST_F(EtcdSecurityTest, AWrongPasswordIsRefused) {
  MakeLake();
  const std::string message = Refused<store::AccessDeniedError>(
      [&] { Open(ByPassword(EtcdCluster::kWriter, "not-the-password-123")); },
      "not-the-password-123");
  EXPECT_TRUE(Has(message, "wrong user name or password")) << message;
  EXPECT_TRUE(Has(message, "lake_writer")) << message;
}

TEST_F(EtcdSecurityTest, AMemberCertificateFromAnotherCaIsNotTrusted) {
  MakeLake();
  auto security = ByCertificate(EtcdCluster::kWriter);
  security.ca_file = pki().Path("other-ca.pem");
  const std::string message = Refused<store::AccessDeniedError>([&] { Open(security); });
  EXPECT_TRUE(Has(message, "not trusted")) << message;
}

TEST_F(EtcdSecurityTest, AnUntrustedOrExpiredClientCertificateIsRefused) {
  MakeLake();
  for (const char* name : {"untrusted", "expired"}) {
    const std::string message =
        Refused<store::AccessDeniedError>([&] { Open(ByCertificate(name)); });
    EXPECT_TRUE(Has(message, "TLS")) << name << ": " << message;
  }
}

// Endpoints by IP address, the members' certificate checked against another
// name it carries (localhost), or against one it does not.
TEST_F(EtcdSecurityTest, AServerNameOverridesTheNameTheCertificateMustCarry) {
  MakeLake();
  auto security = ByCertificate(EtcdCluster::kWriter);
  security.server_name = "localhost";
  EXPECT_EQ(
      store::GetLatest(*Open(security), store::Key::Current(store::Kind::kTable, {1}).Encode()),
      "one");
  security.server_name = "not-the-member.example";
  const std::string message = Refused<store::AccessDeniedError>([&] { Open(security); });
  EXPECT_TRUE(Has(message, "not trusted")) << message;
}

TEST_F(EtcdSecurityTest, AReaderThatWritesIsRefusedNamingThePermission) {
  MakeLake();
  const std::string message =
      Refused<store::AccessDeniedError>([&] { Open(ByCertificate(EtcdCluster::kReader)); });
  EXPECT_TRUE(Has(message, "may not write")) << message;
  EXPECT_TRUE(Has(message, "'" + prefix_ + "/'")) << message;
}

TEST_F(EtcdSecurityTest, ARoleScopedToAnotherPrefixIsRefused) {
  MakeLake();
  const std::string message = Refused<store::AccessDeniedError>(
      [&] { Open(ByCertificate(EtcdCluster::kOtherWriter), /*read_only=*/true); });
  EXPECT_TRUE(Has(message, "may not read")) << message;
  EXPECT_TRUE(Has(message, "'" + prefix_ + "/'")) << message;
  EXPECT_TRUE(Has(message, pki().CertFile(EtcdCluster::kOtherWriter))) << message;
}

TEST_F(EtcdSecurityTest, APlaintextClientAgainstTheTlsClusterIsRefused) {
  MakeLake();
  std::string plain = Location();
  plain.replace(0, std::string("etcds://").size(), "etcd://");
  const std::string message =
      Refused<store::Error>([&] { Open(store::EtcdSecurity{}, false, plain); });
  EXPECT_TRUE(Has(message, "etcds://")) << message;
}

TEST_F(EtcdSecurityTest, TlsSettingsOnAPlainLocationAreABadArgument) {
  std::string plain = Location();
  plain.replace(0, std::string("etcds://").size(), "etcd://");
  EXPECT_THROW(Open(ByCertificate(EtcdCluster::kWriter), false, plain),
               store::InvalidArgumentError);
  store::EtcdSecurity half = ByCertificate(EtcdCluster::kWriter);
  half.key_file.clear();
  EXPECT_THROW(Open(half), store::InvalidArgumentError);
}

class EtcdSecretTest : public EtcdSecurityTest {
 protected:
  std::string Endpoints() const { return cluster_->Endpoints(); }
  std::string Secret(const std::string& user, const std::string& password) const {
    return "CREATE SECRET (TYPE moraine_etcd, ENDPOINTS '" + Endpoints() + "', CA_FILE '" +
           pki().CaFile() + "', CERT_FILE '" + pki().CertFile("anonymous") + "', KEY_FILE '" +
           pki().KeyFile("anonymous") + "', USER '" + user + "', PASSWORD '" + password + "')";
  }
  std::string Attach(const std::string& options = "") const {
    return "ATTACH 'ducklake:moraine:" + Location() + "' AS lake (DATA_PATH '" +
           files_.path("files") + "'" + options + ")";
  }
  TempDir files_;
};

TEST_F(EtcdSecretTest, ASecretCarriesTheCredentialsAndNeverShowsThePassword) {
  const std::string password = EtcdCluster::Password(EtcdCluster::kWriter);
  {
    DuckLakeSession session;
    session.Run(Secret(EtcdCluster::kWriter, password));
    const auto shown = session.Query("SELECT secret_string FROM duckdb_secrets()");
    ASSERT_EQ(shown.size(), 1u);
    EXPECT_FALSE(Has(shown[0][0], password)) << shown[0][0];
    session.Run(Attach());
    session.Run("CREATE TABLE lake.t (id INTEGER, v VARCHAR)");
    session.Run("INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')");
    EXPECT_EQ(session.Query("SELECT count(*) FROM lake.t"), (Rows{{"2"}}));
  }
  // The reader attaches READ_ONLY and reads; its write is refused.
  DuckLakeSession reader;
  reader.Run(Secret(EtcdCluster::kReader, EtcdCluster::Password(EtcdCluster::kReader)));
  reader.Run(Attach(", READ_ONLY"));
  EXPECT_EQ(reader.Query("SELECT id, v FROM lake.t ORDER BY id"), (Rows{{"1", "a"}, {"2", "b"}}));
}

TEST_F(EtcdSecretTest, AWrongPasswordInASecretFailsTheAttachWithoutShowingIt) {
  DuckLakeSession session;
  session.Run(Secret(EtcdCluster::kWriter, "wrong-secret-pw-77"));
  const std::string error = session.Error(Attach());
  EXPECT_TRUE(Has(error, "wrong user name or password")) << error;
  EXPECT_FALSE(Has(error, "wrong-secret-pw-77")) << error;
}

// A further METADATA_SCHEMA's catalog lives under the lake's prefix, so the
// lake_writer role, scoped to that prefix, creates and reads it.
TEST_F(EtcdSecretTest, ANestedCatalogLivesUnderTheLakesPrefix) {
  DuckLakeSession session;
  session.Run(Secret(EtcdCluster::kWriter, EtcdCluster::Password(EtcdCluster::kWriter)));
  session.Run(Attach(", METADATA_SCHEMA 'first'"));
  session.Run("CREATE TABLE lake.t (id INTEGER)");
  session.Run("DETACH lake");
  session.Run(Attach(", METADATA_SCHEMA 'second'"));
  session.Run("CREATE TABLE lake.n (id INTEGER)");
  session.Run("INSERT INTO lake.n VALUES (7)");
  EXPECT_EQ(session.Query("SELECT id FROM lake.n"), (Rows{{"7"}}));
  EXPECT_TRUE(Has(cluster_->EtcdCtl("get --prefix --keys-only " + prefix_ + "/s/second/"),
                  prefix_ + "/s/second/"));
}

}  // namespace
}  // namespace moraine::test
