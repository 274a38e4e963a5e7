#include "sim/run/contained_paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace semsim {

namespace fs = std::filesystem;

namespace {

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// Throws when `p` exists and is a symbolic link.
void no_link(const fs::path& p) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(p, ec)))
    throw std::invalid_argument(quoted(p) + " is a symbolic link: merge follows none (it reads only regular files "
                                "inside the shards given, and writes only inside --out)");
}

// A file descriptor closed when it goes.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void failed(const std::string& what, const fs::path& p) {
  throw std::invalid_argument("cannot " + what + " " + quoted(p) + ": " + std::strerror(errno));
}

// The folder of root / relative (the folders between, made when `make`), opened one segment at a
// time below root with O_NOFOLLOW: a folder swapped for a link after the checks is refused by the
// kernel, not followed, so no path check can be raced.
Fd folder_of(const fs::path& root, const fs::path& relative, bool make) {
  Fd dir{::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd < 0) failed("open", root);
  fs::path at = root;
  for (auto segment = relative.begin(); std::next(segment) != relative.end(); ++segment) {
    at /= *segment;
    if (make && ::mkdirat(dir.fd, segment->c_str(), 0755) != 0 && errno != EEXIST) failed("make", at);
    Fd next{::openat(dir.fd, segment->c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
    if (next.fd < 0 && (errno == ELOOP || errno == ENOTDIR)) no_link(at);
    if (next.fd < 0) failed("open", at);
    dir = std::move(next);
  }
  return dir;
}

}  // namespace

fs::path relative_path(const std::string& value, const std::string& where) {
  const auto refuse = [&](const std::string& why) {
    throw std::invalid_argument(where + " = " + value + ": " + why + " (a path inside the shard's folder)");
  };
  if (value.empty()) refuse("empty");
  const fs::path p(value);
  if (p.is_absolute() || p.has_root_path()) refuse("an absolute path");
  for (const fs::path& segment : p)
    if (segment.empty() || segment == "." || segment == "..") refuse("a `" + segment.string() + "` segment");
  // Normalised it must be itself, as text (paths compare segment by segment: a//b equals a/b).
  if (p.lexically_normal().string() != value) refuse("not a normal path");
  return p;
}

fs::path inside(const fs::path& root, const fs::path& relative) {
  fs::path at = root;
  for (const fs::path& segment : relative) {
    at /= segment;
    no_link(at);
  }
  return at;
}

fs::path regular_file_inside(const fs::path& root, const fs::path& relative) {
  const fs::path p = inside(root, relative);
  std::error_code ec;
  const fs::file_status s = fs::symlink_status(p, ec);
  if (!fs::exists(s)) throw std::invalid_argument(quoted(p) + ": missing");
  if (!fs::is_regular_file(s)) throw std::invalid_argument(quoted(p) + ": not a regular file (merge reads no other)");
  return p;
}

std::vector<fs::path> files_of_folder(const fs::path& root, const fs::path& folder) {
  const fs::path top = inside(root, folder);
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(top, ec))) throw std::invalid_argument(quoted(top) + ": not a folder");
  std::vector<fs::path> files;
  // The iterator follows no directory symlink; every entry's own status is looked at, not its target's.
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(top)) {
    const fs::file_status s = e.symlink_status();
    if (fs::is_symlink(s)) no_link(e.path());
    if (fs::is_regular_file(s)) files.push_back(folder / e.path().lexically_relative(top));
    else if (!fs::is_directory(s))
      throw std::invalid_argument(quoted(e.path()) + ": neither a folder nor a regular file (merge copies no other)");
  }
  std::sort(files.begin(), files.end());
  return files;
}

void copy_inside(const fs::path& from_root, const fs::path& to_root, const fs::path& relative) {
  const fs::path from = regular_file_inside(from_root, relative);
  // Every folder between to_root and the file: made here if missing, never a link.
  fs::path at = to_root;
  for (auto segment = relative.begin(); std::next(segment) != relative.end(); ++segment) {
    at /= *segment;
    no_link(at);
    fs::create_directory(at);
  }
  const fs::path to = inside(to_root, relative);
  // Opened through folders opened without following links, the file itself with O_NOFOLLOW: a link
  // swapped in anywhere since the checks above is refused, not followed.
  const std::string name = relative.filename().string();
  const Fd from_folder = folder_of(from_root, relative, false), to_folder = folder_of(to_root, relative, true);
  const Fd in{::openat(from_folder.fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)};
  if (in.fd < 0) failed("read", from);
  struct stat st {};
  if (::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode)) throw std::invalid_argument(quoted(from) + ": not a regular file");
  const Fd out{::openat(to_folder.fd, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)};
  if (out.fd < 0) failed("write", to);
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(in.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) failed("read", from);
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(out.fd, buffer + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) failed("write", to);
      done += w;
    }
  }
}

}  // namespace semsim
