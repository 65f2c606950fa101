#include "failpoint.hpp"

#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX kill(), not in <csignal>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace outbox::failpoints {
namespace {

enum class Action { kKill, kSleep, kError };

struct Point {
  Action action = Action::kError;
  long sleep_ms = 0;
  long fire_on = 0;  // 0: every hit
  long hits = 0;
  std::string text;
};

std::atomic<bool> g_armed{false};
std::mutex g_mutex;
std::map<std::string, Point, std::less<>> g_points;

std::optional<long> number(std::string_view text) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

Status configure(std::string_view spec, bool guarded) {
  std::lock_guard lock(g_mutex);
  g_points.clear();
  g_armed.store(false);
  if (spec.empty()) return ok_status();
  if (!guarded) {
    return Error{std::string(kVariable) + " is set but " + kGuardVariable + " is not \"" +
                 kGuardValue +
                 "\": failpoints make this process fail on purpose and are for "
                 "fault-injection tests only; unset " +
                 kVariable};
  }
  std::map<std::string, Point, std::less<>> points;
  while (!spec.empty()) {
    const size_t comma = spec.find(',');
    const std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return Error{std::string(kVariable) + ": \"" + std::string(item) + "\" is not name=action"};
    }
    const std::string_view name = item.substr(0, eq);
    if (std::find(std::begin(kKnown), std::end(kKnown), name) == std::end(kKnown)) {
      std::string known;
      for (const std::string_view each : kKnown)
        known += (known.empty() ? "" : ", ") + std::string(each);
      return Error{std::string(kVariable) + ": unknown failpoint \"" + std::string(name) +
                   "\" (known: " + known + ")"};
    }
    Point point;
    point.text = std::string(item);
    std::string_view action = item.substr(eq + 1);
    if (const size_t at = action.find('@'); at != std::string_view::npos) {
      const auto nth = number(action.substr(at + 1));
      if (!nth || *nth == 0) {
        return Error{std::string(kVariable) + ": bad hit number in \"" + std::string(item) + "\""};
      }
      point.fire_on = *nth;
      action = action.substr(0, at);
    }
    if (action == "kill") {
      point.action = Action::kKill;
    } else if (action == "error") {
      point.action = Action::kError;
    } else if (action.rfind("sleep:", 0) == 0 && number(action.substr(6))) {
      point.action = Action::kSleep;
      point.sleep_ms = *number(action.substr(6));
    } else {
      return Error{std::string(kVariable) + ": unknown action in \"" + std::string(item) +
                   "\" (kill, error, sleep:MS)"};
    }
    points[std::string(name)] = point;
  }
  g_points = std::move(points);
  g_armed.store(true);
  return ok_status();
}

Status configure_from_environment() {
  const char* spec = std::getenv(kVariable);
  const char* guard = std::getenv(kGuardVariable);
  return configure(spec == nullptr ? "" : spec,
                   guard != nullptr && std::string_view(guard) == kGuardValue);
}

bool hit(std::string_view name) {
  if (!g_armed.load(std::memory_order_relaxed)) return false;
  Action action;
  long sleep_ms = 0;
  {
    std::lock_guard lock(g_mutex);
    const auto found = g_points.find(name);
    if (found == g_points.end()) return false;
    Point& point = found->second;
    ++point.hits;
    if (point.fire_on != 0 && point.hits != point.fire_on) return false;
    action = point.action;
    sleep_ms = point.sleep_ms;
    // Before acting, so that the log shows where a deliberate failure came from, and a test
    // can tell that the process now waits inside the window.
    spdlog::warn("FAILPOINT {} fired: {}", name, point.text.substr(point.text.find('=') + 1));
  }
  switch (action) {
    case Action::kKill:
      kill(getpid(), SIGKILL);
      pause();  // SIGKILL cannot be caught: this never returns
      return false;
    case Action::kSleep:
      std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
      return false;
    case Action::kError:
      return true;
  }
  return false;
}

std::vector<std::string> armed() {
  std::lock_guard lock(g_mutex);
  std::vector<std::string> out;
  out.reserve(g_points.size());
  for (const auto& [name, point] : g_points)
    out.push_back(point.text);
  return out;
}

void warn_armed() {
  for (const std::string& point : armed()) {
    spdlog::warn("FAILPOINT ARMED: {} (fault-injection testing only)", point);
  }
}

}  // namespace outbox::failpoints
