#include "publish/client_statistics.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

namespace outbox {
namespace {

// Where an object sits in the statistics document: only the members of a broker's own object
// are counted.
enum class Scope { kDocument, kBrokers, kBroker, kOther };

// The documents nest about five deep; this only bounds the recursion on garbage.
constexpr int kMaxDepth = 32;

Scope member_scope(Scope parent, std::string_view key) {
  if (parent == Scope::kDocument && key == "brokers") return Scope::kBrokers;
  if (parent == Scope::kBrokers) return Scope::kBroker;
  return Scope::kOther;
}

uint64_t* counter_named(BrokerRequestTotals& totals, Scope scope, std::string_view key) {
  if (scope == Scope::kDocument) return key == "txmsgs" ? &totals.messages_transmitted : nullptr;
  if (scope != Scope::kBroker) return nullptr;
  if (key == "txretries") return &totals.retries;
  if (key == "req_timeouts") return &totals.timeouts;
  if (key == "txerrs") return &totals.transmit_errors;
  if (key == "disconnects") return &totals.disconnects;
  return nullptr;
}

// A recursive-descent reader of one JSON value. Every method returns false, with problem_
// set, on text that is not well-formed JSON.
class StatisticsScanner {
 public:
  explicit StatisticsScanner(std::string_view text) : text_(text) {}

  Outcome<BrokerRequestTotals> scan() {
    skip_space();
    if (peek() != '{') return fail_now("the document is not an object");
    if (!object(Scope::kDocument, 0)) return failure();
    skip_space();
    if (at_ != text_.size()) return fail_now("text after the document");
    return totals_;
  }

 private:
  Error fail_now(const std::string& problem) {
    problem_ = problem;
    return failure();
  }
  Error failure() const {
    return Error{"librdkafka statistics: " + problem_ + " at offset " + std::to_string(at_)};
  }
  bool fail(const std::string& problem) {
    problem_ = problem;
    return false;
  }

  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  void skip_space() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' || text_[at_] == '\t'))
      ++at_;
  }
  bool expect(char c) {
    skip_space();
    if (peek() != c) return fail(std::string("expected '") + c + "'");
    ++at_;
    return true;
  }

  // Any value; `scope` applies if it is an object, `counter` (may be null) takes it if it is a
  // non-negative integer.
  bool value(Scope scope, int depth, uint64_t* counter) {
    if (depth > kMaxDepth) return fail("nested too deep");
    skip_space();
    switch (peek()) {
      case '{':
        return object(scope, depth + 1);
      case '[':
        return array(depth + 1);
      case '"':
        return string(nullptr);
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number(counter);
    }
  }

  // The comma-separated elements of an object or an array up to `close`, each read by
  // element().
  template <typename Element>
  bool elements(char close, Element element) {
    ++at_;  // '{' or '['
    skip_space();
    if (peek() == close) {
      ++at_;
      return true;
    }
    for (;;) {
      if (!element()) return false;
      skip_space();
      if (peek() != ',') return expect(close);
      ++at_;
    }
  }

  bool object(Scope scope, int depth) {
    return elements('}', [&] {
      skip_space();
      std::string_view key;
      if (peek() != '"') return fail("expected a member name");
      if (!string(&key) || !expect(':')) return false;
      return value(member_scope(scope, key), depth, counter_named(totals_, scope, key));
    });
  }

  bool array(int depth) {
    return elements(']', [&] { return value(Scope::kOther, depth, nullptr); });
  }

  // A string; `raw` (may be null) gets its text between the quotes, escapes left as they are
  // (member names of the statistics never need any).
  bool string(std::string_view* raw) {
    const size_t start = ++at_;  // after '"'
    while (at_ < text_.size() && text_[at_] != '"') {
      if (static_cast<unsigned char>(text_[at_]) < 0x20)
        return fail("control character in a string");
      at_ += text_[at_] == '\\' ? 2 : 1;
    }
    if (at_ >= text_.size()) return fail("unterminated string");
    if (raw != nullptr) *raw = text_.substr(start, at_ - start);
    ++at_;  // '"'
    return true;
  }

  bool literal(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return fail("unknown literal");
    at_ += word.size();
    return true;
  }

  bool number(uint64_t* counter) {
    const size_t start = at_;
    if (peek() == '-') ++at_;
    const size_t digits = at_;
    while (std::isdigit(static_cast<unsigned char>(peek())) != 0)
      ++at_;
    if (at_ == digits) return fail("expected a value");
    bool integer = text_[start] != '-';
    if (peek() == '.') {
      integer = false;
      ++at_;
      while (std::isdigit(static_cast<unsigned char>(peek())) != 0)
        ++at_;
    }
    if (peek() == 'e' || peek() == 'E') {
      integer = false;
      ++at_;
      if (peek() == '+' || peek() == '-') ++at_;
      while (std::isdigit(static_cast<unsigned char>(peek())) != 0)
        ++at_;
    }
    if (counter != nullptr && integer) {
      uint64_t parsed = 0;
      const auto [end, error] = std::from_chars(text_.data() + start, text_.data() + at_, parsed);
      if (error != std::errc{} || end != text_.data() + at_) return fail("counter out of range");
      *counter += parsed;
    }
    return true;
  }

  std::string_view text_;
  size_t at_ = 0;
  std::string problem_;
  BrokerRequestTotals totals_;
};

BrokerRequestTotals at_least(const BrokerRequestTotals& a, const BrokerRequestTotals& b) {
  return {std::max(a.retries, b.retries), std::max(a.timeouts, b.timeouts),
          std::max(a.transmit_errors, b.transmit_errors), std::max(a.disconnects, b.disconnects),
          std::max(a.messages_transmitted, b.messages_transmitted)};
}

}  // namespace

Outcome<BrokerRequestTotals> parse_broker_request_totals(std::string_view json) {
  return StatisticsScanner(json).scan();
}

void ClientStatistics::record(int generation, const BrokerRequestTotals& totals) {
  std::lock_guard lock(mutex_);
  BrokerRequestTotals& latest = by_generation_[generation];
  latest = at_least(latest, totals);
}

namespace {

void add_to(BrokerRequestTotals& sum, const BrokerRequestTotals& totals) {
  sum.retries += totals.retries;
  sum.timeouts += totals.timeouts;
  sum.transmit_errors += totals.transmit_errors;
  sum.disconnects += totals.disconnects;
  sum.messages_transmitted += totals.messages_transmitted;
}

}  // namespace

void ClientStatistics::retire(int generation) {
  std::lock_guard lock(mutex_);
  const auto found = by_generation_.find(generation);
  if (found == by_generation_.end()) return;
  add_to(retired_, found->second);
  by_generation_.erase(found);
}

BrokerRequestTotals ClientStatistics::totals() const {
  std::lock_guard lock(mutex_);
  BrokerRequestTotals sum = retired_;
  for (const auto& [generation, totals] : by_generation_)
    add_to(sum, totals);
  return sum;
}

size_t ClientStatistics::generations_held() const {
  std::lock_guard lock(mutex_);
  return by_generation_.size();
}

}  // namespace outbox
