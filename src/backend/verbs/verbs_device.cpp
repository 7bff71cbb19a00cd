#include "backend/verbs/verbs_device.h"

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

namespace fabscope {

namespace {

// The device list, freed when it goes out of scope.
class DeviceList {
 public:
  DeviceList() {
    errno = 0;
    list_ = ibv_get_device_list(&count_);
    if (list_ == nullptr) count_ = 0;
  }
  ~DeviceList() {
    if (list_ != nullptr) ibv_free_device_list(list_);
  }
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;
  int size() const { return count_; }
  ibv_device* operator[](int i) const { return list_[i]; }

 private:
  ibv_device** list_ = nullptr;
  int count_ = 0;
};

VerbsPortSummary summarize_port(int port, const ibv_port_attr& a) {
  VerbsPortSummary p;
  p.port = port;
  p.active = a.state == IBV_PORT_ACTIVE;
  p.state = verbs_port_state_name(a.state);
  p.link_layer = verbs_link_layer_name(a.link_layer);
  p.rate_gbps = verbs_port_rate_gbps(a.active_speed, a.active_width);
  return p;
}

std::array<uint8_t, 16> to_array(const ibv_gid& g) {
  std::array<uint8_t, 16> a{};
  std::memcpy(a.data(), g.raw, a.size());
  return a;
}

}  // namespace

Status ibv_status(int err, const char* call, const char* file, int line) {
  if (err == 0) return Status::Ok();
  const char* base = std::strrchr(file, '/');
  return Status::Runtime(fmt::format("{} failed: {} ({}:{})", call, std::strerror(err), base ? base + 1 : file, line));
}

const char* verbs_port_state_name(int state) {
  switch (state) {
    case IBV_PORT_NOP:
      return "NOP";
    case IBV_PORT_DOWN:
      return "DOWN";
    case IBV_PORT_INIT:
      return "INIT";
    case IBV_PORT_ARMED:
      return "ARMED";
    case IBV_PORT_ACTIVE:
      return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER:
      return "ACTIVE_DEFER";
    default:
      return "UNKNOWN";
  }
}

const char* verbs_link_layer_name(int link_layer) {
  switch (link_layer) {
    case IBV_LINK_LAYER_INFINIBAND:
      return "InfiniBand";
    case IBV_LINK_LAYER_ETHERNET:
      return "Ethernet";
    default:
      return "InfiniBand";  // unspecified means InfiniBand (older providers)
  }
}

std::vector<VerbsDeviceSummary> list_verbs_devices() {
  std::vector<VerbsDeviceSummary> out;
  DeviceList list;
  for (int i = 0; i < list.size(); ++i) {
    VerbsDeviceSummary d;
    d.name = ibv_get_device_name(list[i]);
    ibv_context* ctx = ibv_open_device(list[i]);
    if (ctx == nullptr) {
      d.error = FABSCOPE_IBV_NULL(ibv_open_device).message();
      out.push_back(d);
      continue;
    }
    ibv_device_attr attr{};
    Status st = FABSCOPE_IBV(ibv_query_device(ctx, &attr));
    for (int port = 1; st.ok() && port <= attr.phys_port_cnt; ++port) {
      ibv_port_attr pa{};
      st = FABSCOPE_IBV(ibv_query_port(ctx, static_cast<uint8_t>(port), &pa));
      if (st.ok()) d.ports.push_back(summarize_port(port, pa));
    }
    if (!st.ok()) d.error = st.message();
    ibv_close_device(ctx);
    out.push_back(d);
  }
  return out;
}

Result<std::unique_ptr<VerbsDevice>> VerbsDevice::open(const VerbsOptions& o) {
  const std::vector<VerbsDeviceSummary> devices = list_verbs_devices();
  auto chosen = choose_verbs_device(devices, o);
  if (!chosen.ok()) return chosen.status();

  DeviceList list;
  ibv_device* dev = nullptr;
  for (int i = 0; i < list.size(); ++i) {
    if (*chosen == ibv_get_device_name(list[i])) dev = list[i];
  }
  if (dev == nullptr) return Status::Unavailable(fmt::format("RDMA device {} disappeared", *chosen));

  std::unique_ptr<VerbsDevice> d(new VerbsDevice());
  d->name_ = *chosen;
  d->port_ = static_cast<uint8_t>(o.port);
  d->context_ = ibv_open_device(dev);
  if (d->context_ == nullptr) return FABSCOPE_IBV_NULL(ibv_open_device);
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_IBV(ibv_query_device(d->context_, &d->dev_attr_)));
  FABSCOPE_RETURN_IF_ERROR(FABSCOPE_IBV(ibv_query_port(d->context_, d->port_, &d->attr_)));

  if (o.gid_index >= 0) {
    if (o.gid_index >= d->attr_.gid_tbl_len) {
      return Status::Invalid(fmt::format("--verbs-gid-index {}: {} port {} has GID indices 0 to {}", o.gid_index,
                                         d->name_, o.port, d->attr_.gid_tbl_len - 1));
    }
    ibv_gid gid{};
    FABSCOPE_RETURN_IF_ERROR(FABSCOPE_IBV(ibv_query_gid(d->context_, d->port_, o.gid_index, &gid)));
    d->gid_ = to_array(gid);
    if (gid_is_zero(d->gid_)) {
      return Status::Invalid(
          fmt::format("--verbs-gid-index {}: that GID of {} port {} is empty", o.gid_index, d->name_, o.port));
    }
    d->gid_index_ = o.gid_index;
  } else if (d->ethernet()) {
    // RoCE needs a GID; pick one as perftest does.
    std::vector<VerbsGidCandidate> candidates;
    for (int i = 0; i < d->attr_.gid_tbl_len; ++i) {
      ibv_gid_entry e{};
      if (ibv_query_gid_ex(d->context_, d->port_, static_cast<uint32_t>(i), &e, 0) != 0) continue;
      VerbsGidCandidate c;
      c.index = i;
      c.gid = to_array(e.gid);
      c.roce_v2 = e.gid_type == IBV_GID_TYPE_ROCE_V2;
      candidates.push_back(c);
    }
    d->gid_index_ = choose_gid_index(candidates);
    if (d->gid_index_ < 0) {
      return Status::Unavailable(fmt::format(
          "{} port {} is RoCE but has no GID (does its network interface have an IP address?)", d->name_, o.port));
    }
    for (const auto& c : candidates) {
      if (c.index == d->gid_index_) d->gid_ = c.gid;
    }
  }
  return d;
}

VerbsDevice::~VerbsDevice() {
  if (context_ != nullptr) ibv_close_device(context_);
}

std::string VerbsDevice::describe() const {
  std::string s = fmt::format("{} port {} ({}", name_, port_, verbs_link_layer_name(attr_.link_layer));
  const double rate = verbs_port_rate_gbps(attr_.active_speed, attr_.active_width);
  if (rate > 0) s += fmt::format(", {:g} Gb/s", rate);
  if (gid_index_ >= 0) {
    s += fmt::format(", GID index {}", gid_index_);
  } else {
    s += fmt::format(", LID {:#x}", attr_.lid);
  }
  return s + ")";
}

}  // namespace fabscope
