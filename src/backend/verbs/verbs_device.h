// The thin libibverbs layer of the verbs transport: turning ibv_* failures into a
// Status that names the call, listing devices and their ports, and opening the device
// and port the options select with the facts a queue pair needs (LID, GID, MTU).
// Only the verbs_*.cpp files that include this header touch a device.
#pragma once

#include <infiniband/verbs.h>

#include <array>
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "backend/verbs/verbs_options.h"
#include "backend/verbs/verbs_port.h"
#include "core/status.h"

namespace fabscope {

// "ibv_modify_qp(...) failed: Invalid argument (verbs_setup.cpp:120)". `err` is an
// errno value; ibv_* calls return it, or -1 with errno set, or NULL with errno set.
Status ibv_status(int err, const char* call, const char* file, int line);
#define FABSCOPE_IBV(call) ::fabscope::ibv_status(::fabscope::ibv_rc_errno(call), #call, __FILE__, __LINE__)
inline int ibv_rc_errno(int rc) { return rc < 0 ? errno : rc; }
#define FABSCOPE_IBV_NULL(call) ::fabscope::ibv_status(errno != 0 ? errno : EIO, #call, __FILE__, __LINE__)

// Every device libibverbs sees with its ports; empty when there is none (or the
// kernel has no RDMA support).
std::vector<VerbsDeviceSummary> list_verbs_devices();

const char* verbs_port_state_name(int state);
const char* verbs_link_layer_name(int link_layer);

// An open device context on the chosen port, closed on destruction.
class VerbsDevice {
 public:
  static Result<std::unique_ptr<VerbsDevice>> open(const VerbsOptions& options);
  ~VerbsDevice();
  VerbsDevice(const VerbsDevice&) = delete;
  VerbsDevice& operator=(const VerbsDevice&) = delete;

  ibv_context* context() const { return context_; }
  const std::string& name() const { return name_; }
  uint8_t port() const { return port_; }
  uint16_t lid() const { return attr_.lid; }
  ibv_mtu active_mtu() const { return attr_.active_mtu; }
  bool ethernet() const { return attr_.link_layer == IBV_LINK_LAYER_ETHERNET; }
  // The GID index queue pairs route with, or -1 for LID routing (InfiniBand, no -x).
  int gid_index() const { return gid_index_; }
  const std::array<uint8_t, 16>& gid() const { return gid_; }
  const ibv_device_attr& device_attr() const { return dev_attr_; }
  // "mlx5_0 port 1 (InfiniBand, 200 Gb/s, LID 0x12)"
  std::string describe() const;

 private:
  VerbsDevice() = default;
  ibv_context* context_ = nullptr;
  std::string name_;
  uint8_t port_ = 1;
  ibv_port_attr attr_{};
  ibv_device_attr dev_attr_{};
  int gid_index_ = -1;
  std::array<uint8_t, 16> gid_{};
};

}  // namespace fabscope
