// The verbs transport's device-free parts: wire encoding, the per-peer protocol (CTS,
// chunking across queue pairs, credits, completion accounting), the registration cache,
// device and GID choice, and the probe on a machine without an RDMA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/verbs/verbs_backend.h"
#include "backend/verbs/verbs_device.h"
#include "backend/verbs/verbs_mr_cache.h"
#include "backend/verbs/verbs_port.h"
#include "backend/verbs/verbs_protocol.h"
#include "backend/verbs/verbs_wire.h"

namespace fabscope {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- wire ----

VerbsEndpointInfo sample_endpoint() {
  VerbsEndpointInfo e;
  e.rank = 3;
  for (uint32_t q = 0; q < 2; ++q) {
    VerbsQpInfo qi;
    qi.qpn = 0xABCDE0 + q;
    qi.psn = 0x123456 + q;
    qi.lid = static_cast<uint16_t>(0x1200 + q);
    for (size_t i = 0; i < qi.gid.size(); ++i) qi.gid[i] = static_cast<uint8_t>(0xF0 + i + q);
    qi.mtu = static_cast<uint8_t>(4 + q);
    e.qps.push_back(qi);
  }
  return e;
}

TEST(VerbsWire, EndpointRoundTripsLittleEndian) {
  const VerbsEndpointInfo e = sample_endpoint();
  std::vector<uint8_t> bytes = encode_endpoint(e);
  ASSERT_EQ(bytes.size(), verbs_endpoint_wire_bytes(2));
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "FSVB");
  EXPECT_EQ(bytes[8], 3);  // rank, least significant byte first
  auto back = decode_endpoint(bytes, 3, 2);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, e);
}

TEST(VerbsWire, EndpointDecodeRejectsWhatIsNotOneOfOurs) {
  const std::vector<uint8_t> good = encode_endpoint(sample_endpoint());
  auto reject = [](std::vector<uint8_t> b, uint32_t rank, uint32_t qps) {
    auto r = decode_endpoint(b, rank, qps);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_TRUE(has(reject({good.begin(), good.begin() + 10}, 3, 2), "shorter than its 16-byte header"));
  EXPECT_TRUE(has(reject({good.begin(), good.end() - 1}, 3, 2), "expected 80 for 2 queue pairs"));
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_TRUE(has(reject(longer, 3, 2), "bytes, expected 80"));
  std::vector<uint8_t> b = good;
  b[0] ^= 0xFF;
  EXPECT_TRUE(has(reject(b, 3, 2), "not a fabscope verbs message"));
  b = good;
  b[4] = 2;
  EXPECT_TRUE(has(reject(b, 3, 2), "wire version 2 (this fabscope speaks 1)"));
  b = good;
  b[6] = static_cast<uint8_t>(kVerbsWireCts);
  EXPECT_TRUE(has(reject(b, 3, 2), "message kind 2, expected 1"));
  EXPECT_TRUE(has(reject(good, 4, 2), "claims to come from rank 3, expected rank 4"));
  EXPECT_TRUE(has(reject(good, 3, 4), "2 queue pairs, but this rank uses 4"));
  b = good;
  b[16 + 3] = 0x01;  // qpn above 24 bits
  EXPECT_TRUE(has(reject(b, 3, 2), "queue pair 0 is malformed"));
  b = good;
  b[16 + 32 + 10] = 6;  // mtu of QP 1 beyond IBV_MTU_4096
  EXPECT_TRUE(has(reject(b, 3, 2), "queue pair 1 is malformed"));
  b = good;
  b[16 + 11] = 1;  // reserved byte
  EXPECT_TRUE(has(reject(b, 3, 2), "malformed"));
}

TEST(VerbsWire, CtsRoundTripsAndRejectsGarbage) {
  const VerbsCts cts{0x0102030405060708ull, 0x7f0012345000ull, 1ull << 33, 0xCAFEF00D};
  auto bytes = encode_cts(cts);
  auto back = decode_cts(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, cts);
  EXPECT_EQ(bytes[8], 0x08);

  EXPECT_TRUE(has(decode_cts(std::span<const uint8_t>(bytes.data(), 39)).status().message(), "39 bytes, expected 40"));
  auto b = bytes;
  b[1] = 'X';
  EXPECT_TRUE(has(decode_cts(b).status().message(), "not a fabscope verbs message"));
  b = bytes;
  b[4] = 9;
  EXPECT_TRUE(has(decode_cts(b).status().message(), "wire version 9"));
  b = bytes;
  b[6] = static_cast<uint8_t>(kVerbsWireEndpoint);
  EXPECT_TRUE(has(decode_cts(b).status().message(), "message kind 1, expected 2"));
  b = bytes;
  b[39] = 1;
  EXPECT_TRUE(has(decode_cts(b).status().message(), "reserved"));
  auto wraps = encode_cts({0, UINT64_MAX - 10, 100, 1});
  EXPECT_TRUE(has(decode_cts(wraps).status().message(), "wraps around"));
  auto empty = encode_cts({5, 0, 0, 0});  // a zero-byte receive
  EXPECT_TRUE(decode_cts(empty).ok());
}

TEST(VerbsWire, MtuCodes) {
  EXPECT_EQ(verbs_mtu_bytes(1), 256u);
  EXPECT_EQ(verbs_mtu_bytes(5), 4096u);
  EXPECT_EQ(verbs_mtu_bytes(0), 0u);
  EXPECT_EQ(verbs_mtu_bytes(6), 0u);
}

// ---- protocol ----

using Kind = VerbsWorkItem::Kind;

struct Peer {
  explicit Peer(VerbsProtocolLimits l = {}) : p(l) {}
  std::vector<VerbsWorkItem> work() {
    std::vector<VerbsWorkItem> w;
    p.take_work(w);
    return w;
  }
  std::vector<VerbsDone> done() {
    std::vector<VerbsDone> d;
    p.take_done(d);
    return d;
  }
  VerbsPeerProtocol p;
};

VerbsProtocolLimits limits(uint32_t qps, uint64_t max_write, uint32_t window = 32, uint32_t depth = 128) {
  VerbsProtocolLimits l;
  l.num_qps = qps;
  l.max_write_bytes = max_write;
  l.max_recvs_in_flight = window;
  l.send_queue_depth = depth;
  return l;
}

TEST(VerbsProtocol, LimitsAreChecked) {
  EXPECT_EQ(check_limits({}), "");
  EXPECT_TRUE(has(check_limits(limits(0, 1)), "1 to 64"));
  EXPECT_TRUE(has(check_limits(limits(65, 1)), "65 queue pairs"));
  EXPECT_TRUE(has(check_limits(limits(1, 0)), "bytes per RDMA write"));
  EXPECT_TRUE(has(check_limits(limits(1, 1, 0)), "in flight"));
  EXPECT_TRUE(has(check_limits(limits(1, 1, 1, 0)), "send queue"));
}

TEST(VerbsProtocol, SplitCountsWritesAndQueuePairs) {
  EXPECT_EQ(verbs_split(0, limits(2, 1000)).writes, 1u);
  EXPECT_EQ(verbs_split(0, limits(2, 1000)).qps_used, 1u);
  EXPECT_EQ(verbs_split(1000, limits(2, 1000)).writes, 1u);
  EXPECT_EQ(verbs_split(1001, limits(2, 1000)).writes, 2u);
  EXPECT_EQ(verbs_split(1001, limits(2, 1000)).qps_used, 2u);
  EXPECT_EQ(verbs_split(4500, limits(4, 1000)).writes, 5u);
  EXPECT_EQ(verbs_split(4500, limits(4, 1000)).qps_used, 4u);
}

TEST(VerbsProtocol, ReceiveSendsClearToSendAndCompletesOnImmediate) {
  Peer r;
  r.p.post_recv(11, 0x5000, 300, 0x77, 123);
  auto w = r.work();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].kind, Kind::kCts);
  EXPECT_EQ(w[0].qp, 0u);
  EXPECT_EQ(w[0].cts, (VerbsCts{0, 0x5000, 300, 0x77}));
  EXPECT_TRUE(r.work().empty());
  EXPECT_TRUE(r.done().empty());
  ASSERT_TRUE(r.p.on_send_done(0, Kind::kCts, 0).ok());  // the CTS went out: still not received
  EXPECT_TRUE(r.done().empty());
  ASSERT_TRUE(r.p.on_imm(0, 0).ok());
  auto d = r.done();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].id, 11u);
  EXPECT_EQ(d[0].bytes, 300u);
  EXPECT_FALSE(d[0].is_send);
  EXPECT_EQ(d[0].posted_ns, 123);
  EXPECT_TRUE(r.p.idle());
}

TEST(VerbsProtocol, ClearToSendBeforeTheSendIsPosted) {
  Peer s;
  ASSERT_TRUE(s.p.on_cts({0, 0x9000, 64, 5}).ok());
  EXPECT_TRUE(s.work().empty());
  ASSERT_TRUE(s.p.post_send(1, 0x1000, 64, 9, 0).ok());
  auto w = s.work();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].kind, Kind::kWrite);
  EXPECT_EQ(w[0].local_addr, 0x1000u);
  EXPECT_EQ(w[0].lkey, 9u);
  EXPECT_EQ(w[0].remote_addr, 0x9000u);
  EXPECT_EQ(w[0].rkey, 5u);
  EXPECT_EQ(w[0].bytes, 64u);
  EXPECT_TRUE(w[0].with_imm);
  EXPECT_EQ(w[0].imm, 0u);
  EXPECT_TRUE(s.done().empty());
  ASSERT_TRUE(s.p.on_send_done(0, Kind::kWrite, 0).ok());
  auto d = s.done();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].id, 1u);
  EXPECT_TRUE(d[0].is_send);
}

TEST(VerbsProtocol, SendPostedBeforeItsClearToSend) {
  Peer s;
  ASSERT_TRUE(s.p.post_send(1, 0x1000, 64, 9, 0).ok());
  EXPECT_TRUE(s.work().empty());
  EXPECT_TRUE(s.done().empty());
  ASSERT_TRUE(s.p.on_cts({0, 0x9000, 64, 5}).ok());
  auto w = s.work();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].remote_addr, 0x9000u);
}

TEST(VerbsProtocol, LengthsMustAgreeWhicheverComesFirst) {
  Peer a;
  ASSERT_TRUE(a.p.post_send(1, 0x1000, 64, 9, 0).ok());
  Status st = a.p.on_cts({0, 0x9000, 32, 5});
  EXPECT_TRUE(has(st.message(), "message 0 is 64 bytes here, but the peer posted a 32-byte receive"));
  Peer b;
  ASSERT_TRUE(b.p.on_cts({0, 0x9000, 32, 5}).ok());
  EXPECT_FALSE(b.p.post_send(1, 0x1000, 64, 9, 0).ok());
}

TEST(VerbsProtocol, ZeroByteMessagesAreOneEmptyWriteWithImmediate) {
  Peer s;
  ASSERT_TRUE(s.p.post_send(1, 0x1000, 0, 0, 0).ok());
  ASSERT_TRUE(s.p.on_cts({0, 0, 0, 0}).ok());
  auto w = s.work();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].bytes, 0u);
  EXPECT_TRUE(w[0].with_imm);
  EXPECT_EQ(w[0].qp, 0u);
  ASSERT_TRUE(s.p.on_send_done(0, Kind::kWrite, 0).ok());
  ASSERT_EQ(s.done().size(), 1u);

  Peer r(limits(4, 1000));
  r.p.post_recv(2, 0, 0, 0, 0);
  auto c = r.work();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].cts.length, 0u);
  EXPECT_TRUE(has(r.p.on_imm(1, 0).message(), "uses QPs 0 to 0"));  // zero bytes: QP 0 only
  ASSERT_TRUE(r.p.on_imm(0, 0).ok());
  auto d = r.done();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].bytes, 0u);
}

TEST(VerbsProtocol, MessageSplitAcrossTwoQueuePairsCompletesWhenEveryWriteHas) {
  Peer s(limits(2, 1000));
  ASSERT_TRUE(s.p.post_send(7, 0x10000, 4500, 3, 0).ok());
  ASSERT_TRUE(s.p.on_cts({0, 0x80000, 4500, 4}).ok());
  auto w = s.work();
  ASSERT_EQ(w.size(), 5u);
  const uint32_t want_qp[] = {0, 1, 0, 1, 0};
  const bool want_imm[] = {false, false, false, true, true};  // the last write on each QP
  for (size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(w[k].qp, want_qp[k]) << k;
    EXPECT_EQ(w[k].with_imm, want_imm[k]) << k;
    EXPECT_EQ(w[k].local_addr, 0x10000 + 1000 * k) << k;
    EXPECT_EQ(w[k].remote_addr, 0x80000 + 1000 * k) << k;
    EXPECT_EQ(w[k].bytes, k < 4 ? 1000u : 500u) << k;
  }
  // Completions in any order; the send completes with the last of them.
  for (size_t k : {4, 1, 3, 0}) {
    ASSERT_TRUE(s.p.on_send_done(w[k].qp, Kind::kWrite, 0).ok());
    EXPECT_TRUE(s.done().empty()) << k;
  }
  ASSERT_TRUE(s.p.on_send_done(0, Kind::kWrite, 0).ok());
  ASSERT_EQ(s.done().size(), 1u);
  EXPECT_TRUE(has(s.p.on_send_done(0, Kind::kWrite, 0).message(), "nothing posted"));

  // The receiver needs the immediate from both queue pairs.
  Peer r(limits(2, 1000));
  r.p.post_recv(8, 0x80000, 4500, 4, 0);
  ASSERT_EQ(r.work().size(), 1u);
  ASSERT_TRUE(r.p.on_imm(1, 0).ok());
  EXPECT_TRUE(r.done().empty());
  EXPECT_TRUE(has(r.p.on_imm(1, 0).message(), "duplicate immediate for message 0 on QP 1"));
  ASSERT_TRUE(r.p.on_imm(0, 0).ok());
  ASSERT_EQ(r.done().size(), 1u);
}

TEST(VerbsProtocol, ManyMessagesInFlightCompleteInOrder) {
  Peer s;
  Peer r;
  for (uint64_t i = 0; i < 10; ++i) {
    ASSERT_TRUE(s.p.post_send(100 + i, 0x1000 * (i + 1), 8, 1, 0).ok());
    r.p.post_recv(200 + i, 0x100000 + 0x1000 * i, 8, 2, 0);
  }
  auto cts = r.work();
  ASSERT_EQ(cts.size(), 10u);
  for (const auto& c : cts) ASSERT_TRUE(s.p.on_cts(c.cts).ok());
  auto w = s.work();
  ASSERT_EQ(w.size(), 10u);
  for (uint64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(w[i].sequence, i);
    EXPECT_EQ(w[i].remote_addr, 0x100000 + 0x1000 * i);
    EXPECT_EQ(w[i].imm, i);
  }
  // Writes complete last to first; nothing is reported until the first one.
  for (uint64_t i = 9; i >= 1; --i) ASSERT_TRUE(s.p.on_send_done(0, Kind::kWrite, i).ok());
  EXPECT_TRUE(s.done().empty());
  ASSERT_TRUE(s.p.on_send_done(0, Kind::kWrite, 0).ok());
  auto sd = s.done();
  ASSERT_EQ(sd.size(), 10u);
  for (uint64_t i = 0; i < 10; ++i) EXPECT_EQ(sd[i].id, 100 + i);
  // Immediates out of order: receives still complete in posting order.
  ASSERT_TRUE(r.p.on_imm(0, 2).ok());
  ASSERT_TRUE(r.p.on_imm(0, 1).ok());
  EXPECT_TRUE(r.done().empty());
  ASSERT_TRUE(r.p.on_imm(0, 0).ok());
  auto rd = r.done();
  ASSERT_EQ(rd.size(), 3u);
  EXPECT_EQ(rd[0].id, 200u);
  EXPECT_EQ(rd[2].id, 202u);
}

TEST(VerbsProtocol, ReceivesInFlightAreBoundedByTheWindow) {
  Peer r(limits(1, 1000, 2));
  for (uint64_t i = 0; i < 3; ++i) r.p.post_recv(i, 0x1000, 8, 1, 0);
  auto w = r.work();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_TRUE(has(r.p.on_imm(0, 2).message(), "matches no receive"));  // no CTS went out for message 2
  ASSERT_TRUE(r.p.on_imm(0, 0).ok());
  ASSERT_EQ(r.done().size(), 1u);
  w = r.work();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].cts.sequence, 2u);
}

TEST(VerbsProtocol, SendQueueCreditsHoldBackWrites) {
  Peer s(limits(1, 100, 32, 2));
  ASSERT_TRUE(s.p.post_send(1, 0x1000, 500, 1, 0).ok());
  ASSERT_TRUE(s.p.on_cts({0, 0x9000, 500, 2}).ok());
  EXPECT_EQ(s.work().size(), 2u);
  EXPECT_EQ(s.p.credits(0), 0u);
  EXPECT_TRUE(s.work().empty());
  ASSERT_TRUE(s.p.on_send_done(0, Kind::kWrite, 0).ok());
  auto w = s.work();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].local_addr, 0x1000u + 200);
  // A receive's CTS takes a credit too.
  s.p.post_recv(2, 0x2000, 8, 1, 0);
  EXPECT_TRUE(s.work().empty());
  ASSERT_TRUE(s.p.on_send_done(0, Kind::kWrite, 0).ok());
  w = s.work();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].kind, Kind::kCts);  // CTSs go before writes
}

TEST(VerbsProtocol, ProtocolErrorsAreReported) {
  Peer s;
  EXPECT_TRUE(has(s.p.on_cts({1, 0, 0, 0}).message(), "clear-to-send for message 1, expected message 0"));
  ASSERT_TRUE(s.p.on_cts({0, 0, 8, 0}).ok());
  EXPECT_TRUE(has(s.p.on_cts({0, 0, 8, 0}).message(), "expected message 1"));
  EXPECT_TRUE(has(s.p.on_send_done(0, Kind::kWrite, 0).message(), "nothing posted"));
  EXPECT_TRUE(has(s.p.on_send_done(3, Kind::kWrite, 0).message(), "QP 3"));

  Peer r;
  EXPECT_TRUE(has(r.p.on_imm(0, 0).message(), "matches no receive"));
  r.p.post_recv(1, 0x1000, 8, 1, 0);
  EXPECT_TRUE(has(r.p.on_imm(0, 0).message(), "matches no receive"));  // CTS not sent yet
  ASSERT_EQ(r.work().size(), 1u);
  EXPECT_TRUE(has(r.p.on_imm(0, 5).message(), "matches no receive"));
  ASSERT_TRUE(r.p.on_imm(0, 0).ok());
  EXPECT_TRUE(has(r.p.on_imm(0, 0).message(), "duplicate immediate for message 0 on QP 0"));
  ASSERT_EQ(r.done().size(), 1u);
  EXPECT_TRUE(has(r.p.on_imm(0, 0).message(), "already completed"));

  Peer w;  // a write completion for a message with no write outstanding
  ASSERT_TRUE(w.p.post_send(1, 0x1000, 8, 1, 0).ok());
  ASSERT_TRUE(w.p.on_cts({0, 0x9000, 8, 2}).ok());
  ASSERT_EQ(w.work().size(), 1u);
  EXPECT_TRUE(has(w.p.on_send_done(0, Kind::kWrite, 4).message(), "write completion for message 4"));
}

// ---- registration cache ----

struct FakeRegistrar {
  std::vector<std::pair<uint64_t, uint64_t>> registered;
  std::vector<uint64_t> deregistered;
  bool fail = false;
  VerbsMrCache make() {
    return VerbsMrCache(
        [this](uint64_t addr, uint64_t bytes) -> Result<VerbsMr> {
          if (fail) return Status::Runtime("ibv_reg_mr failed: Cannot allocate memory");
          registered.emplace_back(addr, bytes);
          const auto key = static_cast<uint32_t>(registered.size());
          return VerbsMr{addr, bytes, key, 1000 + key, nullptr};
        },
        [this](const VerbsMr& m) { deregistered.push_back(m.addr); });
  }
};

const void* at(uint64_t addr) { return reinterpret_cast<const void*>(static_cast<uintptr_t>(addr)); }

TEST(VerbsMrCache, RegistersWholePagesOnceAndReusesThem) {
  FakeRegistrar f;
  {
    VerbsMrCache cache = f.make();
    auto a = cache.get(at(0x10010), 100);
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->addr, 0x10000u);
    EXPECT_EQ(a->bytes, 4096u);
    auto again = cache.get(at(0x10010), 100);
    auto inside = cache.get(at(0x10800), 0x800);  // the rest of the same page
    EXPECT_EQ(again->lkey, a->lkey);
    EXPECT_EQ(inside->rkey, a->rkey);
    EXPECT_EQ(cache.registrations(), 1u);

    auto crossing = cache.get(at(0x10F00), 0x200);  // runs into the next page
    ASSERT_TRUE(crossing.ok());
    EXPECT_EQ(crossing->addr, 0x10000u);
    EXPECT_EQ(crossing->bytes, 8192u);
    EXPECT_NE(crossing->lkey, a->lkey);
    EXPECT_EQ(cache.registrations(), 2u);
    EXPECT_EQ(cache.get(at(0x11000), 4096)->lkey, crossing->lkey);  // found inside the wider one
    ASSERT_TRUE(cache.get(at(0x10010), 100).ok());                  // either registration covers it: no new one
    EXPECT_EQ(cache.registrations(), 2u);

    auto none = cache.get(at(0x50000), 0);  // zero bytes need no registration
    ASSERT_TRUE(none.ok());
    EXPECT_EQ(none->lkey, 0u);
    EXPECT_EQ(cache.registrations(), 2u);
    EXPECT_EQ(cache.entries(), 2u);

    cache.invalidate(at(0x11000), 16);  // overlaps only the wider one
    EXPECT_EQ(f.deregistered, std::vector<uint64_t>{0x10000});
    EXPECT_EQ(cache.entries(), 1u);
    ASSERT_TRUE(cache.get(at(0x11000), 16).ok());
    EXPECT_EQ(cache.registrations(), 3u);
  }
  EXPECT_EQ(f.deregistered.size(), 3u);  // everything is deregistered with the cache
}

TEST(VerbsMrCache, RegistrationFailuresAreReturned) {
  FakeRegistrar f;
  f.fail = true;
  VerbsMrCache cache = f.make();
  auto r = cache.get(at(0x20000), 10);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(has(r.status().message(), "ibv_reg_mr failed"));
  EXPECT_EQ(cache.entries(), 0u);
}

// ---- device, port and GID choice ----

std::vector<VerbsDeviceSummary> two_devices(bool first_active) {
  VerbsDeviceSummary a{"mlx5_0", {{1, first_active, first_active ? "ACTIVE" : "DOWN", "InfiniBand", 200}}, ""};
  VerbsDeviceSummary b{"mlx5_1", {{1, true, "ACTIVE", "Ethernet", 100}}, ""};
  return {a, b};
}

TEST(VerbsPort, DeviceChoiceAndItsMessages) {
  VerbsOptions o;
  auto none = choose_verbs_device({}, o);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().kind(), ErrorKind::kUnavailable);
  EXPECT_EQ(none.status().message(), kNoVerbsDevice);

  auto devices = two_devices(true);
  EXPECT_EQ(*choose_verbs_device(devices, o), "mlx5_0");
  devices = two_devices(false);
  EXPECT_EQ(*choose_verbs_device(devices, o), "mlx5_1");  // the first ACTIVE one

  o.device = "mlx5_9";
  EXPECT_EQ(choose_verbs_device(devices, o).status().message(),
            "--verbs-device mlx5_9 not found; devices: mlx5_0, mlx5_1");
  o.device = "mlx5_0";
  EXPECT_TRUE(has(choose_verbs_device(devices, o).status().message(),
                  "mlx5_0 port 1 DOWN InfiniBand 200 Gb/s is "
                  "not ACTIVE"));
  o.port = 2;
  EXPECT_TRUE(has(choose_verbs_device(devices, o).status().message(), "has no port 2 (it has 1 to 1)"));
  o.device.clear();
  EXPECT_TRUE(has(choose_verbs_device(devices, o).status().message(), "no RDMA device has port 2 ACTIVE: mlx5_0"));
  o.port = 0;
  EXPECT_EQ(choose_verbs_device(devices, o).status().kind(), ErrorKind::kInvalidInput);
}

TEST(VerbsPort, GidChoiceFollowsPerftest) {
  auto gid = [](bool v4) {
    std::array<uint8_t, 16> g{};
    if (v4) {
      g[10] = g[11] = 0xff;
      g[12] = 10;
      g[15] = 7;
    } else {
      g[0] = 0xfe;
      g[1] = 0x80;
      g[15] = 1;
    }
    return g;
  };
  std::vector<VerbsGidCandidate> c = {
      {0, gid(false), false}, {1, gid(false), true}, {2, gid(true), false}, {3, gid(true), true}, {4, {}, true}};
  EXPECT_EQ(choose_gid_index(c), 3);  // IPv4-mapped RoCE v2
  c.erase(c.begin() + 3);
  EXPECT_EQ(choose_gid_index(c), 2);  // IPv4-mapped beats RoCE v2
  c.erase(c.begin() + 2);
  EXPECT_EQ(choose_gid_index(c), 1);
  EXPECT_EQ(choose_gid_index(std::vector<VerbsGidCandidate>{{0, {}, true}}), -1);
  EXPECT_TRUE(gid_is_ipv4_mapped(gid(true)));
  EXPECT_FALSE(gid_is_ipv4_mapped(gid(false)));
}

TEST(VerbsPort, RateFromSpeedAndWidth) {
  EXPECT_DOUBLE_EQ(verbs_port_rate_gbps(64, 2), 200);   // HDR 4x
  EXPECT_DOUBLE_EQ(verbs_port_rate_gbps(128, 2), 400);  // NDR 4x
  EXPECT_DOUBLE_EQ(verbs_port_rate_gbps(32, 2), 100);   // EDR 4x
  EXPECT_DOUBLE_EQ(verbs_port_rate_gbps(1, 1), 2.5);
  EXPECT_DOUBLE_EQ(verbs_port_rate_gbps(3, 2), 0);
  EXPECT_DOUBLE_EQ(verbs_port_rate_gbps(64, 3), 0);
}

// ---- the probe, on this machine ----

TEST(VerbsBackend, ProbeSaysWhyItCannotRun) {
  const std::vector<VerbsDeviceSummary> devices = list_verbs_devices();
  Availability a = probe_verbs_backend();
  EXPECT_TRUE(a.compiled);
  EXPECT_FALSE(a.detail.empty());
  bool any_active = false;
  for (const auto& d : devices) {
    for (const auto& p : d.ports) any_active = any_active || (d.error.empty() && p.active);
  }
  EXPECT_EQ(a.usable, any_active);
  if (devices.empty()) {
    EXPECT_EQ(a.detail, kNoVerbsDevice);
    auto dev = VerbsDevice::open({});
    ASSERT_FALSE(dev.ok());
    EXPECT_EQ(dev.status().kind(), ErrorKind::kUnavailable);
    EXPECT_EQ(dev.status().message(), kNoVerbsDevice);
  } else if (!any_active) {
    EXPECT_TRUE(has(a.detail, "no RDMA device has an ACTIVE port"));
  }
}

}  // namespace
}  // namespace fabscope
