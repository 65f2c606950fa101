#include "event_consumer.hpp"

#include <spdlog/spdlog.h>

#include <cppconn/exception.h>

#include <algorithm>
#include <array>

#include "apply_once.hpp"
#include "backoff.hpp"
#include "event_id_header.hpp"
#include "failpoint.hpp"
#include "interruptible_sleep.hpp"
#include "mysql/mysql_error.hpp"
#include "schema_check.hpp"

namespace outbox::consumer {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr milliseconds kPollInterval{100};

// Takes (`add`) or gives up `partitions` as the group's protocol wants: incrementally under
// the cooperative protocol, the whole assignment under the eager one.
void change_assignment(rd_kafka_t* handle, rd_kafka_topic_partition_list_t* partitions, bool add) {
  if (std::string_view(rd_kafka_rebalance_protocol(handle)) != "COOPERATIVE") {
    rd_kafka_assign(handle, add ? partitions : nullptr);
    return;
  }
  rd_kafka_error_t* failure = add ? rd_kafka_incremental_assign(handle, partitions)
                                  : rd_kafka_incremental_unassign(handle, partitions);
  if (failure != nullptr) {
    spdlog::error("{} partitions: {}", add ? "assigning" : "unassigning",
                  rd_kafka_error_string(failure));
    rd_kafka_error_destroy(failure);
  }
}

// "event <id> at <topic>/<partition>@<offset>", with " (trace <trace id>)" when the message
// carries a W3C traceparent: every line about an event names its trace.
std::string event_name(const ReceivedEvent& event) {
  const std::string trace_id = event.trace_id();
  return (event.event_id.empty() ? std::string("message") : "event " + event.event_id) + " at " +
         event.position() + (trace_id.empty() ? "" : " (trace " + trace_id + ")");
}

}  // namespace

Outcome<std::unique_ptr<EventConsumer>> EventConsumer::create(ConsumerOptions options) {
  std::unique_ptr<EventConsumer> self(new EventConsumer(std::move(options)));
  const ConsumerSettings& settings = self->options_.settings;
  const std::vector<KafkaProperty> properties = consumer_properties(settings);
  Outcome<RdKafkaConf> conf = make_kafka_conf(properties);
  if (!conf) return Error{"consumer: " + conf.error().message};
  rd_kafka_conf_set_opaque(conf.value().get(), self.get());
  rd_kafka_conf_set_rebalance_cb(conf.value().get(), on_rebalance);
  rd_kafka_conf_set_offset_commit_cb(conf.value().get(), on_offset_commit);
  rd_kafka_conf_set_error_cb(conf.value().get(), on_error);
  route_rdkafka_logs(conf.value().get());
  std::array<char, 512> error{};
  rd_kafka_t* handle =
      rd_kafka_new(RD_KAFKA_CONSUMER, conf.value().get(), error.data(), error.size());
  if (handle == nullptr) return Error{std::string("cannot create the consumer: ") + error.data()};
  (void)conf.value().release();  // owned by the handle now
  self->consumer_.reset(handle);
  self->positions_ =
      std::make_unique<PartitionPositions>(handle, self->stats_, settings.consumer.commit_interval);
  // Every callback (rebalance, offset commit, error) then runs inside rd_kafka_consumer_poll(),
  // on the thread that runs run().
  rd_kafka_poll_set_consumer(handle);

  Outcome<std::unique_ptr<DeadLetterPublisher>> dead_letters =
      DeadLetterPublisher::create(settings);
  if (!dead_letters) return dead_letters.error();
  self->dead_letters_ = std::move(dead_letters).value();
  spdlog::info("consumer properties:");
  log_kafka_properties(properties);
  spdlog::info("dead-letter producer properties:");
  log_kafka_properties(dead_letter_producer_properties(settings));
  return self;
}

EventConsumer::EventConsumer(ConsumerOptions options)
    : options_(std::move(options)),
      holds_(options_.settings.consumer.backoff_initial, options_.settings.consumer.backoff_max) {}

EventConsumer::~EventConsumer() = default;

ConsumerExit EventConsumer::run(const std::stop_token& stop) {
  const ConsumerSettings& settings = options_.settings;
  switch (wait_for_database(stop)) {
    case Readiness::kStopped:
      spdlog::info("stopped before start-up completed; nothing was consumed");
      return ConsumerExit::kStoppedBeforeStart;
    case Readiness::kWrongSchema:
      return ConsumerExit::kNeedsOperator;
    case Readiness::kReady:
      break;
  }
  RdKafkaPartitionList topics(
      rd_kafka_topic_partition_list_new(static_cast<int>(settings.kafka.topics.size())));
  for (const std::string& topic : settings.kafka.topics) {
    rd_kafka_topic_partition_list_add(topics.get(), topic.c_str(), RD_KAFKA_PARTITION_UA);
  }
  if (const rd_kafka_resp_err_t error = rd_kafka_subscribe(consumer_.get(), topics.get());
      error != RD_KAFKA_RESP_ERR_NO_ERROR) {
    spdlog::critical("cannot subscribe: {}", rd_kafka_err2str(error));
    return ConsumerExit::kKafkaFatal;
  }
  std::string topic_names;
  for (const std::string& topic : settings.kafka.topics)
    topic_names += (topic_names.empty() ? "" : ", ") + topic;
  spdlog::info("consumer {} running: group {}, topics {}, dead letters to {}",
               settings.consumer.name, settings.kafka.group_id, topic_names,
               settings.consumer.dead_letter_topic);
  next_progress_ = steady_clock::now() + options_.stats_interval;

  ConsumerExit exit = ConsumerExit::kDrained;
  while (!stop.stop_requested()) {
    resume_due_partitions();
    positions_->serve_commit_results(steady_clock::now());
    milliseconds wait = kPollInterval;
    if (const auto next = holds_.next_resume()) {
      wait = std::clamp(duration_cast<milliseconds>(*next - steady_clock::now()), milliseconds(0),
                        kPollInterval);
    }
    const RdKafkaMessage message(
        rd_kafka_consumer_poll(consumer_.get(), static_cast<int>(wait.count())));
    if (!fatal_error_.empty()) {
      spdlog::critical("kafka consumer fatal error: {}; stopping", fatal_error_);
      exit = ConsumerExit::kKafkaFatal;
      break;
    }
    if (message) {
      if (message->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        on_consumer_error(*message);
      } else {
        handle(*message);
      }
    }
    report_progress(false);
  }
  if (exit == ConsumerExit::kDrained) {
    spdlog::info("stopping: leaving the group after committing acknowledged offsets");
  }
  // Revokes the assignment (on_rebalance commits what was acknowledged) and leaves the group,
  // so the other members take the partitions over without waiting for a session timeout.
  if (const rd_kafka_resp_err_t error = rd_kafka_consumer_close(consumer_.get());
      error != RD_KAFKA_RESP_ERR_NO_ERROR) {
    spdlog::warn("leaving the consumer group: {}", rd_kafka_err2str(error));
  }
  report_progress(true);
  return exit;
}

EventConsumer::Readiness EventConsumer::wait_for_database(const std::stop_token& stop) {
  Backoff backoff(options_.settings.consumer.backoff_initial,
                  options_.settings.consumer.backoff_max);
  while (!stop.stop_requested()) {
    std::string problem;
    if (open_session()) {
      try {
        const SchemaCheck check = check_consumed_event_schema(*session_);
        if (check.state == SchemaState::kReady) {
          spdlog::info("mysql {} ready, {}: {}", options_.mysql.describe(), session_->tls(),
                       check.message);
          return Readiness::kReady;
        }
        if (check.state == SchemaState::kWrong) {
          spdlog::critical("mysql {}: {}", options_.mysql.describe(), check.message);
          return Readiness::kWrongSchema;
        }
        problem = check.message;
      } catch (const sql::SQLException& e) {
        problem = describe_sql_error(e);
        session_.reset();
      }
    } else {
      problem = "no session";
    }
    const Micros pause = backoff.next();
    spdlog::warn("waiting for MySQL: {}; retrying in {}", problem, format_pause(pause));
    sleep_unless_stopped(stop, pause);
  }
  return Readiness::kStopped;
}

bool EventConsumer::open_session() {
  if (session_) return true;
  Outcome<std::unique_ptr<MysqlSession>> opened =
      MysqlSession::open(options_.mysql, SessionSettings{});
  if (!opened) {
    spdlog::warn("{}", opened.error().message);
    return false;
  }
  session_ = std::move(opened).value();
  if (session_was_lost_) spdlog::info("reconnected to MySQL {}", options_.mysql.describe());
  session_was_lost_ = false;
  return true;
}

void EventConsumer::handle(const rd_kafka_message_t& message) {
  const TopicPartition partition{rd_kafka_topic_name(message.rkt), message.partition};
  if (!holds_.may_process(partition, message.offset)) {
    const PartitionHolds::Hold* hold = holds_.find(partition);
    if (hold != nullptr && !hold->paused && message.offset > hold->offset) {
      spdlog::warn("{}/{}@{} arrived before the held message at offset {}: rewinding again",
                   partition.first, partition.second, message.offset, hold->offset);
      holds_.rewind_again(partition, steady_clock::now());
      positions_->pause_and_rewind(partition, hold->offset);
    }
    // Otherwise fetched before the pause took effect: it comes again after the rewind.
    return;
  }
  ReceivedEvent event = received_event_from(message);
  Outcome<std::string> event_id = event_id_from_headers(event.headers);
  if (!event_id) {
    dead_letter(partition, event, event_id.error().message, "invalid event_id header");
    return;
  }
  event.event_id = std::move(event_id).value();
  apply(partition, event);
}

void EventConsumer::apply(const TopicPartition& partition, ReceivedEvent& event) {
  if (!open_session()) {
    hold_back(partition, event, "no MySQL session", false);
    return;
  }
  const ApplyOutcome outcome =
      apply_once(*session_, options_.settings.consumer.name, event, options_.handler);
  if (outcome.session_lost) {
    session_.reset();
    session_was_lost_ = true;
  }
  switch (outcome.verdict) {
    case ApplyVerdict::kApplied:
      ++stats_.applied;
      // event_name() formats several strings: not for every message when nobody reads them.
      if (spdlog::should_log(spdlog::level::debug)) {
        spdlog::debug("{}: applied, acknowledged", event_name(event));
      }
      // Fault-injection tests kill the process here: committed, not acknowledged. The
      // redelivery must be recognised as already consumed.
      (void)failpoints::hit(failpoints::kConsumerAfterCommitBeforeAck);
      settle(partition, event.offset);
      return;
    case ApplyVerdict::kAlreadyConsumed:
      ++stats_.duplicates;
      spdlog::info("{}: already consumed by {} (duplicate delivery): acknowledged, no effect",
                   event_name(event), options_.settings.consumer.name);
      settle(partition, event.offset);
      return;
    case ApplyVerdict::kRejected:
      dead_letter(partition, event, "rejected by the handler: " + outcome.detail,
                  "rejected by the handler");
      return;
    case ApplyVerdict::kCommitUnknown:
      ++stats_.commit_unknown;
      hold_back(partition, event,
                outcome.detail +
                    " (outcome unknown: not acknowledged; a retry finds it applied or applies it)",
                false);
      return;
    case ApplyVerdict::kFailed: {
      const int max_attempts = options_.settings.consumer.max_attempts;
      if (outcome.counts_attempt && max_attempts > 0 &&
          holds_.counted_failures(partition, event.offset) + 1 >= max_attempts) {
        ++stats_.gave_up;
        dead_letter(partition, event,
                    "failed " + std::to_string(max_attempts) +
                        " times (consumer.max_attempts), last: " + outcome.detail,
                    "gave up after " + std::to_string(max_attempts) + " attempts");
        return;
      }
      hold_back(partition, event, outcome.detail, outcome.counts_attempt);
      return;
    }
  }
}

void EventConsumer::dead_letter(const TopicPartition& partition, const ReceivedEvent& event,
                                const std::string& reason, const std::string& what) {
  const Status published = dead_letters_->publish(event, reason);
  if (!published) {
    hold_back(partition, event, what + ", and " + published.error().message, false);
    return;
  }
  ++stats_.dead_lettered;
  spdlog::warn("{}: {}: {}; sent to dead-letter topic {}, acknowledged, no local effect",
               event_name(event), what, reason, options_.settings.consumer.dead_letter_topic);
  settle(partition, event.offset);
}

void EventConsumer::hold_back(const TopicPartition& partition, const ReceivedEvent& event,
                              const std::string& why, bool counts_attempt) {
  ++stats_.failed_attempts;
  const auto now = steady_clock::now();
  const PartitionHolds::Hold& hold = holds_.failed(partition, event.offset, now, counts_attempt);
  spdlog::warn("{}: attempt {} failed: {}; not acknowledged, retrying in {}", event_name(event),
               hold.attempts, why, format_pause(duration_cast<Micros>(hold.resume_at - now)));
  positions_->pause_and_rewind(partition, event.offset);
}

void EventConsumer::resume_due_partitions() {
  for (const TopicPartition& partition : holds_.take_due(steady_clock::now()))
    positions_->resume(partition);
}

void EventConsumer::settle(const TopicPartition& partition, int64_t offset) {
  holds_.settled(partition);
  positions_->acknowledge(partition, offset);
}

void EventConsumer::on_consumer_error(const rd_kafka_message_t& message) {
  if (message.err == RD_KAFKA_RESP_ERR__PARTITION_EOF) return;
  const std::string where = message.rkt != nullptr
                                ? std::string(" (") + rd_kafka_topic_name(message.rkt) + "/" +
                                      std::to_string(message.partition) + ")"
                                : "";
  spdlog::warn("kafka consumer: {}{}", rd_kafka_err2str(message.err), where);
}

void EventConsumer::report_progress(bool force) {
  if (!force && (options_.stats_interval.count() == 0 || steady_clock::now() < next_progress_)) {
    return;
  }
  next_progress_ = steady_clock::now() + options_.stats_interval;
  spdlog::info("progress: {} held_partitions={}", stats_.describe(), holds_.size());
}

void EventConsumer::on_rebalance(rd_kafka_t* handle, rd_kafka_resp_err_t error,
                                 rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  auto* self = static_cast<EventConsumer*>(opaque);
  if (error == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    spdlog::info("assigned {} partitions: {}", partitions->cnt, describe_partitions(partitions));
    change_assignment(handle, partitions, true);
    // librdkafka keeps a partition's pause across its revocation and a later assignment to
    // this member (its maintainer's answer in librdkafka#1849), while the revocation forgot
    // the hold that paused it: nothing would resume it, and it would deliver nothing again.
    // Seen in the real-cluster chaos soak: a message failed while MySQL restarted, two
    // rebalances gave its partition back, and 229 events behind it were never consumed. An
    // assigned partition starts unheld, from the committed offset.
    if (const rd_kafka_resp_err_t resumed = rd_kafka_resume_partitions(handle, partitions);
        resumed != RD_KAFKA_RESP_ERR_NO_ERROR) {
      spdlog::error("resuming assigned partitions: {}", rd_kafka_err2str(resumed));
    }
    return;
  }
  // Revoked (or the assignment was lost): acknowledged offsets are committed now, so the next
  // owner starts after them; held messages are the next owner's to retry.
  spdlog::info("revoked {} partitions: {}", partitions->cnt, describe_partitions(partitions));
  if (error == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    self->positions_->commit_acknowledged(partitions);
  }
  for (int i = 0; i < partitions->cnt; ++i) {
    const TopicPartition partition{partitions->elems[i].topic, partitions->elems[i].partition};
    self->holds_.forget(partition);
    self->positions_->forget(partition);
  }
  change_assignment(handle, partitions, false);
}

void EventConsumer::on_offset_commit(rd_kafka_t* /*handle*/, rd_kafka_resp_err_t error,
                                     rd_kafka_topic_partition_list_t* offsets, void* opaque) {
  static_cast<EventConsumer*>(opaque)->positions_->on_offset_commit(error, offsets);
}

void EventConsumer::on_error(rd_kafka_t* handle, int error, const char* reason, void* opaque) {
  auto* self = static_cast<EventConsumer*>(opaque);
  const auto code = static_cast<rd_kafka_resp_err_t>(error);
  if (code == RD_KAFKA_RESP_ERR__FATAL) {
    std::array<char, 512> text{};
    const rd_kafka_resp_err_t underlying = rd_kafka_fatal_error(handle, text.data(), text.size());
    self->fatal_error_ = std::string(rd_kafka_err2name(underlying)) + ": " + text.data();
    return;
  }
  spdlog::warn("kafka consumer: {}: {}", rd_kafka_err2name(code), reason);
}

}  // namespace outbox::consumer
