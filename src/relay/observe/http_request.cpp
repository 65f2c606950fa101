#include "observe/http_request.hpp"

#include <algorithm>
#include <cctype>

namespace outbox {
namespace {

// The longest method a request line may start with (OPTIONS is 7).
constexpr size_t kMaxMethod = 16;

RequestHead refuse(int status, std::string reason) {
  RequestHead head;
  head.state = RequestHead::State::kRefused;
  head.status = status;
  head.reason = std::move(reason);
  return head;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

// A header that announces a body: the endpoint reads none, so the request is refused rather
// than leaving unread bytes (or gigabytes a client claims to send) on the connection.
bool announces_body(std::string_view name, std::string_view value) {
  const std::string key = lower(name);
  if (key == "transfer-encoding") return true;
  if (key != "content-length") return false;
  value = trim(value);
  return !(value == "0");
}

}  // namespace

RequestHead parse_request_head(std::string_view received) {
  const size_t end = received.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (received.size() > kMaxRequestHead) return refuse(431, "request head too large");
    // Bytes that cannot begin a request line need no more bytes to be refused: the slot goes
    // back at once instead of at the header deadline.
    const size_t method_end = std::min(received.find(' '), received.size());
    if (method_end > kMaxMethod) return refuse(400, "malformed request line");
    for (size_t i = 0; i < method_end; ++i) {
      if (received[i] < 'A' || received[i] > 'Z') return refuse(400, "malformed request line");
    }
    return RequestHead{};
  }
  if (end + 4 > kMaxRequestHead) return refuse(431, "request head too large");
  const std::string_view head = received.substr(0, end);
  const size_t line_end = std::min(head.find("\r\n"), head.size());
  const std::string_view line = head.substr(0, line_end);
  // METHOD SP TARGET SP HTTP/1.x
  const size_t first = line.find(' ');
  const size_t last = line.rfind(' ');
  if (first == std::string_view::npos || first == last || first == 0) {
    return refuse(400, "malformed request line");
  }
  const std::string_view method = line.substr(0, first);
  const std::string_view target = line.substr(first + 1, last - first - 1);
  const std::string_view version = line.substr(last + 1);
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return refuse(version.rfind("HTTP/", 0) == 0 ? 505 : 400, "unsupported protocol version");
  }
  if (target.empty() || target.front() != '/' || target.find(' ') != std::string_view::npos) {
    return refuse(400, "malformed request target");
  }
  for (const unsigned char c : target) {
    if (c < 0x21 || c > 0x7e) return refuse(400, "malformed request target");
  }
  // Header lines: name ":" value. Each must be well formed, and none may announce a body.
  size_t at = line_end;
  while (at < head.size()) {
    at += 2;  // past "\r\n"
    const size_t next = std::min(head.find("\r\n", at), head.size());
    const std::string_view header = head.substr(at, next - at);
    const size_t colon = header.find(':');
    if (colon == std::string_view::npos || colon == 0) return refuse(400, "malformed header");
    for (const unsigned char c : header.substr(0, colon)) {
      if (c <= 0x20 || c >= 0x7f) return refuse(400, "malformed header");
    }
    if (announces_body(header.substr(0, colon), header.substr(colon + 1))) {
      return refuse(413, "request body not accepted");
    }
    at = next;
  }
  if (method != "GET" && method != "HEAD") return refuse(405, "method not allowed");
  RequestHead parsed;
  parsed.state = RequestHead::State::kComplete;
  parsed.method = std::string(method);
  parsed.path = std::string(target.substr(0, target.find('?')));
  return parsed;
}

}  // namespace outbox
