#include "sim/drivers/warp_stillness.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/drivers/driver_process.h"

namespace semsim {

namespace {

std::vector<pid_t> numbers(const std::string& text) {
  std::vector<pid_t> out;
  const char* p = text.c_str();
  for (char* end = nullptr;; p = end) {
    const long n = std::strtol(p, &end, 10);
    if (end == p) return out;
    out.push_back(static_cast<pid_t>(n));
  }
}

std::vector<pid_t> tasks_of(pid_t pid) {
  std::vector<pid_t> out;
  DIR* dir = ::opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
  if (!dir) return out;
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long tid = std::strtol(entry->d_name, &end, 10);
    if (end && !*end && tid > 0) out.push_back(static_cast<pid_t>(tid));
  }
  ::closedir(dir);
  return out;
}

std::string task_path(pid_t pid, pid_t tid) { return "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid); }

// What an open /proc file holds now ("" if its thread is gone).
std::string pread_all(int fd) {
  char buffer[1024];
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

bool asleep(char state) {
  return state == 'S' || state == 'T' || state == 't' || state == 'Z' || state == 'X' || state == 'I';
}

}  // namespace

Stillness::~Stillness() {
  for (auto& [key, f] : files_)
    for (int fd : {f.stat, f.schedstat})
      if (fd >= 0) ::close(fd);
}

bool Stillness::read(ThreadLook& t) {
  auto found = files_.find({t.pid, t.tid});
  if (found == files_.end()) {
    const std::string path = task_path(t.pid, t.tid);
    Files f{::open((path + "/stat").c_str(), O_RDONLY | O_CLOEXEC), ::open((path + "/schedstat").c_str(), O_RDONLY | O_CLOEXEC)};
    found = files_.emplace(std::make_pair(t.pid, t.tid), f).first;
  }
  const Files& f = found->second;
  const std::string stat = f.stat >= 0 ? pread_all(f.stat) : std::string();
  const auto close = stat.rfind(')');
  unsigned long long run_ns = 0, wait_ns = 0, runs = 0;
  if (close == std::string::npos || close + 2 >= stat.size() || f.schedstat < 0 ||
      std::sscanf(pread_all(f.schedstat).c_str(), "%llu %llu %llu", &run_ns, &wait_ns, &runs) != 3) {
    for (int fd : {f.stat, f.schedstat})
      if (fd >= 0) ::close(fd);
    files_.erase(found);  // gone (its ids may come back as another's: opened again then)
    return false;
  }
  t.state = stat[close + 2];
  t.runs = runs;
  return true;
}

std::vector<ThreadLook> Stillness::list() {
  std::vector<ThreadLook> out;
  std::vector<pid_t> processes;
  for (pid_t tid : tasks_of(root_))
    for (pid_t child : numbers(read_proc_file(task_path(root_, tid) + "/children"))) processes.push_back(child);
  for (std::size_t i = 0; i < processes.size(); ++i) {
    const pid_t pid = processes[i];
    for (pid_t tid : tasks_of(pid)) {
      ThreadLook t{pid, tid};
      if (read(t)) out.push_back(t);
      for (pid_t child : numbers(read_proc_file(task_path(pid, tid) + "/children"))) processes.push_back(child);
    }
  }
  // The files of threads no longer there.
  for (auto it = files_.begin(); it != files_.end();) {
    const bool listed = std::any_of(out.begin(), out.end(), [&](const ThreadLook& t) { return it->first == std::make_pair(t.pid, t.tid); });
    if (listed) {
      ++it;
      continue;
    }
    for (int fd : {it->second.stat, it->second.schedstat})
      if (fd >= 0) ::close(fd);
    it = files_.erase(it);
  }
  return out;
}

bool Stillness::two_looks(std::vector<ThreadLook>& look, ThreadLook* busy) {
  const auto asleep_all = [busy](const std::vector<ThreadLook>& threads) {
    for (const ThreadLook& t : threads)
      if (!asleep(t.state)) {
        if (busy) *busy = t;
        return false;
      }
    return true;
  };
  look = list();
  if (!asleep_all(look)) return false;
  const std::vector<ThreadLook> again = list();
  if (!asleep_all(again)) return false;
  if (look == again) return true;
  if (busy && !again.empty()) *busy = again.front();
  return false;
}

bool Stillness::still(ThreadLook* busy) {
  std::vector<ThreadLook> look;
  if (!two_looks(look, busy)) return false;
  std::vector<pid_t> threads;
  for (const ThreadLook& t : look) threads.push_back(t.tid);
  if (threads != known_) {
    // New or gone processes: what forks and execs in a hurry is believed once it stays still.
    ::usleep(2000);
    std::vector<ThreadLook> later;
    if (!two_looks(later, busy) || later != look) return false;
    known_ = std::move(threads);
  }
  return true;
}

}  // namespace semsim
