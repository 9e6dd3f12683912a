// What moraine makes of etcd's refusals (etcd's fixed "etcdserver: ..."
// messages under their gRPC codes, and the channel's own TLS codes), and the
// checks of a handle's security settings before anything is sent.

#include <gtest/gtest.h>

#include "store/error.h"
#include "store/etcd/etcd_security.h"
#include "store/etcd/etcd_status.h"

namespace moraine::store {
namespace {

EtcdStatusKind Kind(EtcdRpcCode code, const std::string& message) {
  return ClassifyEtcdStatus(EtcdRpcStatus(code, message));
}

TEST(EtcdStatusKind, RefusalsOfCredentialsAndPermissionsAreAccessDenied) {
  EXPECT_EQ(Kind(EtcdRpcCode::kInvalidArgument,
                 "etcdserver: authentication failed, invalid user ID or password"),
            EtcdStatusKind::kAccessDenied);
  EXPECT_EQ(Kind(EtcdRpcCode::kInvalidArgument, "etcdserver: user name is empty"),
            EtcdStatusKind::kAccessDenied);
  EXPECT_EQ(Kind(EtcdRpcCode::kPermissionDenied, "etcdserver: permission denied"),
            EtcdStatusKind::kAccessDenied);
  EXPECT_EQ(Kind(EtcdRpcCode::kUnauthenticated,
                 "TLS: the certificate of etcd member a:1 is not "
                 "trusted (x)"),
            EtcdStatusKind::kAccessDenied);
  // Other invalid arguments stay what they were.
  EXPECT_EQ(Kind(EtcdRpcCode::kInvalidArgument, "etcdserver: too many operations in txn request"),
            EtcdStatusKind::kTooManyOps);
  EXPECT_EQ(Kind(EtcdRpcCode::kInvalidArgument, "etcdserver: key is not provided"),
            EtcdStatusKind::kOther);
}

TEST(EtcdStatusKind, AnUnknownTokenIsRenewedNotRefused) {
  EXPECT_EQ(Kind(EtcdRpcCode::kUnauthenticated, "etcdserver: invalid auth token"),
            EtcdStatusKind::kInvalidToken);
  EXPECT_EQ(Kind(EtcdRpcCode::kInvalidArgument, "etcdserver: invalid auth token"),
            EtcdStatusKind::kInvalidToken);
}

TEST(EtcdStatusKind, TheOtherProtocolIsItsOwnKind) {
  EXPECT_EQ(Kind(EtcdRpcCode::kFailedPrecondition, "protocol: etcd member a:1 speaks TLS only"),
            EtcdStatusKind::kWrongProtocol);
  EXPECT_EQ(Kind(EtcdRpcCode::kFailedPrecondition, "etcdserver: something else"),
            EtcdStatusKind::kOther);
}

TEST(EtcdSecurity, ContradictoryOrIncompleteSettingsAreRefused) {
  EtcdSecurity security;
  EXPECT_NO_THROW(security.Check(false, "etcd://a:1/p"));
  security.cert_file = "c.pem";
  EXPECT_THROW(security.Check(true, "etcds://a:1/p"), InvalidArgumentError);  // no key
  security.key_file = "k.pem";
  EXPECT_NO_THROW(security.Check(true, "etcds://a:1/p"));
  EXPECT_THROW(security.Check(false, "etcd://a:1/p"), InvalidArgumentError);  // TLS on etcd://
  EtcdSecurity password_only;
  password_only.password = "hunter2";
  try {
    password_only.Check(false, "etcd://a:1/p");
    FAIL() << "a password without a user was taken";
  } catch (const InvalidArgumentError& error) {
    EXPECT_EQ(std::string(error.what()).find("hunter2"), std::string::npos) << error.what();
  }
}

TEST(EtcdSecurity, IdentitiesTellCredentialsApartWithoutThePassword) {
  EtcdSecurity a;
  a.user = "lake_writer";
  a.password = "one-password";
  EtcdSecurity b = a;
  b.password = "another-password";
  EXPECT_NE(a.Identity(), b.Identity());
  EXPECT_EQ(a.Identity(), EtcdSecurity(a).Identity());
  EXPECT_EQ(a.Identity().find("one-password"), std::string::npos);
}

}  // namespace
}  // namespace moraine::store
