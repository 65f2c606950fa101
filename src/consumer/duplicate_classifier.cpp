#include "duplicate_classifier.hpp"

#include "mysql/duplicate_key.hpp"

namespace outbox::consumer {

bool is_already_consumed(int error_code, std::string_view message) {
  return is_duplicate_entry_on(error_code, message, kConsumedEventTable, kConsumedEventIdentity);
}

}  // namespace outbox::consumer
