#include "replay_request.hpp"

#include <charconv>
#include <chrono>
#include <memory>
#include <regex>

#include "config/duration.hpp"

namespace outbox::ctl {
namespace {

// created_at as replay keys compare it (the exact TIMESTAMP(6)).
constexpr const char* kReplayKeyFormat = "'%Y-%m-%d %H:%i:%s.%f'";

std::optional<int64_t> parse_count(const std::string& text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

int field(const std::string& text, size_t at, size_t width) {
  int value = 0;
  std::from_chars(text.data() + at, text.data() + at + width, value);
  return value;
}

// An absolute UTC time in one of the spellings an operator types, as MySQL's DATETIME text, or
// nullopt. Checked here, fields and calendar (2026-02-30 is no day): MySQL takes a prepared
// statement's string as a DATETIME without checking the day of the month. Other zones are
// refused rather than guessed: every created_at is compared in UTC.
std::optional<std::string> absolute_time(const std::string& text) {
  static const std::regex kTime(
      R"((\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2}(?:\.\d{1,6})?)?)?(Z|\+00:00)?)");
  std::smatch match;
  if (!std::regex_match(text, match, kTime)) return std::nullopt;
  std::string out = match[1].str() + " " + (match[2].matched ? match[2].str() : "00:00");
  out += match[3].matched ? match[3].str() : ":00";
  // "YYYY-MM-DD HH:MM:SS[.f]"
  const std::chrono::year_month_day day{std::chrono::year(field(out, 0, 4)),
                                        std::chrono::month(static_cast<unsigned>(field(out, 5, 2))),
                                        std::chrono::day(static_cast<unsigned>(field(out, 8, 2)))};
  if (!day.ok() || field(out, 11, 2) > 23 || field(out, 14, 2) > 59 || field(out, 17, 2) > 59) {
    return std::string();  // spelled right, but no such time
  }
  return out;
}

// The database's now minus `ago`, or `time` as written, as a key; empty when the server finds
// no such time. CONCAT keeps the parameter a string: MySQL types a bare CAST(? AS DATETIME)
// parameter DATETIME.
std::string key_time(MysqlSession& session, const std::optional<Micros>& ago,
                     const std::string& time) {
  std::string text =
      std::string("SELECT DATE_FORMAT(") +
      (ago ? "CURRENT_TIMESTAMP(6) - INTERVAL ? MICROSECOND" : "CAST(? AS DATETIME(6))") + ", " +
      kReplayKeyFormat + ")";
  sql::PreparedStatement& statement = session.prepare(text);
  if (ago) {
    statement.setInt64(1, ago->count());
  } else {
    statement.setString(1, time);
  }
  std::unique_ptr<sql::ResultSet> rows(statement.executeQuery());
  if (!rows->next() || rows->isNull(1)) return "";
  return rows->getString(1).asStdString();
}

Outcome<std::string> resolve_time(MysqlSession& session, const std::string& flag,
                                  const std::string& text) {
  const std::optional<Micros> ago = parse_duration(text);
  const std::optional<std::string> absolute = ago ? std::nullopt : absolute_time(text);
  if (!ago && !absolute) {
    return Error{flag + " \"" + text +
                 "\": not a UTC time (2026-12-06, 2026-12-06 10:00, 2026-12-06T10:00:00Z) or a "
                 "duration before now (90m, 2h, 7d)"};
  }
  std::string key = ago || !absolute->empty() ? key_time(session, ago, absolute.value_or("")) : "";
  if (key.empty()) return Error{flag + " \"" + text + "\": no such time"};
  return key;
}

}  // namespace

ParsedReplay parse_replay_args(const std::vector<std::string>& args) {
  ReplayRequest request;
  bool since = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--dry-run") {
      request.dry_run = true;
      continue;
    }
    if (flag.rfind("--", 0) != 0) return {std::nullopt, "unexpected argument \"" + flag + "\""};
    if (i + 1 >= args.size()) return {std::nullopt, flag + " needs a value"};
    const std::string& value = args[++i];
    if (flag == "--since") {
      request.since_text = value;
      since = true;
    } else if (flag == "--until") {
      request.until_text = value;
    } else if (flag == "--topic") {
      request.topic = value;
    } else if (flag == "--aggregate-type") {
      request.aggregate_type = value;
    } else if (flag == "--rate") {
      const std::optional<int64_t> rate = parse_count(value);
      if (!rate || *rate < 0) {
        return {std::nullopt,
                "--rate must be events a second (0: no limit), got \"" + value + "\""};
      }
      request.rate = *rate;
    } else if (flag == "--batch-size") {
      const std::optional<int64_t> size = parse_count(value);
      if (!size || *size < 1 || *size > kMaxReplayBatch) {
        return {std::nullopt, "--batch-size must be between 1 and " +
                                  std::to_string(kMaxReplayBatch) + ", got \"" + value + "\""};
      }
      request.batch_size = static_cast<int>(*size);
    } else {
      return {std::nullopt, "unknown option " + flag};
    }
  }
  if (!since) return {std::nullopt, "--since is required: where the window starts"};
  if (request.topic && request.aggregate_type) {
    return {std::nullopt, "name one --topic or one --aggregate-type, not both"};
  }
  return {std::move(request), ""};
}

Outcome<ReplayWindow> resolve_window(MysqlSession& session, const ReplayRequest& request) {
  Outcome<std::string> since = resolve_time(session, "--since", request.since_text);
  if (!since) return since.error();
  Outcome<std::string> until = request.until_text
                                   ? resolve_time(session, "--until", *request.until_text)
                                   : Outcome<std::string>(key_time(session, Micros{0}, ""));
  if (!until) return until.error();
  session.commit();
  // Both keys are the same fixed-width text, so text order is time order.
  if (since.value() >= until.value()) {
    return Error{"the window is empty: --since " + iso_utc(since.value()) +
                 " is not before --until " + iso_utc(until.value())};
  }
  return ReplayWindow{std::move(since).value(), std::move(until).value()};
}

std::string iso_utc(std::string key_time) {
  if (key_time.size() > 10) key_time[10] = 'T';
  return key_time + "Z";
}

}  // namespace outbox::ctl
