// The tcp transport's handshake: each side proves it knows the job's token without
// sending it. The connecting rank sends a hello with a fresh nonce; the listener answers
// with its own nonce and HMAC-SHA256(token, listener's message); the connecting rank
// checks that proof (so it never sends data to an impostor listener) and answers with
// HMAC-SHA256(token, connector's message); the listener checks it. The messages name the
// role, both nonces, both ranks and the job size, so no proof can be replayed for another
// connection, direction or rank.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace fabscope {

inline constexpr uint32_t kTcpMagic = 0x46534350;  // "FSCP"
inline constexpr uint32_t kTcpVersion = 2;         // 2: challenge-response; 1 sent the token
using TcpToken = std::array<uint8_t, 32>;
using TcpNonce = std::array<uint8_t, 16>;
using TcpMac = std::array<uint8_t, 32>;

// Connecting rank -> listener: who it is, and its nonce.
struct TcpHello {
  uint32_t magic;
  uint32_t version;
  uint32_t rank;
  uint32_t nranks;
  TcpNonce nonce;
};
// Listener -> connecting rank: its nonce and its proof.
struct TcpChallenge {
  uint32_t magic;
  uint32_t rank;
  TcpNonce nonce;
  TcpMac proof;
};
// Connecting rank -> listener: its proof.
struct TcpProof {
  uint32_t magic;
  uint32_t rank;
  TcpMac proof;
};

enum class TcpRole { kListener, kConnector };
// The proof `role` sends on the connection from `connector` to `listener`.
TcpMac tcp_proof(const TcpToken& token, TcpRole role, const TcpNonce& hello_nonce, const TcpNonce& challenge_nonce,
                 uint32_t connector, uint32_t listener, uint32_t nranks);
// Constant-time comparison of two proofs.
bool tcp_proof_matches(const TcpMac& expected, const TcpMac& got);
// Fresh random bytes (getrandom), for tokens and nonces.
Status tcp_random(uint8_t* out, size_t bytes);

// Why a hello is refused, or "" when it is acceptable from a rank above `me`.
std::string check_hello(const TcpHello& hello, int me, int nranks, const std::vector<bool>& connected);

}  // namespace fabscope
