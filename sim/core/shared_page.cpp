#include "sim/core/shared_page.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace semsim {

void* create_shared_page(const std::filesystem::path& path, const void* initial, std::size_t size) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
  const bool written = ::write(fd, initial, size) == static_cast<ssize_t>(size);
  void* p = written ? ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  ::close(fd);
  if (p == MAP_FAILED) throw std::runtime_error("cannot map " + path.string() + ": " + std::strerror(errno));
  return p;
}

}  // namespace semsim
