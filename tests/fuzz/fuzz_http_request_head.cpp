// The metrics endpoint's request-head parser (src/relay/observe/http_request.hpp) on arbitrary
// bytes: pure and in-process, so libFuzzer sees every branch of it. Checked on each input:
// - the three states mean what the header says: kIncomplete only without a blank line and
//   within kMaxRequestHead; kComplete only for GET or HEAD of a printable path that starts with
//   '/' and holds no query string, taken from the request line itself; kRefused only with one of
//   the documented statuses and a reason;
// - bytes arriving in pieces change nothing: the endpoint parses everything received after each
//   recv(), so every prefix of a request that parses kComplete must be kIncomplete (a refusal
//   there would turn a valid probe away because its bytes came in two segments), and bytes
//   after the blank line do not change the answer.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "observe/http_request.hpp"

namespace {

using outbox::parse_request_head;
using outbox::RequestHead;

[[noreturn]] void fail(const char* what, std::string_view input) {
  std::fprintf(stderr, "parse_request_head: %s (input of %zu bytes)\n", what, input.size());
  std::abort();
}

bool same(const RequestHead& a, const RequestHead& b) {
  return a.state == b.state && a.method == b.method && a.path == b.path && a.status == b.status &&
         a.reason == b.reason;
}

void check_alone(std::string_view input, const RequestHead& head) {
  const size_t blank = input.find("\r\n\r\n");
  switch (head.state) {
    case RequestHead::State::kIncomplete:
      if (blank != std::string_view::npos) fail("incomplete with a blank line", input);
      if (input.size() > outbox::kMaxRequestHead) fail("incomplete past the limit", input);
      if (head.status != 0 || !head.method.empty() || !head.path.empty()) {
        fail("incomplete with a result", input);
      }
      return;
    case RequestHead::State::kComplete: {
      if (blank == std::string_view::npos) fail("complete without a blank line", input);
      if (blank + 4 > outbox::kMaxRequestHead) fail("complete past the limit", input);
      if (head.method != "GET" && head.method != "HEAD") fail("complete for a method", input);
      if (head.path.empty() || head.path.front() != '/') fail("a path without '/'", input);
      for (const unsigned char c : head.path) {
        if (c < 0x21 || c > 0x7e || c == '?') fail("a path with a byte it may not hold", input);
      }
      // The request line is METHOD SP PATH [? QUERY] SP VERSION.
      const std::string start = head.method + " " + head.path;
      if (input.substr(0, start.size()) != start) fail("a path not from the request line", input);
      const char after = input.size() > start.size() ? input[start.size()] : '\0';
      if (after != ' ' && after != '?') fail("a path cut short", input);
      if (head.status != 0) fail("complete with a status", input);
      return;
    }
    case RequestHead::State::kRefused:
      if (head.status != 400 && head.status != 405 && head.status != 413 && head.status != 431 &&
          head.status != 505) {
        fail("refused with an undocumented status", input);
      }
      if (head.reason.empty()) fail("refused without a reason", input);
      return;
  }
  fail("a state outside the enum", input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const RequestHead head = parse_request_head(input);
  check_alone(input, head);

  const size_t blank = input.find("\r\n\r\n");
  if (head.state == RequestHead::State::kComplete) {
    // Every prefix short of the blank line: all of them for short inputs, else a spread of cut
    // points (a request head is parsed from the front, so each cut is as good as its neighbours).
    const size_t end = blank + 4;
    const size_t step = end <= 512 ? 1 : end / 64;
    for (size_t cut = 0; cut < end; cut += step) {
      if (parse_request_head(input.substr(0, cut)).state != RequestHead::State::kIncomplete) {
        fail("a prefix of a complete request is not incomplete", input);
      }
    }
    if (parse_request_head(input.substr(0, end - 1)).state != RequestHead::State::kIncomplete) {
      fail("a complete request one byte short is not incomplete", input);
    }
  }
  if (blank != std::string_view::npos && blank + 4 < input.size()) {
    if (!same(head, parse_request_head(input.substr(0, blank + 4)))) {
      fail("bytes after the blank line changed the answer", input);
    }
  }
  return 0;
}
