#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mysql/mysql_endpoint.hpp"

namespace outbox::loadgen {

struct LoadgenOptions {
  MysqlEndpoint primary;
  int64_t orders = 10000;
  // Orders per second; 0 writes a backlog: as fast as one connection commits.
  double rate = 0;
  int64_t tenant_id = 1;
  int64_t first_order_id = 1;
};

inline constexpr const char* kUsage =
    "usage: outbox-loadgen [--host H] [--port P] [--socket S] [--user U] [--password W]\n"
    "                      [--database D] [--orders N] [--rate PER_SECOND | --backlog]\n"
    "                      [--tenant T] [--first-order-id ID]\n"
    "  Submits orders N times through the writer library, each order row and its\n"
    "  ORDER_ACCEPTED event in one transaction, request id req-<order id> and an event id\n"
    "  chosen before the first attempt. --rate paces the orders; --backlog (or --rate 0)\n"
    "  writes as fast as one connection commits. The password may also come from\n"
    "  OUTBOX_MYSQL_PASSWORD.\n";

// The options, or nullopt with `error` naming the bad flag.
std::optional<LoadgenOptions> parse_loadgen_options(int argc, char** argv, std::string& error);

}  // namespace outbox::loadgen
