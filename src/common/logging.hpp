#pragma once

#include <string>

namespace outbox {

enum class LogFormat { kText, kJson };

// Configures the process-wide spdlog logger: stderr (journald adds its own timestamps, but
// sidecars' log collectors do not, so we keep ours), one line per record.
void setup_logging(const std::string& level, LogFormat format, const std::string& program);

// Changes the level at runtime (SIGHUP reload).
void set_log_level(const std::string& level);

}  // namespace outbox
