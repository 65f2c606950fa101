// Reading the key name out of a duplicate-entry error, as the writer (uq_orders_tenant_request)
// and the consumer (uq_consumed_event_identity) do. The consumer's full case table is in
// duplicate_classifier_test.cpp.
#include <catch2/catch.hpp>

#include "mysql/duplicate_key.hpp"

using outbox::duplicate_entry_key;
using outbox::is_duplicate_entry_on;

TEST_CASE("the key of a duplicate-entry error is its last quoted token", "[duplicate-key]") {
  CHECK(duplicate_entry_key(1062, "Duplicate entry '7-req-1' for key 'uq_orders_tenant_request'") ==
        "uq_orders_tenant_request");
  CHECK(duplicate_entry_key(
            1062, "Duplicate entry '7-req-1' for key 'orders.uq_orders_tenant_request'") ==
        "orders.uq_orders_tenant_request");
  // The value may hold anything, quotes and key names included.
  CHECK(duplicate_entry_key(1062, "Duplicate entry 'a' for key 'b'-x' for key 'PRIMARY'") ==
        "PRIMARY");
  // Translated messages (lc_messages) keep the key as the last quoted token.
  CHECK(duplicate_entry_key(1062, "Doppelter Eintrag '7-r' für Schlüssel 'uq_x'") == "uq_x");
}

TEST_CASE("no key is read from other codes or malformed messages", "[duplicate-key]") {
  CHECK_FALSE(duplicate_entry_key(1022, "Can't write; duplicate key in table 'orders'"));
  CHECK_FALSE(duplicate_entry_key(1586, "Duplicate entry 'x' for key 'uq_x'"));
  CHECK_FALSE(duplicate_entry_key(1062, "Duplicate entry 'x' for key uq_x"));
  CHECK_FALSE(duplicate_entry_key(1062, "Duplicate entry 'x' for key ''"));
  CHECK_FALSE(duplicate_entry_key(1062, "'"));
  CHECK_FALSE(duplicate_entry_key(1062, ""));
}

TEST_CASE("a duplicate is on a key only in its own spelling or table.key", "[duplicate-key]") {
  const auto on_orders_key = [](std::string_view message) {
    return is_duplicate_entry_on(1062, message, "orders", "uq_orders_tenant_request");
  };
  CHECK(on_orders_key("Duplicate entry '1-r' for key 'uq_orders_tenant_request'"));
  CHECK(on_orders_key("Duplicate entry '1-r' for key 'orders.uq_orders_tenant_request'"));
  CHECK_FALSE(on_orders_key("Duplicate entry '1-r' for key 'other.uq_orders_tenant_request'"));
  CHECK_FALSE(on_orders_key("Duplicate entry '1-r' for key 'orders.uq_orders_tenant_request_v2'"));
  CHECK_FALSE(on_orders_key("Duplicate entry '1-r' for key 'xorders.uq_orders_tenant_request'"));
  CHECK_FALSE(on_orders_key("Duplicate entry 'uq_orders_tenant_request' for key 'PRIMARY'"));
  CHECK(is_duplicate_entry_on(1062, "Duplicate entry '5' for key 'PRIMARY'", "orders", "PRIMARY"));
  CHECK(is_duplicate_entry_on(1062, "Duplicate entry '5' for key 'orders.PRIMARY'", "orders",
                              "PRIMARY"));
  CHECK_FALSE(is_duplicate_entry_on(1452, "... CONSTRAINT `uq_orders_tenant_request` ... 'orders'",
                                    "orders", "uq_orders_tenant_request"));
}
