#include "command.hpp"

#include "failed_events.hpp"

namespace outbox::ctl {

const std::vector<Command>& commands() {
  static const std::vector<Command> all{
      {"requeue", "<event_id> | --all-failed",
       "put FAILED events back to PENDING with their attempts reset", requeue},
      {"skip", "<event_id>",
       "give up on a FAILED event (SKIPPED); in per-aggregate mode its aggregate moves on", skip},
  };
  return all;
}

std::string json_string(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\\u00";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace outbox::ctl
