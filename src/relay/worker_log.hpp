#pragma once

// Pieces of the worker's log lines, shared by its claim and settlement sides.

#include <string>
#include <vector>

#include "publish/publisher.hpp"

namespace outbox {

// The first few ids, then "and N more": a summary line stays readable for a large batch.
std::string some_ids(const std::vector<std::string>& ids);

// "delivered", "not delivered", "maybe delivered".
const char* describe(DeliveryStatus status);

}  // namespace outbox
