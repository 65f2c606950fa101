#include "lease_store/lease_token.hpp"

#include <unistd.h>

#include <array>
#include <random>

namespace outbox {

LeaseToken::LeaseToken(const std::string& claimant, int worker, uint64_t sequence)
    : value_(claimant + "/w" + std::to_string(worker) + "/c" + std::to_string(sequence)) {}

std::string default_instance_id() {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0) host = {'r', 'e', 'l', 'a', 'y'};
  std::string name(host.data());
  if (name.size() > 64) name.resize(64);
  return name + "-" + std::to_string(getpid());
}

std::string claimant_id(const std::string& instance_id) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device entropy;
  std::uniform_int_distribution<uint32_t> digits(0, 0xffffff);
  uint32_t value = digits(entropy);
  std::string nonce(6, '0');
  for (char& c : nonce) {
    c = kHex[value & 0xf];
    value >>= 4;
  }
  return instance_id + "/" + nonce;
}

}  // namespace outbox
