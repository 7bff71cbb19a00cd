// The tcp transport's pure parts: which peers the handshake admits, and which local
// address it listens on.
#include <gtest/gtest.h>

#include <cstring>

#include "backend/tcp/tcp_transport.h"

namespace fabscope {
namespace {

struct Hello {
  uint8_t token[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  TcpHello good(uint32_t rank) const {
    TcpHello h{kTcpMagic, kTcpVersion, {}, rank, 4};
    std::memcpy(h.token, token, sizeof(token));
    return h;
  }
};

TEST(TcpHandshake, AdmitsOnlyHigherRanksOfThisJobWithItsToken) {
  Hello k;
  std::vector<bool> connected(4, false);
  EXPECT_EQ(check_hello(k.good(2), k.token, 1, 4, connected), "");
  EXPECT_EQ(check_hello(k.good(3), k.token, 1, 4, connected), "");

  TcpHello h = k.good(2);
  h.token[15] ^= 1;
  EXPECT_EQ(check_hello(h, k.token, 1, 4, connected), "wrong job token");
  h = k.good(2);
  h.magic = 0x47455420;  // "GET ": an HTTP client, say
  EXPECT_NE(check_hello(h, k.token, 1, 4, connected).find("bad magic"), std::string::npos);
  h = k.good(2);
  h.version = 99;
  EXPECT_NE(check_hello(h, k.token, 1, 4, connected).find("protocol version 99"), std::string::npos);
  h = k.good(2);
  h.nranks = 8;
  EXPECT_NE(check_hello(h, k.token, 1, 4, connected).find("job of 8 ranks"), std::string::npos);
  EXPECT_NE(check_hello(k.good(0), k.token, 1, 4, connected).find("does not connect to rank 1"), std::string::npos);
  EXPECT_NE(check_hello(k.good(1), k.token, 1, 4, connected).find("does not connect"), std::string::npos);
  EXPECT_NE(check_hello(k.good(4), k.token, 1, 4, connected).find("does not connect"), std::string::npos);
  connected[2] = true;
  EXPECT_NE(check_hello(k.good(2), k.token, 1, 4, connected).find("already connected"), std::string::npos);
}

TEST(TcpAddress, ChoosesTheRequestedOrTheObviousAddress) {
  auto local = choose_tcp_address({}, true);
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(*local, "127.0.0.1");
  TcpOptions by_addr;
  by_addr.address = "127.0.0.1";
  EXPECT_EQ(*choose_tcp_address(by_addr, false), "127.0.0.1");
  TcpOptions by_if;
  by_if.interface = "lo";
  EXPECT_EQ(*choose_tcp_address(by_if, false), "127.0.0.1");
}

TEST(TcpAddress, UnknownChoicesAreErrorsThatListTheAlternatives) {
  TcpOptions bad_addr;
  bad_addr.address = "203.0.113.77";
  auto a = choose_tcp_address(bad_addr, true);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_NE(a.status().message().find("--tcp-addr 203.0.113.77 is not an IPv4 address of this host"),
            std::string::npos);
  EXPECT_NE(a.status().message().find("lo (127.0.0.1)"), std::string::npos) << a.status().message();
  TcpOptions bad_if;
  bad_if.interface = "nosuchif0";
  auto b = choose_tcp_address(bad_if, true);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("--tcp-if nosuchif0 has no IPv4 address"), std::string::npos);
}

}  // namespace
}  // namespace fabscope
