#pragma once

#include <string>

#include "relay_process.hpp"
#include "test_database.hpp"

namespace outbox::test {

// kafka.profile: cloudevents, judged by an independent implementation of the binding: every
// record of `topic` read back with kcat and decoded by the CloudEvents Python SDK's Kafka
// binding (tests/tools/cloudevents_decode.py, in the venv of scripts/python-tools.sh). CHECKs
// that the SDK accepts every record and that what it decodes is, record for record, the outbox
// row of the same event_id: specversion 1.0, source `source`, type = event_type, time =
// created_at to the microsecond, subject = partitionkey = aggregate_id, content type
// application/json, the aggregatetype and eventversion extensions, data.order_id, and the
// traceparent extension = the row's traceparent ("-" for NULL). Returns the records decoded.
long long check_cloudevents_on_topic(const TestDatabase& db, const std::string& bootstrap,
                                     const std::string& topic, const std::string& source);

// kafka.profile: cloudevents end to end on the cluster at `bootstrap` (topics outbox.order and
// outbox.order.dead-letter exist): a relay with `relay_settings` and the profile publishes 200
// ORDER_ACCEPTED events (half with a W3C traceparent); the SDK decodes each as its row
// (check_cloudevents_on_topic); one of them is produced again by kcat, headers and all (a
// redelivery); with `planner`, notification-planner (the consumer library) applies each event
// once, identified by ce_id: 200 jobs with the payload's order ids and the trace ids, and the
// copy recognised as a duplicate delivery. (Without: for test programs whose build has no
// notification-planner, the ThreadSanitizer one.)
void run_cloudevents_profile(const std::string& bootstrap, RelayTestConfig relay_settings,
                             bool planner);

}  // namespace outbox::test
