#include "util/directory_sync.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace moraine::util {

int SyncDirectory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return errno;
  const int synced = ::fsync(fd);
  const int error = synced == 0 ? 0 : errno;
  ::close(fd);
  return error;
}

}  // namespace moraine::util
