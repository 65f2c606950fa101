#include "lease_store/mysql_lease_store.hpp"

#include <algorithm>

namespace outbox {

std::string storable_error(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(std::min(text.size(), kMaxLastErrorLength));
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool printable = byte >= 0x20 && byte < 0x7f;
    const size_t width = printable ? 1 : 4;
    if (out.size() + width > kMaxLastErrorLength) break;
    if (printable) {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    }
  }
  return out;
}

MysqlLeaseStore::MysqlLeaseStore(std::unique_ptr<MysqlSession> session, ClaimPolicy policy)
    : session_(std::move(session)), policy_(std::move(policy)) {
  if (!policy_.due_scans) {
    policy_.due_scans = std::make_shared<DueScanSchedule>(policy_.due_scan_interval);
  }
}

}  // namespace outbox
