#pragma once

#include <functional>
#include <string>

#include "relay_process.hpp"
#include "test_database.hpp"

namespace outbox::test {

// The operator's pause of issue 32, end to end, on any cluster whose topics outbox.order and
// outbox.billing exist (`bootstrap`): outboxctl pauses outbox.billing; two relays started on
// interleaved backlogs of both types publish every order event and hold every billing event
// (RETRY, no recheck, no attempt, the pause named in last_error; gauge and log line in each);
// one relay is killed -9, more of both types is written and a third relay starts: the pause
// holds; outboxctl resume releases every held event, and kcat reads each billing aggregate's
// versions in order. `relay_settings(name)` is the config of relay `name` ("a", "b", "c").
// outbox_relay_operator_paused{kind="<kind>",name="<name>"} of the relay (-1: no such series).
double operator_paused_gauge(const RelayProcess& relay, const std::string& kind,
                             const std::string& name);

void run_operator_pause_scenario(
    const TestDatabase& db, const std::string& bootstrap,
    const std::function<RelayTestConfig(const std::string& name)>& relay_settings);

}  // namespace outbox::test
