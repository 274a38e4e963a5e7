// Warp: a driver run in virtual time (--mode virtual; docs/drivers.md, warp). The plan, the
// protocol and the faults are driver_run.cpp's and driver_plan.cpp's; what differs is the clock.
//
// Every driver process reads the virtual clock (the client clock library, in warp mode), and its
// timed waits say in the clock page until when they wait. The loop: let the drivers run until every
// thread of every one of them sleeps (settle: warp_stillness.h); read what they said and sent; move
// the clock to the earliest instant anything is due (a step of the plan, a piece of data on a link,
// a thread's deadline) and do that one thing (write a command, deliver the data, signal the
// thread); again. Only what semsim does wakes a driver, one thing at a time, in the order
// (instant, client): the same seed gives the same history, whatever the machine's load, and a
// minute of plan takes what the drivers' CPU takes. What escapes (a driver that never sleeps, a
// clock read the library does not see, a real timer) ends the run with exit 2, naming it.
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "sim/core/interrupt.h"
#include "sim/drivers/clock_library/client_clock_page.h"
#include "sim/drivers/driver_run_state.h"
#include "sim/drivers/warp_stillness.h"

namespace semsim {

using namespace driver_run;

std::int64_t DriverRun::State::wall_at(const DriverClient& c, std::int64_t v) const {
  return kWarpEpochNs + (v - kWarpBaseNs) + c.clock->shift_at(v);
}

// Redis's clock on master m shows its own reading of now (its skew, drift and jumps).
void DriverRun::State::set_redis_clock(std::size_t m) {
  const TrueTime now{Micros((virtual_ns - kWarpBaseNs) / kNsPerUs)};
  run.setup_.redis_clocks[m]->set(redis_clocks[m].read(now));
}

void DriverRun::State::advance(std::int64_t to_ns) {
  virtual_ns = to_ns;
  for (std::size_t i = 1; i < clients.size(); ++i) clients[i]->clock->show(virtual_ns, wall_at(*clients[i], virtual_ns));
}

// Each client starts alone and runs (its start-up, its warm-up over the network, in virtual time)
// until it said `ready`: what one does at start cannot depend on how fast another starts.
void DriverRun::State::warp_ready() {
  for (int id = 1; id <= o.clients; ++id) {
    DriverClient& c = *clients[id];
    start_process(c);
    const std::int64_t limit = monotonic_ns() + kReadyLimitNs;
    for (;;) {
      if (interrupt_signal()) throw Interrupted("interrupted by signal " + std::to_string(interrupt_signal()));
      settle();
      take_lines(true);
      if (c.ready && !poked) break;
      if (poked) continue;
      const std::int64_t next = next_instant();
      if (next == INT64_MAX)
        fail(c, "the driver did not say `driver ok - ready`, and waits for nothing that can come (no timed wait, "
                "nothing on its way to it)");
      if (monotonic_ns() > limit)
        fail(c, "the driver did not say `driver ok - ready` within " + std::to_string(kReadyLimitNs / kSecond) +
                    " s of real time");
      if (next > virtual_ns) advance(next);
      warp_step();
    }
  }
}

void DriverRun::State::warp_loop() {
  for (;;) {
    if (interrupt_signal()) {
      result.stop_reason = "interrupted by signal " + std::to_string(interrupt_signal());
      return;
    }
    settle();
    take_lines(false);
    if (poked) continue;  // what it was sent, it handles at this instant
    check_escapes();
    history.release_before(true_us(virtual_ns));
    progress.update(Micros(true_us(virtual_ns)), o.duration, grants, history.rows());
    const std::int64_t next = next_instant();
    if (next >= end_ns) {
      advance(end_ns);
      return;
    }
    if (next > virtual_ns) advance(next);
    warp_step();
  }
}

std::int64_t DriverRun::State::next_instant() const {
  std::int64_t next = timers.empty() ? INT64_MAX : timers.begin()->first;
  for (std::size_t i = 1; i < clients.size(); ++i) {
    const DriverClient& c = *clients[i];
    for (const WarpProxy* p : c.warp_proxies)
      if (const auto due = p->next_due()) next = std::min(next, *due);
    if (!c.process || c.paused) continue;  // a paused client's deadlines come when it resumes
    for (const DriverClock::Waiter& w : c.clock->waiters()) next = std::min(next, w.deadline_ns);
  }
  return std::max(next, virtual_ns);
}

// The one thing due now that comes first: semsim's own steps, then each client's in order (data
// on its links, then its threads' deadlines).
void DriverRun::State::warp_step() {
  if (!timers.empty() && timers.begin()->first <= virtual_ns) {
    auto node = timers.extract(timers.begin());
    node.mapped()();
    return;
  }
  for (std::size_t i = 1; i < clients.size(); ++i) {
    DriverClient& c = *clients[i];
    for (WarpProxy* p : c.warp_proxies)
      if (const auto due = p->next_due(); due && *due <= virtual_ns) {
        if (p->deliver()) stir(c);
        return;
      }
    if (!c.process || c.paused) continue;
    for (const DriverClock::Waiter& w : c.clock->waiters())
      if (w.deadline_ns <= virtual_ns) return wake(c);
  }
}

// Signals every thread of c whose deadline came (a sliced one sees the clock on its own).
void DriverRun::State::wake(DriverClient& c) {
  const int signal = c.clock->wake_signal();
  for (const DriverClock::Waiter& w : c.clock->waiters()) {
    if (w.deadline_ns > virtual_ns) continue;
    stir(c);
    if (w.sliced || signal <= 0) continue;
    if (::syscall(SYS_tgkill, w.pid, w.tid, signal) != 0 && errno == ESRCH) c.clock->forget(w.slot);  // gone
  }
}

// Reads what every driver printed and sent; whether anything came.
bool DriverRun::State::pump() {
  bool came = false;
  for (std::size_t i = 1; i < clients.size(); ++i) {
    DriverClient& c = *clients[i];
    bool from_it = false;
    for (WarpProxy* p : c.warp_proxies) from_it |= p->collect();
    if (c.process && c.output_open) {
      c.process->flush_input();
      const std::size_t before = c.inbox.size();
      c.output_open = c.process->read_lines(c.inbox);
      from_it |= c.inbox.size() != before || !c.output_open;
    }
    if (from_it) stir(c);  // it ran: look at it again
    came |= from_it;
  }
  return came;
}

// Whether every driver sleeps now, and no thread whose deadline came is still waiting.
bool DriverRun::State::everyone_still() {
  for (std::size_t i = 1; i < clients.size(); ++i) {
    DriverClient& c = *clients[i];
    if (!c.process || !c.stirred) continue;  // still since semsim last looked, and nothing woke it
    if (!c.paused)
      for (const DriverClock::Waiter& w : c.clock->waiters())
        if (w.deadline_ns <= virtual_ns) {
          wake(c);  // again: it may have slept before it could take the signal
          return false;
        }
    if (!c.stillness->still()) return false;
    for (WarpProxy* p : c.warp_proxies)
      if (!p->quiet()) return false;  // it wrote, and the bytes are on their way
    c.stirred = false;
  }
  return true;
}

void DriverRun::State::settle() {
  const std::int64_t limit = monotonic_ns() + kTurnLimitNs;
  std::vector<pollfd> fds;
  std::vector<int> watched;
  for (;;) {
    // Still first, then nothing new: what a driver wrote before it slept is read by the second.
    const bool came = pump();
    if (!came && everyone_still() && !pump()) break;
    if (interrupt_signal()) return;  // Ctrl-C: the loop ends the run, whatever still runs
    if (monotonic_ns() > limit) {
      for (std::size_t i = 1; i < clients.size(); ++i) {
        DriverClient& c = *clients[i];
        ThreadLook busy;
        if (c.process && !c.stillness->still(&busy))
          fail_warp(c, "a thread of the driver (pid " + std::to_string(busy.pid) + ", thread " + std::to_string(busy.tid) +
                           ") ran for " + std::to_string(kTurnLimitNs / kSecond) +
                           " s of real time without sleeping: a busy loop (a spin on the clock, which stands still "
                           "while it runs), or a wait warp cannot see");
      }
      break;  // what stirred was ours (a thread slow to take its signal): go on
    }
    fds.clear();
    watched.clear();
    for (std::size_t i = 1; i < clients.size(); ++i) {
      DriverClient& c = *clients[i];
      for (WarpProxy* p : c.warp_proxies) p->watch(watched);
      if (c.process && c.output_open && c.process->output_fd() >= 0) watched.push_back(c.process->output_fd());
    }
    for (int fd : watched) fds.push_back({fd, POLLIN, 0});
    const timespec wait{0, came ? 0L : 200'000L};
    ::ppoll(fds.data(), fds.size(), &wait, nullptr);
  }
  poked = false;
  for (std::size_t i = 1; i < clients.size(); ++i)
    for (WarpProxy* p : clients[i]->warp_proxies) p->take();
}

// Handles the lines each driver said, client by client, in order; a driver whose output ended has
// exited, which no plan asked for.
void DriverRun::State::take_lines(bool before_start) {
  for (std::size_t i = 1; i < clients.size(); ++i) {
    DriverClient& c = *clients[i];
    for (const WarpProxy* p : c.warp_proxies)
      if (const std::string why = p->refusal(); !why.empty()) fail(c, why);
    if (!c.process) continue;
    const std::uint64_t epoch = c.epoch;
    for (const std::string& line : std::exchange(c.inbox, {})) {
      handle_line(c, line);
      if (c.epoch != epoch || !c.process) break;  // crashed by what the line set off
    }
    if (!c.process || c.output_open) continue;
    c.process->await_gone(kObserveNs / 4);
    const auto how = c.process->exited();
    fail(c, std::string(before_start ? "the driver ended before it said `driver ok - ready`" : "the driver ended") +
                " (its stdout closed" + (how ? "; it " + *how : "") + ")");
  }
}

// What the library saw that warp cannot make virtual: the run stops, naming it.
void DriverRun::State::check_escapes() {
  for (std::size_t i = 1; i < clients.size(); ++i) {
    const DriverClient& c = *clients[i];
    const std::uint32_t escapes = c.clock->escapes();
    if (!escapes) continue;
    std::string what;
    const auto add = [&what](const char* text) { what += (what.empty() ? "" : "; ") + std::string(text); };
    if (escapes & SEMSIM_WARP_ESCAPE_TIMERFD) add("it set a timerfd, a timer the kernel runs in real time");
    if (escapes & SEMSIM_WARP_ESCAPE_ITIMER) add("it set a real-time interval timer (alarm, setitimer, timer_settime)");
    if (escapes & SEMSIM_WARP_ESCAPE_SIGNAL) add("it took the signal warp wakes its threads with");
    fail_warp(c, "the driver uses what warp cannot make virtual (" + what + ")");
  }
}

}  // namespace semsim
