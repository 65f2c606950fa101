#include "loadgen_options.hpp"

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace outbox::loadgen {
namespace {

template <typename Number>
bool parse_number(std::string_view text, Number& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::optional<LoadgenOptions> parse_loadgen_options(int argc, char** argv, std::string& error) {
  LoadgenOptions options;
  options.primary.user = "outbox";
  options.primary.database = "demo";
  if (const char* password = std::getenv("OUTBOX_MYSQL_PASSWORD")) {
    options.primary.password = password;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--backlog") {
      options.rate = 0;
      continue;
    }
    if (i + 1 >= argc) {
      error = std::string(flag) + " needs a value";
      return std::nullopt;
    }
    const std::string value = argv[++i];
    bool valid = true;
    if (flag == "--host") {
      options.primary.host = value;
    } else if (flag == "--port") {
      valid = parse_number(value, options.primary.port) && options.primary.port > 0;
    } else if (flag == "--socket") {
      options.primary.socket = value;
    } else if (flag == "--user") {
      options.primary.user = value;
    } else if (flag == "--password") {
      options.primary.password = value;
    } else if (flag == "--database") {
      options.primary.database = value;
    } else if (flag == "--orders") {
      valid = parse_number(value, options.orders) && options.orders >= 0;
    } else if (flag == "--rate") {
      valid = parse_number(value, options.rate) && options.rate >= 0;
    } else if (flag == "--tenant") {
      valid = parse_number(value, options.tenant_id);
    } else if (flag == "--first-order-id") {
      valid = parse_number(value, options.first_order_id);
    } else {
      error = "unknown option " + std::string(flag);
      return std::nullopt;
    }
    if (!valid) {
      error = std::string(flag) + ": invalid value \"" + value + "\"";
      return std::nullopt;
    }
  }
  return options;
}

}  // namespace outbox::loadgen
