#include "reports/history/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace semsim {

namespace {
[[noreturn]] void fail(const std::string& path, int error) {
  throw OutputError("cannot write " + path + ": " + std::strerror(error));
}
}  // namespace

void write_output_file(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : ENOSPC;
      ::close(fd);
      fail(path, error);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && errno != EINTR) fail(path, errno);  // NFS and quotas report here
}

void check_written(std::ostream& out, const std::string& path) {
  errno = 0;
  if (!out.flush())
    throw OutputError("cannot write " + path + ": " + (errno ? std::strerror(errno) : "an earlier write failed"));
}

}  // namespace semsim
