// The duplicate-key classifier (src/common/mysql/duplicate_key.hpp) on arbitrary server
// messages: it must only ever name the last quoted token, and only say "duplicate on this
// key" for the two spellings servers print.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <string>

#include "mysql/duplicate_key.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  const int code =
      input.ConsumeBool() ? outbox::kErrorDuplicateEntry : input.ConsumeIntegral<int>();
  const std::string table = input.ConsumeRandomLengthString(64);
  const std::string key = input.ConsumeRandomLengthString(64);
  const std::string message = input.ConsumeRemainingBytesAsString();

  const std::optional<std::string_view> named = outbox::duplicate_entry_key(code, message);
  if (named) {
    // A view into the message: the text between its last two quotes, the closing one last.
    if (code != outbox::kErrorDuplicateEntry) std::abort();
    if (named->empty() || named->find('\'') != std::string_view::npos) std::abort();
    if (named->data() < message.data() ||
        named->data() + named->size() + 1 != message.data() + message.size()) {
      std::abort();
    }
    if (named->data()[-1] != '\'' || message.back() != '\'') std::abort();
  }
  const bool on_key = outbox::is_duplicate_entry_on(code, message, table, key);
  if (on_key) {
    if (!named) std::abort();
    if (*named != key && *named != table + "." + key) std::abort();
  } else if (named && !key.empty() && *named == key) {
    std::abort();
  }
  return 0;
}
