// True time (TrueTime) and what a client's clock reads (Micros) are distinct types: a client's
// reading passed where true time is meant does not compile. Pinned here at compile time.
#include <gtest/gtest.h>

#include <functional>
#include <type_traits>

#include "sim/core/client_clock.h"
#include "sim/core/network.h"
#include "sim/core/scheduler.h"
#include "sim/core/sim_client.h"
#include "sim/core/true_time.h"

namespace semsim {
namespace {

// Neither converts to the other implicitly.
static_assert(!std::is_convertible_v<Micros, TrueTime>);
static_assert(!std::is_convertible_v<TrueTime, Micros>);

// Durations stay Micros: the difference of two true times is one, and a duration moves a true time.
static_assert(std::is_same_v<decltype(TrueTime{} - TrueTime{}), Micros>);
static_assert(std::is_same_v<decltype(TrueTime{} + Micros{}), TrueTime>);
static_assert(std::is_same_v<decltype(TrueTime{} - Micros{}), TrueTime>);

// A true time and a duration (or a client's reading) cannot be compared.
template <typename A, typename B>
concept comparable = requires(const A& a, const B& b) { a == b; } || requires(const A& a, const B& b) { a < b; };
static_assert(comparable<TrueTime, TrueTime>);
static_assert(!comparable<TrueTime, Micros>);
static_assert(!comparable<Micros, TrueTime>);

// Everything that schedules takes true time, and only true time.
template <typename T>
concept schedulable_at = requires(Scheduler& s, T t) { s.at(t, std::function<void()>{}); };
template <typename T>
concept deliverable_at = requires(Scheduler& s, T t) { s.deliver_at(t, Delivery{}); };
template <typename T>
concept fenceable_at = requires(Scheduler& s, T t) { s.fence_at(t, std::function<void()>{}); };
static_assert(schedulable_at<TrueTime> && deliverable_at<TrueTime> && fenceable_at<TrueTime>);
static_assert(!schedulable_at<Micros> && !deliverable_at<Micros> && !fenceable_at<Micros>);

// The mix-up this guards against: scheduling at a client's own reading plus a delay.
template <typename C>
concept schedules_at_client_reading = requires(Scheduler& s, C& client) {
  s.at(client.now() + Micros(1), std::function<void()>{});
};
static_assert(std::is_same_v<decltype(std::declval<SimClient&>().now()), Micros>);
static_assert(!schedules_at_client_reading<SimClient>);

// A clock reads true time; the network maps true time to true time.
template <typename T>
concept readable_at = requires(const ClientClock& clock, T t) { clock.read(t); };
template <typename T>
concept sendable_at = requires(ClientNetwork& net, T t) { net.outbound(t); };
static_assert(readable_at<TrueTime> && !readable_at<Micros>);
static_assert(std::is_same_v<decltype(std::declval<const ClientClock&>().read(TrueTime{})), Micros>);
static_assert(sendable_at<TrueTime> && !sendable_at<Micros>);
static_assert(std::is_same_v<decltype(std::declval<ClientNetwork&>().outbound(TrueTime{})), TrueTime>);

TEST(TrueTime, CountsMicrosecondsFromTheRunsStart) {
  EXPECT_EQ(at_us(1'500) - kRunStart, Micros(1'500));
  EXPECT_EQ(at_us(1'500) + Micros(500), at_us(2'000));
  EXPECT_EQ(at_us(-3).time_since_epoch().count(), -3);
  Scheduler s;
  EXPECT_EQ(s.now(), kRunStart);
}

}  // namespace
}  // namespace semsim
