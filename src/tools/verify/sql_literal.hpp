#pragma once

#include <string>

namespace outbox::verify {

// A quoted SQL string literal for statements the verifier sends through the mariadb CLI (which
// cannot bind parameters). Only identifiers the chain itself produced go in (event ids, request
// ids, claim tokens, database names), so anything outside [A-Za-z0-9._:/-] is refused
// (std::invalid_argument) instead of escaped: a quote in an id means something is badly wrong.
std::string sql_literal(const std::string& value);

}  // namespace outbox::verify
