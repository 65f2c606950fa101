#include "replay_producer.hpp"

#include <algorithm>
#include <array>
#include <iostream>
#include <numeric>
#include <set>
#include <string_view>

#include "kafka/produce_message.hpp"
#include "publish/producer_config.hpp"

namespace outbox::ctl {
namespace {

using std::chrono::steady_clock;

// Properties the replay sets over the relay's: its own name in the brokers' logs and quotas,
// no statistics (nothing reads them), and a linger that fills requests, since a replay hands
// over a whole chunk at once and latency does not matter.
const std::array<std::pair<const char*, const char*>, 3> kReplayProperties{{
    {"client.id", "outboxctl-replay"},
    {"statistics.interval.ms", "0"},
    {"linger.ms", "20"},
}};

constexpr std::chrono::milliseconds kQueueFullPause{10};
constexpr const char* kBoundedDeliveryTimeoutMs = "300000";  // 5 min

// librdkafka's warnings and errors on stderr (stdout holds the answer).
void log_to_stderr(const rd_kafka_t* /*handle*/, int level, const char* facility,
                   const char* message) {
  if (level <= 4) std::cerr << "outboxctl replay: kafka " << facility << ": " << message << "\n";
}

}  // namespace

ReplayProducer::ReplayProducer(MessageShape shape, std::string replay_id, int64_t rate)
    : shape_(std::move(shape)),
      replay_id_(std::move(replay_id)),
      rate_(rate),
      started_(steady_clock::now()) {}

Outcome<std::unique_ptr<ReplayProducer>> ReplayProducer::create(const KafkaSettings& kafka,
                                                                std::string replay_id,
                                                                int64_t rate) {
  Outcome<RdKafkaConf> conf = make_producer_conf(kafka);
  if (!conf) return conf.error();
  std::array<char, 512> error{};
  for (const auto& [name, value] : kReplayProperties) {
    if (rd_kafka_conf_set(conf.value().get(), name, value, error.data(), error.size()) !=
        RD_KAFKA_CONF_OK) {
      return Error{std::string("cannot set ") + name + ": " + error.data()};
    }
  }
  // Every send() waits for its chunk's reports: with message.timeout.ms 0 (librdkafka's
  // "infinite", which the relay allows) a replay against brokers that stay down would wait
  // forever, so a replay bounds it.
  if (effective_delivery_timeout(kafka) == Micros::max() &&
      rd_kafka_conf_set(conf.value().get(), "message.timeout.ms", kBoundedDeliveryTimeoutMs,
                        error.data(), error.size()) != RD_KAFKA_CONF_OK) {
    return Error{std::string("cannot set message.timeout.ms: ") + error.data()};
  }
  std::unique_ptr<ReplayProducer> producer(
      new ReplayProducer(MessageShape(kafka.message), std::move(replay_id), rate));
  rd_kafka_conf_set_opaque(conf.value().get(), producer.get());
  rd_kafka_conf_set_dr_msg_cb(conf.value().get(), on_delivery);
  rd_kafka_conf_set_error_cb(conf.value().get(), on_error);
  rd_kafka_conf_set_log_cb(conf.value().get(), log_to_stderr);
  rd_kafka_t* handle =
      rd_kafka_new(RD_KAFKA_PRODUCER, conf.value().get(), error.data(), error.size());
  if (handle == nullptr) return Error{std::string("cannot create Kafka producer: ") + error.data()};
  (void)conf.value().release();  // owned by the handle now
  producer->handle_.reset(handle);
  return producer;
}

ReplayProducer::~ReplayProducer() {
  // send() returns only once every report is in; nothing is left but librdkafka's own work.
  if (handle_) rd_kafka_flush(handle_.get(), 0);
}

Status ReplayProducer::probe(std::chrono::milliseconds timeout) {
  const rd_kafka_metadata_t* raw = nullptr;
  const rd_kafka_resp_err_t error =
      rd_kafka_metadata(handle_.get(), 0, nullptr, &raw, static_cast<int>(timeout.count()));
  RdKafkaMetadata metadata(raw);
  if (error == RD_KAFKA_RESP_ERR_NO_ERROR) return ok_status();
  rd_kafka_poll(handle_.get(), 0);  // the error callbacks that say why
  return Error{std::string("no Kafka broker answered within ") + std::to_string(timeout.count()) +
               " ms: " + rd_kafka_err2str(error) +
               (last_error_.empty() ? "" : " (last error: " + last_error_ + ")")};
}

void ReplayProducer::on_delivery(rd_kafka_t* /*handle*/, const rd_kafka_message_t* message,
                                 void* opaque) {
  auto* self = static_cast<ReplayProducer*>(opaque);
  --self->outstanding_;
  if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    ++self->current_->delivered;
    return;
  }
  const size_t index = *static_cast<const size_t*>(message->_private);
  self->current_->failed.push_back(
      {(*self->current_rows_)[index].event.event_id,
       std::string(rd_kafka_err2name(message->err)) + ": " + rd_kafka_err2str(message->err)});
}

void ReplayProducer::on_error(rd_kafka_t* /*handle*/, int error, const char* reason, void* opaque) {
  auto* self = static_cast<ReplayProducer*>(opaque);
  self->last_error_ =
      std::string(rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(error))) + ": " + reason;
}

void ReplayProducer::pace() {
  if (rate_ <= 0) return;
  const auto since_start = [this] { return std::chrono::microseconds(sent_ * 1'000'000 / rate_); };
  // Message n may go at started + n / rate, so the average holds from the start; after a
  // stall (a slow read, a full queue) at most one second's worth goes at once to catch up.
  const auto now = steady_clock::now();
  if (now - (started_ + since_start()) > std::chrono::seconds(1)) {
    started_ = now - since_start() - std::chrono::seconds(1);
  }
  const auto due = started_ + since_start();
  for (auto at = now; at < due; at = steady_clock::now()) {
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(due - at);
    rd_kafka_poll(handle_.get(), static_cast<int>(std::max<int64_t>(1, wait.count())));
    paced_seconds_ += std::chrono::duration<double>(steady_clock::now() - at).count();
  }
}

ChunkOutcome ReplayProducer::send(const std::vector<ReplayRow>& rows) {
  ChunkOutcome outcome;
  // Each message's opaque points at its row's index (it lives until the last report).
  std::vector<size_t> indexes(rows.size());
  std::iota(indexes.begin(), indexes.end(), size_t{0});
  current_ = &outcome;
  current_rows_ = &rows;
  // Aggregates one of whose events the producer refused in this chunk: their later versions
  // are not sent after it (the replay stops after the chunk and goes on from before it).
  std::set<std::pair<std::string_view, std::string_view>> refused;
  for (size_t i = 0; i < rows.size(); ++i) {
    const OutboxEvent& event = rows[i].event;
    if (refused.count({event.aggregate_type, event.aggregate_id}) != 0) {
      outcome.failed.push_back({event.event_id,
                                "not sent: an earlier version of its aggregate "
                                "was refused in this chunk"});
      continue;
    }
    pace();
    RdKafkaHeaders headers = shape_.headers(event);
    add_header(headers.get(), kReplayHeader, replay_id_);
    rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
    for (;;) {
      // Copied: the chunk's rows are freed once its reports are in.
      error = produce_message(handle_.get(), rows[i].topic, shape_.key(event), shape_.value(event),
                              headers.get(), &indexes[i], RD_KAFKA_MSG_F_COPY);
      if (error != RD_KAFKA_RESP_ERR__QUEUE_FULL) break;
      rd_kafka_poll(handle_.get(), static_cast<int>(kQueueFullPause.count()));
    }
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
      outcome.failed.push_back({event.event_id, std::string(rd_kafka_err2name(error)) +
                                                    ": not enqueued: " + rd_kafka_err2str(error)});
      refused.insert({event.aggregate_type, event.aggregate_id});
      continue;
    }
    (void)headers.release();  // owned by the message now
    ++outstanding_;
    ++sent_;
  }
  // Every report comes within message.timeout.ms of its hand-over.
  while (outstanding_ > 0)
    rd_kafka_poll(handle_.get(), 100);
  current_ = nullptr;
  current_rows_ = nullptr;
  return outcome;
}

}  // namespace outbox::ctl
