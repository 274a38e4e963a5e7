#include "sim/drivers/warp_stillness.h"

#include <dirent.h>

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

// One thread's state and runs; false if it is gone.
bool look_at(pid_t pid, pid_t tid, ThreadLook& out) {
  const std::string task = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid);
  const std::string stat = read_proc_file(task + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return false;
  unsigned long long run_ns = 0, wait_ns = 0, runs = 0;
  if (std::sscanf(read_proc_file(task + "/schedstat").c_str(), "%llu %llu %llu", &run_ns, &wait_ns, &runs) != 3)
    return false;
  out = {pid, tid, stat[close + 2], runs};
  return true;
}

void look_at_tree(pid_t pid, std::vector<ThreadLook>& out) {
  for (pid_t tid : tasks_of(pid)) {
    ThreadLook look;
    if (look_at(pid, tid, look)) out.push_back(look);
    const std::string children =
        read_proc_file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/children");
    for (pid_t child : numbers(children)) look_at_tree(child, out);
  }
}

bool asleep(char state) {
  return state == 'S' || state == 'T' || state == 't' || state == 'Z' || state == 'X' || state == 'I';
}

}  // namespace

std::vector<ThreadLook> look_below(pid_t root) {
  std::vector<ThreadLook> out;
  for (pid_t tid : tasks_of(root))
    for (pid_t child : numbers(read_proc_file("/proc/" + std::to_string(root) + "/task/" + std::to_string(tid) + "/children")))
      look_at_tree(child, out);
  return out;
}

bool all_asleep(const std::vector<ThreadLook>& look) {
  for (const ThreadLook& t : look)
    if (!asleep(t.state)) return false;
  return true;
}

bool still_below(pid_t root, ThreadLook* busy) {
  const auto say = [busy](const std::vector<ThreadLook>& look) {
    for (const ThreadLook& t : look)
      if (!asleep(t.state)) {
        if (busy) *busy = t;
        return;
      }
    if (busy && !look.empty()) *busy = look.front();
  };
  const std::vector<ThreadLook> first = look_below(root);
  if (!all_asleep(first)) {
    say(first);
    return false;
  }
  const std::vector<ThreadLook> second = look_below(root);
  if (first == second) return true;
  say(second);
  return false;
}

}  // namespace semsim
