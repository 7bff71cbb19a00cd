#include "backend/tcp/tcp_auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/random.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

namespace fabscope {

TcpMac tcp_proof(const TcpToken& token, TcpRole role, const TcpNonce& hello_nonce, const TcpNonce& challenge_nonce,
                 uint32_t connector, uint32_t listener, uint32_t nranks) {
  std::vector<uint8_t> msg;
  const std::string label = role == TcpRole::kListener ? "fabscope tcp listener v2" : "fabscope tcp connector v2";
  msg.insert(msg.end(), label.begin(), label.end());
  msg.insert(msg.end(), hello_nonce.begin(), hello_nonce.end());
  msg.insert(msg.end(), challenge_nonce.begin(), challenge_nonce.end());
  for (uint32_t v : {connector, listener, nranks}) {
    for (int i = 0; i < 4; ++i) msg.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  TcpMac mac{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), token.data(), static_cast<int>(token.size()), msg.data(), msg.size(), mac.data(), &len);
  return mac;
}

bool tcp_proof_matches(const TcpMac& expected, const TcpMac& got) {
  return CRYPTO_memcmp(expected.data(), got.data(), expected.size()) == 0;
}

Status tcp_random(uint8_t* out, size_t bytes) {
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::getrandom(out + done, bytes - done, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Runtime(fmt::format("getrandom failed: {}", std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

std::string check_hello(const TcpHello& h, int me, int nranks, const std::vector<bool>& connected) {
  if (h.magic != kTcpMagic) return "not a fabscope peer (bad magic)";
  if (h.version != kTcpVersion)
    return fmt::format("protocol version {} (this fabscope speaks {})", h.version, kTcpVersion);
  if (static_cast<int>(h.nranks) != nranks)
    return fmt::format("peer claims a job of {} ranks, not {}", h.nranks, nranks);
  if (static_cast<int>(h.rank) <= me || static_cast<int>(h.rank) >= nranks) {
    return fmt::format("peer claims rank {}, which does not connect to rank {}", h.rank, me);
  }
  if (connected[h.rank]) return fmt::format("rank {} is already connected", h.rank);
  return "";
}

}  // namespace fabscope
