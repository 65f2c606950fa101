#include "publish/kafka_producer.hpp"

#include <spdlog/spdlog.h>

#include <array>

#include "publish/producer_config.hpp"

namespace outbox {

Outcome<std::shared_ptr<ProducerHandle>> ProducerHandle::create(const KafkaSettings& kafka,
                                                                int generation,
                                                                ProducerCounters counters,
                                                                ProducerRole role) {
  Outcome<RdKafkaConf> conf = make_producer_conf(kafka, role);
  if (!conf) return conf.error();
  std::shared_ptr<ProducerHandle> producer(new ProducerHandle(generation, counters));
  rd_kafka_conf_set_opaque(conf.value().get(), producer.get());
  rd_kafka_conf_set_dr_msg_cb(conf.value().get(), ProducerHandle::on_delivery);
  rd_kafka_conf_set_error_cb(conf.value().get(), ProducerHandle::on_error);
  rd_kafka_conf_set_stats_cb(conf.value().get(), ProducerHandle::on_statistics);
  route_rdkafka_logs(conf.value().get());
  std::array<char, 512> error{};
  rd_kafka_t* handle =
      rd_kafka_new(RD_KAFKA_PRODUCER, conf.value().get(), error.data(), error.size());
  if (handle == nullptr) return Error{std::string("cannot create Kafka producer: ") + error.data()};
  (void)conf.value().release();  // owned by the handle now
  producer->handle_.reset(handle);
  producer->poller_ = std::jthread([raw = handle](const std::stop_token& stop) {
    while (!stop.stop_requested())
      rd_kafka_poll(raw, 100);
  });
  return producer;
}

ProducerHandle::~ProducerHandle() {
  poller_.request_stop();
  if (poller_.joinable()) poller_.join();
  // Every batch that used this producer has settled (each holds a reference), so nothing
  // waits for a report any more; serve what is left so librdkafka can shut down cleanly.
  if (handle_) rd_kafka_flush(handle_.get(), 0);
  // No statistics report of this producer can come after its handle is gone.
  handle_.reset();
  if (counters_.statistics != nullptr) counters_.statistics->retire(generation_);
}

void ProducerHandle::on_delivery(rd_kafka_t* /*handle*/, const rd_kafka_message_t* message,
                                 void* opaque) {
  const auto* self = static_cast<const ProducerHandle*>(opaque);
  if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR && self->counters_.deliveries != nullptr)
    self->counters_.deliveries->delivered(std::chrono::steady_clock::now());
  const auto* slot = static_cast<const ReportSlot*>(message->_private);
  slot->sink->on_report(slot->index, *message);
}

void ProducerHandle::purge() {
  rd_kafka_purge(handle_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
}

long ProducerHandle::queue_length() const {
  return rd_kafka_outq_len(handle_.get());
}

std::string ProducerHandle::fatal_reason() const {
  std::lock_guard lock(fatal_mutex_);
  return fatal_reason_;
}

void ProducerHandle::on_error(rd_kafka_t* handle, int error, const char* reason, void* opaque) {
  auto* self = static_cast<ProducerHandle*>(opaque);
  const auto code = static_cast<rd_kafka_resp_err_t>(error);
  if (self->counters_.errors != nullptr) ++*self->counters_.errors;
  if (code == RD_KAFKA_RESP_ERR__FATAL) {
    std::array<char, 512> text{};
    const rd_kafka_resp_err_t underlying = rd_kafka_fatal_error(handle, text.data(), text.size());
    {
      std::lock_guard lock(self->fatal_mutex_);
      self->fatal_reason_ = std::string(rd_kafka_err2name(underlying)) + ": " + text.data();
    }
    self->fatal_code_.store(underlying);
    self->fatal_.store(true);
    spdlog::error("kafka producer #{} fatal error {}: {}", self->generation_,
                  rd_kafka_err2name(underlying), text.data());
    return;
  }
  if (code == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) self->all_brokers_down_.store(true);
  if (code == RD_KAFKA_RESP_ERR__AUTHENTICATION || code == RD_KAFKA_RESP_ERR__SSL) {
    self->refusal_code_.store(code);
  }
  spdlog::warn("kafka producer #{}: {}: {}", self->generation_, rd_kafka_err2name(code), reason);
}

int ProducerHandle::on_statistics(rd_kafka_t* /*handle*/, char* json, size_t json_len,
                                  void* opaque) {
  auto* self = static_cast<ProducerHandle*>(opaque);
  if (self->counters_.statistics == nullptr) return 0;
  const Outcome<BrokerRequestTotals> totals =
      parse_broker_request_totals(std::string_view(json, json_len));
  if (totals) {
    self->counters_.statistics->record(self->generation_, totals.value());
  } else if (!self->statistics_warned_) {
    // Once per producer: the counters then keep their last good values.
    self->statistics_warned_ = true;
    spdlog::warn(
        "kafka producer #{}: statistics not understood ({}); the request counters of "
        "/metrics stop here",
        self->generation_, totals.error().message);
  }
  return 0;  // librdkafka frees the document
}

Status ProducerHandle::probe(std::chrono::milliseconds timeout) {
  const rd_kafka_metadata_t* raw = nullptr;
  const rd_kafka_resp_err_t error =
      rd_kafka_metadata(handle_.get(), 0, nullptr, &raw, static_cast<int>(timeout.count()));
  RdKafkaMetadata metadata(raw);
  if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::string why = std::string("no broker answered a metadata request within ") +
                      std::to_string(timeout.count()) + " ms: " + rd_kafka_err2str(error);
    // The broker's own words (host, mechanism) are in the log line of the error callback.
    if (const int refusal = refusal_code_.load(); refusal == RD_KAFKA_RESP_ERR__AUTHENTICATION) {
      why += "; the broker refused authentication (check sasl.username and sasl.password)";
    } else if (refusal == RD_KAFKA_RESP_ERR__SSL) {
      why += "; the TLS handshake failed (check ssl.ca.location and the broker's certificate)";
    }
    return Error{why};
  }
  refusal_code_.store(0);
  if (metadata->broker_cnt == 0) return Error{"the cluster reported no brokers"};
  return ok_status();
}

}  // namespace outbox
