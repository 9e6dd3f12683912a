#include "store/etcd/etcd_security.h"

#include <cctype>
#include <cstdlib>
#include <functional>

#include "store/error.h"

namespace moraine::store {
EtcdSecurity EtcdSecurity::FromSettings(
    const std::function<std::string(std::string_view name)>& setting) {
  EtcdSecurity security;
  std::string* fields[] = {&security.ca_file,     &security.cert_file, &security.key_file,
                           &security.server_name, &security.user,      &security.password};
  for (size_t i = 0; i < kSettingNames.size(); ++i) *fields[i] = setting(kSettingNames[i]);
  return security;
}

EtcdSecurity EtcdSecurity::FromEnvironment() {
  return FromSettings([](std::string_view name) {
    std::string variable = "MORAINE_ETCD_";
    for (char c : name) variable += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const char* value = std::getenv(variable.c_str());
    return value ? std::string(value) : std::string();
  });
}

void EtcdSecurity::Check(bool tls, const std::string& display_location) const {
  const std::string where = " for the etcd cluster at " + display_location;
  if (cert_file.empty() != key_file.empty()) {
    throw InvalidArgumentError("a client certificate needs both its CERT_FILE and its KEY_FILE" +
                               where);
  }
  if (!password.empty() && user.empty()) {
    throw InvalidArgumentError("a PASSWORD was given without a USER" + where);
  }
  if (!tls && uses_tls_material()) {
    throw InvalidArgumentError(
        "TLS settings (CA_FILE, CERT_FILE, KEY_FILE, SERVER_NAME) were "
        "given" +
        where + ", which is plain etcd://; write etcds:// to use TLS");
  }
}

std::string EtcdSecurity::Identity() const {
  // A digest, not the fields: the identity is a map key, and a key may end up
  // in a debugger or a core file more easily than a field does.
  const std::string all = ca_file + '\0' + cert_file + '\0' + key_file + '\0' + server_name + '\0' +
                          user + '\0' + password;
  return user + "#" + std::to_string(std::hash<std::string>{}(all));
}

}  // namespace moraine::store
