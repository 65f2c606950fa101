#include "publish/unsent_batch.hpp"

#include <librdkafka/rdkafka.h>

namespace outbox {

UnsentBatch::UnsentBatch(size_t events, const std::string& error) {
  DeliveryOutcome outcome;
  outcome.status = DeliveryStatus::kMaybeDelivered;
  outcome.error_code = RD_KAFKA_RESP_ERR__FAIL;
  outcome.error = std::string(rd_kafka_err2name(RD_KAFKA_RESP_ERR__FAIL)) + ": " + error;
  outcome.reported_at = std::chrono::steady_clock::now();
  outcomes_.assign(events, outcome);
}

}  // namespace outbox
