#pragma once

#include <string>

#include "relay_process.hpp"
#include "test_database.hpp"

namespace outbox::test {

// outboxctl replay end to end (issue 32), on any cluster whose topics outbox.order and
// outbox.billing exist (`bootstrap`): a relay publishes 20 aggregates x 5 versions of each
// type, interleaved, and stops; a dry run counts without sending; a replay of outbox.order
// sends each of its events once more, read back by kcat: byte for byte the first
// publication's record (partition, key, value, headers) plus the header outbox_replay, each
// aggregate's versions 1..5 in order, outbox.billing untouched, the outbox rows unchanged;
// then a replay by aggregate type; then retention purges two order aggregates and the replay's
// dry run counts them as purged.
void run_replay_scenario(const TestDatabase& db, const std::string& bootstrap,
                         const RelayTestConfig& settings);

}  // namespace outbox::test
