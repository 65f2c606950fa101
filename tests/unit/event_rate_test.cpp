// relay.max_events_per_second's bucket: a claim is granted what one second at the rate holds,
// no more; what a claim did not send goes back; 0 lifts the limit.
#include <catch2/catch.hpp>

#include "event_rate.hpp"

using namespace std::chrono_literals;
using outbox::EventRate;

TEST_CASE("the event rate grants a second's worth, then what time refills", "[event-rate]") {
  EventRate rate;
  const auto start = EventRate::Clock::now();
  CHECK(rate.take(5000, start).events == 5000);  // unlimited by default
  rate.set_rate(100, start);
  CHECK(rate.take(500, start).events == 100);
  // Then a tenth of a second's worth at least (10 events), or what the claim wants if less:
  // never a claim per event.
  const EventRate::Grant none = rate.take(50, start);
  CHECK(none.events == 0);
  CHECK(none.retry_in == 100ms);
  CHECK(rate.limiting(start + 500ms));
  CHECK(rate.take(50, start + 50ms).events == 0);
  CHECK(rate.take(50, start + 100ms).events == 10);
  CHECK(rate.take(50, start + 180ms).events == 0);  // 8 due
  CHECK(rate.take(5, start + 180ms).events == 5);   // wants fewer than 10: 5 of the 8
  // A short batch: 4 of the 5 were not sent and go back.
  rate.give_back(4);
  CHECK(rate.take(50, start + 180ms).events == 0);  // 7 due
  CHECK(rate.take(7, start + 180ms).events == 7);
  // An idle hour refills one second's worth, not an hour's.
  CHECK(rate.take(100000, start + 1h).events == 100);
  CHECK_FALSE(rate.limiting(start + 1h + 2s));
  rate.waited(250ms);
  rate.waited(250ms);
  CHECK(rate.limited_seconds() == Approx(0.5));
  // SIGHUP to 0: unlimited again.
  rate.set_rate(0, start + 1h);
  CHECK(rate.take(5000, start + 1h).events == 5000);
  CHECK_FALSE(rate.limiting(start + 1h));
}
