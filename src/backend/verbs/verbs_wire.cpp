#include "backend/verbs/verbs_wire.h"

#include <fmt/format.h>

namespace fabscope {

namespace {

// Little-endian writer and reader over a byte buffer, independent of the host's order.
class Writer {
 public:
  explicit Writer(uint8_t* out) : p_(out) {}
  void u8(uint8_t v) { *p_++ = v; }
  void u16(uint16_t v) { put(v, 2); }
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void bytes(const uint8_t* b, size_t n) {
    for (size_t i = 0; i < n; ++i) *p_++ = b[i];
  }

 private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) *p_++ = static_cast<uint8_t>(v >> (8 * i));
  }
  uint8_t* p_;
};

class Reader {
 public:
  explicit Reader(const uint8_t* in) : p_(in) {}
  uint8_t u8() { return *p_++; }
  uint16_t u16() { return static_cast<uint16_t>(get(2)); }
  uint32_t u32() { return static_cast<uint32_t>(get(4)); }
  uint64_t u64() { return get(8); }
  void bytes(uint8_t* b, size_t n) {
    for (size_t i = 0; i < n; ++i) b[i] = *p_++;
  }

 private:
  uint64_t get(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(*p_++) << (8 * i);
    return v;
  }
  const uint8_t* p_;
};

// Checks the common header (magic, version, kind); "" when it is acceptable.
std::string check_header(Reader& r, uint16_t want_kind, const char* what) {
  const uint32_t magic = r.u32();
  const uint16_t version = r.u16();
  const uint16_t kind = r.u16();
  if (magic != kVerbsWireMagic) return fmt::format("{}: not a fabscope verbs message (magic {:#010x})", what, magic);
  if (version != kVerbsWireVersion) {
    return fmt::format("{}: wire version {} (this fabscope speaks {})", what, version, kVerbsWireVersion);
  }
  if (kind != want_kind) return fmt::format("{}: message kind {}, expected {}", what, kind, want_kind);
  return "";
}

constexpr uint32_t k24Bits = 0xFFFFFF;

}  // namespace

uint32_t verbs_mtu_bytes(uint8_t mtu) { return mtu >= 1 && mtu <= 5 ? 256u << (mtu - 1) : 0; }

std::vector<uint8_t> encode_endpoint(const VerbsEndpointInfo& info) {
  std::vector<uint8_t> out(verbs_endpoint_wire_bytes(static_cast<uint32_t>(info.qps.size())), 0);
  Writer w(out.data());
  w.u32(kVerbsWireMagic);
  w.u16(kVerbsWireVersion);
  w.u16(kVerbsWireEndpoint);
  w.u32(info.rank);
  w.u32(static_cast<uint32_t>(info.qps.size()));
  for (const VerbsQpInfo& q : info.qps) {
    w.u32(q.qpn);
    w.u32(q.psn);
    w.u16(q.lid);
    w.u8(q.mtu);
    w.u8(0);
    w.bytes(q.gid.data(), q.gid.size());
    w.u32(0);
  }
  return out;
}

Result<VerbsEndpointInfo> decode_endpoint(std::span<const uint8_t> bytes, uint32_t expected_rank,
                                          uint32_t expected_qps) {
  const char* what = "verbs connection info";
  if (bytes.size() < kVerbsEndpointHeaderBytes) {
    return Status::Runtime(fmt::format("{} from rank {}: {} bytes, shorter than its {}-byte header", what,
                                       expected_rank, bytes.size(), kVerbsEndpointHeaderBytes));
  }
  Reader r(bytes.data());
  std::string why = check_header(r, kVerbsWireEndpoint, what);
  if (!why.empty()) return Status::Runtime(fmt::format("{} (from rank {})", why, expected_rank));
  VerbsEndpointInfo info;
  info.rank = r.u32();
  const uint32_t nqps = r.u32();
  if (info.rank != expected_rank) {
    return Status::Runtime(
        fmt::format("{}: claims to come from rank {}, expected rank {}", what, info.rank, expected_rank));
  }
  if (nqps != expected_qps) {
    return Status::Runtime(fmt::format("{} from rank {}: {} queue pairs, but this rank uses {} (--qps must agree)",
                                       what, expected_rank, nqps, expected_qps));
  }
  if (bytes.size() != verbs_endpoint_wire_bytes(nqps)) {
    return Status::Runtime(fmt::format("{} from rank {}: {} bytes, expected {} for {} queue pairs", what, expected_rank,
                                       bytes.size(), verbs_endpoint_wire_bytes(nqps), nqps));
  }
  info.qps.resize(nqps);
  for (uint32_t i = 0; i < nqps; ++i) {
    VerbsQpInfo& q = info.qps[i];
    q.qpn = r.u32();
    q.psn = r.u32();
    q.lid = r.u16();
    q.mtu = r.u8();
    const uint8_t reserved8 = r.u8();
    r.bytes(q.gid.data(), q.gid.size());
    const uint32_t reserved32 = r.u32();
    if (reserved8 != 0 || reserved32 != 0 || q.qpn > k24Bits || q.qpn == 0 || q.psn > k24Bits ||
        verbs_mtu_bytes(q.mtu) == 0) {
      return Status::Runtime(fmt::format("{} from rank {}: queue pair {} is malformed (qpn {:#x}, psn {:#x}, mtu {})",
                                         what, expected_rank, i, q.qpn, q.psn, q.mtu));
    }
  }
  return info;
}

std::array<uint8_t, kVerbsCtsWireBytes> encode_cts(const VerbsCts& cts) {
  std::array<uint8_t, kVerbsCtsWireBytes> out{};
  Writer w(out.data());
  w.u32(kVerbsWireMagic);
  w.u16(kVerbsWireVersion);
  w.u16(kVerbsWireCts);
  w.u64(cts.sequence);
  w.u64(cts.addr);
  w.u64(cts.length);
  w.u32(cts.rkey);
  w.u32(0);
  return out;
}

Result<VerbsCts> decode_cts(std::span<const uint8_t> bytes) {
  const char* what = "verbs clear-to-send";
  if (bytes.size() != kVerbsCtsWireBytes) {
    return Status::Runtime(fmt::format("{}: {} bytes, expected {}", what, bytes.size(), kVerbsCtsWireBytes));
  }
  Reader r(bytes.data());
  std::string why = check_header(r, kVerbsWireCts, what);
  if (!why.empty()) return Status::Runtime(why);
  VerbsCts cts;
  cts.sequence = r.u64();
  cts.addr = r.u64();
  cts.length = r.u64();
  cts.rkey = r.u32();
  if (r.u32() != 0) return Status::Runtime(fmt::format("{}: reserved field is not zero", what));
  if (cts.length > 0 && cts.addr + cts.length < cts.addr) {
    return Status::Runtime(fmt::format("{}: buffer at {:#x} of {} bytes wraps around", what, cts.addr, cts.length));
  }
  return cts;
}

}  // namespace fabscope
