#include "publish/kafka_publisher.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "kafka/produce_message.hpp"
#include "publish/pipelined_deliveries.hpp"
#include "publish/producer_config.hpp"
#include "publish/transactional_deliveries.hpp"

namespace outbox {
namespace {

// Whether the shared producer's partitioner lets a keyed message's partition be computed ahead
// (partition_map.hpp): the last `partitioner` among the effective properties decides.
bool effective_partitioner_computable(const KafkaSettings& kafka) {
  std::string partitioner;
  for (const ProducerProperty& property : producer_properties(kafka)) {
    if (property.name == "partitioner") partitioner = property.value;
  }
  return PartitionMap::computable_partitioner(partitioner);
}

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr milliseconds kProbeTimeout{1000};
constexpr milliseconds kProbeInterval{1000};
// While the probes keep failing, how often the log says so again: an operator (or a test that
// failed waiting for claims) sees the relay still probing, and why.
constexpr std::chrono::seconds kStillDownLogInterval{30};
constexpr milliseconds kQueueFullPause{2};

// No RD_KAFKA_MSG_F_COPY: librdkafka sends the payload from the event's own buffer (the value
// is a view of it), which the batch keeps alive and unchanged until the delivery report
// (Publisher::send()), so a large payload is not held twice.
rd_kafka_resp_err_t produce(rd_kafka_t* producer, const std::string& topic, std::string_view key,
                            std::string_view value, rd_kafka_headers_t* headers, void* opaque) {
  return produce_message(producer, topic, key, value, headers, opaque, 0);
}

std::string not_enqueued_because(rd_kafka_resp_err_t error) {
  switch (error) {
    case RD_KAFKA_RESP_ERR__QUEUE_FULL:
      return "the producer's queue stayed full until the batch's enqueue deadline";
    case RD_KAFKA_RESP_ERR__PURGE_QUEUE:
      return "the drain deadline passed, every delivery was given up";
    default:
      return rd_kafka_err2str(error);
  }
}

DeliveryOutcome not_sent(const std::string& topic, rd_kafka_resp_err_t error,
                         const std::string& detail) {
  DeliveryOutcome outcome;
  outcome.status = DeliveryStatus::kNotDelivered;
  outcome.topic = topic;
  outcome.error_code = error;
  outcome.error = std::string(rd_kafka_err2name(error)) + ": " + detail;
  return outcome;
}

// Whether two of `events` belong to one aggregate. Only such a batch needs to be one Kafka
// transaction: a claim takes an aggregate's head only once every earlier version is PUBLISHED
// (acknowledged), so an aggregate's single event in a batch has nothing in flight to overtake,
// and a failure can leave no later version visible without it, exactly as with per_aggregate.
// Several versions of one aggregate are what a partial failure could invert.
bool holds_two_versions_of_an_aggregate(const std::vector<const OutboxEvent*>& events) {
  std::set<std::pair<std::string_view, std::string_view>> aggregates;
  for (const OutboxEvent* event : events) {
    if (!aggregates.emplace(event->aggregate_type, event->aggregate_id).second) return true;
  }
  return false;
}

}  // namespace

Outcome<std::unique_ptr<KafkaPublisher>> KafkaPublisher::create(const KafkaSettings& kafka,
                                                                TopicRouter router,
                                                                ProducerCounters counters,
                                                                TransactionSettings transactions,
                                                                PipelineSettings pipeline) {
  Outcome<std::shared_ptr<ProducerHandle>> producer = ProducerHandle::create(kafka, 1, counters);
  if (!producer) return producer.error();
  std::unique_ptr<TransactionPool> pool;
  if (transactions.producers > 0) {
    // One transactional producer now, so that properties librdkafka refuses with a
    // transactional.id (a message.timeout.ms above transaction.timeout.ms) stop the start.
    const TransactionalIdentity identity{transactions.id_prefix + "-check", transactions.timeout};
    Outcome<std::shared_ptr<ProducerHandle>> check =
        ProducerHandle::create(kafka, 0, {}, ProducerRole{&identity});
    if (!check) return check.error();
    log_kafka_properties(producer_properties(kafka, ProducerRole{&identity}));
    spdlog::info(
        "each batch holding several versions of an aggregate is one Kafka transaction: {} "
        "producers, transactional.id {}-0..{}",
        transactions.producers, transactions.id_prefix, transactions.producers - 1);
    pool = std::make_unique<TransactionPool>(kafka, std::move(transactions), counters);
  } else {
    log_kafka_properties(producer_properties(kafka));
  }
  std::unique_ptr<GaplessPool> gapless;
  if (pipeline.producers > 0 && !pool) {
    // One now, so that properties librdkafka refuses with the gapless guarantee stop the start.
    Outcome<std::shared_ptr<ProducerHandle>> check =
        ProducerHandle::create(kafka, 0, {}, ProducerRole{nullptr, true});
    if (!check) return check.error();
    spdlog::info(
        "a batch holding several versions of an aggregate goes all at once on a producer of its "
        "own ({} producers, enable.gapless.guarantee, no message timeout)",
        pipeline.producers);
    gapless = std::make_unique<GaplessPool>(kafka, pipeline.producers, counters);
  }
  return std::unique_ptr<KafkaPublisher>(
      new KafkaPublisher(kafka, std::move(router), std::move(producer).value(), counters,
                         std::move(pool), std::move(gapless), pipeline));
}

KafkaPublisher::KafkaPublisher(KafkaSettings kafka, TopicRouter router,
                               std::shared_ptr<ProducerHandle> producer, ProducerCounters counters,
                               std::unique_ptr<TransactionPool> transactions,
                               std::unique_ptr<GaplessPool> gapless, PipelineSettings pipeline)
    : kafka_(std::move(kafka)),
      router_(std::move(router)),
      shape_(kafka_.message),
      counters_(counters),
      delivery_timeout_(effective_delivery_timeout(kafka_)),
      partitions_(effective_partitioner_computable(kafka_)),
      producer_(std::move(producer)),
      transactions_(std::move(transactions)),
      gapless_(std::move(gapless)),
      pipeline_(pipeline) {}

Destination KafkaPublisher::destination_of(const OutboxEvent& event) {
  Outcome<std::string> topic = router_.route(event);
  if (!topic) return {};
  Destination destination{std::move(topic).value(), -1};
  if (const std::optional<int32_t> partition =
          partitions_.partition(destination.topic, shape_.key(event))) {
    destination.partition = *partition;
  }
  return destination;
}

void KafkaPublisher::learn_partitions(const std::string& topic) {
  // Bounded: a settling worker waits this long at most, once per pause of a partition.
  partitions_.learn(peek()->get(), topic, std::chrono::seconds(2));
}

std::shared_ptr<ProducerHandle> KafkaPublisher::current() {
  std::lock_guard lock(mutex_);
  if (producer_->fatal()) {
    const int next = producer_->generation() + 1;
    Outcome<std::shared_ptr<ProducerHandle>> fresh =
        ProducerHandle::create(kafka_, next, counters_);
    if (!fresh) {
      spdlog::error("cannot replace kafka producer #{} after its fatal error: {}",
                    producer_->generation(), fresh.error().message);
      return producer_;
    }
    spdlog::warn(
        "kafka producer #{} retired after fatal error ({}); its unconfirmed events are not "
        "marked and will be published again; producing with producer #{}",
        producer_->generation(), producer_->fatal_reason(), next);
    std::erase_if(retired_, [](const auto& weak) { return weak.expired(); });
    retired_.push_back(producer_);
    producer_ = std::move(fresh).value();
  }
  return producer_;
}

std::unique_ptr<InFlightDeliveries> KafkaPublisher::send_each(
    const std::vector<const OutboxEvent*>& events, steady_clock::time_point enqueue_by,
    const std::function<void()>& still_waiting) {
  // A batch of one event per aggregate goes on the shared idempotent producer even with
  // transactions: no transaction round trips (AddPartitionsToTxn, EndTxn, one marker per
  // partition) for what order does not need, so such a backlog drains as fast as with
  // per_aggregate. read_committed consumers read both kinds alike.
  if (transactions_ && holds_two_versions_of_an_aggregate(events)) {
    return send_in_transaction(events, enqueue_by, still_waiting);
  }
  std::shared_ptr<ProducerHandle> producer = current();
  auto batch = std::make_unique<DeliveryReports>(producer, events.size());
  // One bound for the whole batch, set by the caller so that every report (at most the
  // delivery timeout after its hand-over) still comes inside the batch's lease.
  hand_over(*producer, *batch, events, enqueue_by, still_waiting);
  return batch;
}

std::unique_ptr<InFlightDeliveries> KafkaPublisher::send_in_transaction(
    const std::vector<const OutboxEvent*>& events, steady_clock::time_point enqueue_by,
    const std::function<void()>& still_waiting) {
  TransactionPool::Begun begun = transactions_->begin(enqueue_by);
  if (!begun.transaction) {
    // peek(): the shared producer carries batches of its own and may be replaced meanwhile.
    auto unsent = std::make_unique<DeliveryReports>(peek(), events.size());
    const auto code = static_cast<rd_kafka_resp_err_t>(begun.failure.error_code);
    for (size_t i = 0; i < events.size(); ++i) {
      unsent->record(i, not_sent("", code,
                                 "event " + events[i]->event_id +
                                     " not enqueued: no transaction: " + begun.failure.error));
    }
    return unsent;
  }
  auto batch = std::make_unique<DeliveryReports>(begun.transaction->producer(), events.size());
  hand_over(*begun.transaction->producer(), *batch, events, enqueue_by, still_waiting);
  // The commit or abort is bounded like a report: the delivery timeout.
  return std::make_unique<TransactionalDeliveries>(std::move(begun.transaction), std::move(batch),
                                                   delivery_timeout_);
}

bool KafkaPublisher::chains_share_partitions(const std::vector<OutboxEvent>& events,
                                             const std::vector<size_t>& after) {
  // Each event routed once (a predecessor comes first, so its topic is known by then).
  std::vector<std::string> topics(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    Outcome<std::string> topic = router_.route(events[i]);
    if (!topic) return false;
    topics[i] = std::move(topic).value();
    if (after[i] == i) continue;
    const OutboxEvent& before = events[after[i]];
    // A null key (kafka.key_column's NULL) is spread over partitions, not hashed.
    if (shape_.key(events[i]).data() == nullptr || shape_.key(events[i]) != shape_.key(before) ||
        topics[i] != topics[after[i]]) {
      return false;
    }
  }
  return true;
}

std::unique_ptr<InFlightDeliveries> KafkaPublisher::send_chains(
    const std::vector<OutboxEvent>& events, const std::vector<size_t>& after,
    steady_clock::time_point enqueue_by, steady_clock::time_point settle_by,
    const std::function<void()>& still_waiting) {
  // relay.ordering: transactional: the batch is one transaction, all or nothing, whatever
  // its chains (send_each decides whether it needs one).
  if (transactions_) return send(events, enqueue_by, still_waiting);
  // Versions routed to another topic, or keyed apart (kafka.key_column), have no common
  // partition sequence to keep them gapless: waves.
  if (!gapless_ || !chains_share_partitions(events, after)) return nullptr;
  GaplessPool::Acquired acquired = gapless_->acquire(enqueue_by);
  if (!acquired.lease) {
    spdlog::warn("{}: this batch's chains go in waves", acquired.error);
    return nullptr;
  }
  std::vector<const OutboxEvent*> each;
  std::vector<std::string> ids;
  each.reserve(events.size());
  ids.reserve(events.size());
  for (const OutboxEvent& event : events) {
    each.push_back(&event);
    ids.push_back(event.event_id);
  }
  const std::shared_ptr<ProducerHandle> producer = acquired.lease->producer();
  auto batch = std::make_unique<DeliveryReports>(producer, events.size());
  hand_over(*producer, *batch, each, enqueue_by, still_waiting, &after);
  // Reported (or purged, which reads as a timeout) when the shared producer's message timeout
  // would have reported it, and never after settle_by.
  const steady_clock::time_point report_by =
      delivery_timeout_ == Micros::max()
          ? settle_by
          : std::min(settle_by,
                     steady_clock::now() +
                         std::chrono::duration_cast<steady_clock::duration>(delivery_timeout_));
  return std::make_unique<PipelinedDeliveries>(std::move(acquired.lease), std::move(batch), after,
                                               std::move(ids), report_by, pipeline_.inversions,
                                               pipeline_.batches);
}

void KafkaPublisher::hand_over(ProducerHandle& producer, DeliveryReports& batch,
                               const std::vector<const OutboxEvent*>& events,
                               steady_clock::time_point give_up_at,
                               const std::function<void()>& still_waiting,
                               const std::vector<size_t>* after) {
  size_t next = 0;
  // handed[i]: events[i] is with the producer (only tracked for chains).
  std::vector<bool> handed(after != nullptr ? events.size() : 0, false);
  try {
    for (; next < events.size(); ++next) {
      const OutboxEvent& event = *events[next];
      if (after != nullptr && (*after)[next] != next && !handed[(*after)[next]]) {
        batch.record(next, not_sent("", RD_KAFKA_RESP_ERR__PREV_IN_PROGRESS,
                                    "event " + event.event_id +
                                        " not enqueued: the version before it, event " +
                                        events[(*after)[next]]->event_id + ", was not"));
        continue;
      }
      Outcome<std::string> topic = router_.route(event);
      if (!topic) {
        batch.record(next, not_sent("", RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION, topic.error().message));
        continue;
      }
      RdKafkaHeaders headers = shape_.headers(event);
      rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
      for (;;) {
        // Past the deadline not even the first try: the report could come after the lease.
        if (steady_clock::now() >= give_up_at) {
          error = RD_KAFKA_RESP_ERR__QUEUE_FULL;
          break;
        }
        {
          // Once a drain gave up on every message, nothing more is handed over: a message
          // enqueued after the purge would hold its worker, and the exit, for its whole
          // delivery timeout. Shared: only abandon_in_flight() waits for the hand-overs.
          const std::shared_lock closing(abandon_mutex_);
          if (abandoned_) {
            error = RD_KAFKA_RESP_ERR__PURGE_QUEUE;
            break;
          }
          error = produce(producer.get(), topic.value(), shape_.key(event), shape_.value(event),
                          headers.get(), batch.slot(next));
        }
        // A full local queue is backpressure: the poll thread frees room as reports arrive.
        if (error != RD_KAFKA_RESP_ERR__QUEUE_FULL) break;
        if (still_waiting) still_waiting();
        std::this_thread::sleep_for(kQueueFullPause);
      }
      if (error == RD_KAFKA_RESP_ERR_NO_ERROR) {
        (void)headers.release();  // owned by the message now
        if (after != nullptr) handed[next] = true;
        continue;
      }
      batch.record(next, not_sent(topic.value(), error,
                                  "event " + event.event_id +
                                      " not enqueued: " + not_enqueued_because(error)));
    }
  } catch (const std::exception& e) {
    // Not rethrown: the messages already handed over point at this batch and at the events'
    // payloads, so the batch must live until their reports came. The others get their
    // outcome here, so the batch never waits for reports that cannot come.
    spdlog::error("send() failed after {} of {} events were handed over: {}", next, events.size(),
                  e.what());
    for (size_t i = next; i < events.size(); ++i) {
      batch.record(i, not_sent("", RD_KAFKA_RESP_ERR__FAIL,
                               std::string("not enqueued: send() failed: ") + e.what()));
    }
  }
}

bool KafkaPublisher::ready() {
  std::shared_ptr<ProducerHandle> producer = current();
  // A fatal producer that could not be replaced: claiming would only release every row again.
  if (producer->fatal()) return false;
  // Fenced by a relay with the same instance id: no transaction can be published any more,
  // and two relays must not share an id, so this one stops claiming (its batches of one event
  // per aggregate could still go on the shared producer, but that would hide the clash).
  if (transactions_ && transactions_->all_fenced()) return false;
  if (!producer->all_brokers_down() && broker_seen_.load()) return true;
  // Unknown (start) or down: one worker at a time asks the cluster, at most once a second;
  // the others do not wait for it and simply do not claim.
  std::unique_lock lock(probe_mutex_, std::try_to_lock);
  if (!lock.owns_lock() || steady_clock::now() < next_probe_) return false;
  next_probe_ = steady_clock::now() + kProbeInterval;
  const Status probed = producer->probe(kProbeTimeout);
  const steady_clock::time_point now = steady_clock::now();
  if (probed) {
    producer->set_brokers_up();
    broker_seen_.store(true);
    if (reported_down_) {
      spdlog::info("kafka broker reachable again: resuming claims ({} probes had failed)",
                   failed_probes_);
    }
    reported_down_ = false;
    failed_probes_ = 0;
    return true;
  }
  ++failed_probes_;
  if (!reported_down_) {
    spdlog::warn("kafka not reachable ({}): not claiming events until a broker answers",
                 probed.error().message);
    down_since_ = now;
    down_logged_at_ = now;
  } else if (now - down_logged_at_ >= kStillDownLogInterval) {
    spdlog::warn("kafka still not reachable after {} s and {} probes ({}): not claiming",
                 std::chrono::duration_cast<std::chrono::seconds>(now - down_since_).count(),
                 failed_probes_, probed.error().message);
    down_logged_at_ = now;
  }
  reported_down_ = true;
  return false;
}

void KafkaPublisher::abandon_in_flight() {
  // First no more hand-overs (waiting for those under way), then the purge.
  {
    const std::unique_lock closing(abandon_mutex_);
    abandoned_ = true;
  }
  std::lock_guard lock(mutex_);
  producer_->purge();
  for (const std::weak_ptr<ProducerHandle>& weak : retired_) {
    if (std::shared_ptr<ProducerHandle> old = weak.lock()) old->purge();
  }
  // Their transactions then abort (a purged message fails its transaction).
  if (transactions_) transactions_->purge_all();
  if (gapless_) gapless_->purge_all();
}

std::shared_ptr<ProducerHandle> KafkaPublisher::peek() {
  std::lock_guard lock(mutex_);
  return producer_;
}

bool KafkaPublisher::healthy() {
  // peek(), not current(): a probe from the HTTP thread must not replace the producer.
  const std::shared_ptr<ProducerHandle> producer = peek();
  return !producer->fatal() && !producer->all_brokers_down() && broker_seen_.load() &&
         !(transactions_ && transactions_->all_fenced());
}

long KafkaPublisher::queue_length() {
  std::lock_guard lock(mutex_);
  long queued = producer_->queue_length();
  for (const std::weak_ptr<ProducerHandle>& weak : retired_) {
    if (std::shared_ptr<ProducerHandle> old = weak.lock()) queued += old->queue_length();
  }
  if (transactions_) queued += transactions_->queue_length();
  if (gapless_) queued += gapless_->queue_length();
  return queued;
}

Status KafkaPublisher::probe(std::chrono::milliseconds timeout) {
  Status probed = current()->probe(timeout);
  if (probed) broker_seen_.store(true);
  return probed;
}

}  // namespace outbox
