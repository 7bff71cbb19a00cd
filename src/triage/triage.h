// `fabscope triage`: answers from what a ticket already holds. Every file is taken by its
// content, not its name (NCCL logs of any ranks with launcher prefixes, nccl-tests output,
// nvidia-smi topo -m, RDMA tool output, NIC and IB port counters, dmesg, hwloc and NCCL
// XML), its facts gathered, and each signature of the table (triage/signatures.cpp) turns
// them into findings quoting the evidence lines with file and line number. The topology
// the files describe goes through topo's analysis too. Where the files cannot support a
// judgement, what is missing is listed and the verdict is inconclusive, never pass.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/progress.h"
#include "core/status.h"
#include "diag/watch.h"
#include "report/nccl_tests_parse.h"
#include "report/report.h"
#include "topo/model.h"

namespace fabscope::triage {

// A line quoted as evidence.
struct Quote {
  std::string file;
  int line = 0;  // 1-based
  std::string text;
};

// One NCCL_DEBUG line kept for the signatures (the kinds they read, not every line).
// A framework's NCCL error line (PyTorch's "NCCL error ...", ncclRemoteError, the c10d
// watchdog's timeout) is one too: level ERROR, no host or pid, its "[rankN]" as rank.
struct NcclFact {
  Quote where;
  std::string host;
  std::string pid;
  int dev = -1;
  std::string level;  // INFO, WARN; ERROR for a framework's line
  std::string msg;
  int rank = -1;  // a framework line's "[rankN]"; -1 where the line does not say
};

// What NCCL's RAS client (ncclras, NCCL 2.24 and later; also `echo verbose status | nc
// localhost 28028`) says of a process or rank: one that RAS lost (its DEAD section, a job
// process or a communicator rank INCOMPLETE for missing data, its monitor's PEER_DEAD or
// PEER_UNRESPONSIVE), or a rank that launched fewer collectives than the others (a MISMATCH
// of operation counts).
struct RasFact {
  Quote where;
  std::string what;     // "dead", "unresponsive", "missing", "behind"
  int rank = -1;        // the communicator rank, where RAS names one
  std::string process;  // "process 3487984 on node 172.16.64.213 managing GPU 5"; "" where not said
  std::string host;     // the node RAS names; "" where not said
  std::string comm;     // "#0-0" for a communicator's block
  int64_t op = -1;      // behind: the last operation it launched (0: none)
  int64_t ahead = -1;   // behind: the others' last operation
  std::string coll;     // behind: the collective whose counts differ ("AllReduce"), "" before 2.26
  // behind, a group RAS counts without naming its ranks ("30 ranks have launched up to
  // operation 640", where it names only the 2 at 641): how many, and the ranks it names ahead.
  int unnamed = 0;
  std::vector<int> named_ahead;
};

// One counter value: "name: value", perfquery's "Name:....value", a sysfs listing.
struct CounterFact {
  Quote where;
  std::string device;  // "" where the file does not say
  std::string name;    // as printed
  uint64_t value = 0;
};

// A PCIe link below what its device can do, as lspci -vv shows it (a device's LnkCap,
// then its LnkSta) or the kernel reports it at enumeration ("... available PCIe
// bandwidth, limited by 2.5 GT/s PCIe x4 link at ... (capable of ... with 8.0 GT/s PCIe
// x4 link)"). Speeds in GT/s and widths in lanes; 0 where the line does not say.
struct PcieLinkFact {
  Quote where;         // the LnkSta line, or the kernel's
  Quote capability;    // the LnkCap line; empty for the kernel's
  std::string device;  // lspci's device line, or the kernel line's device; "" where not shown
  // Its speed may drop when idle: a GPU (lspci's device line names a VGA or 3D controller,
  // nvidia-smi's own), or a device the paste does not name (sysfs's attributes). A slower
  // speed alone is then information; a narrower width is still a warning.
  bool may_idle = false;
  double cap_gts = 0, sta_gts = 0;
  int cap_width = 0, sta_width = 0;
  // lspci's own judgement of the LnkSta against the device's capability ("Speed 2.5GT/s
  // (downgraded), Width x2 (downgraded)"): known even where its LnkCap is not in the paste.
  bool speed_downgraded = false, width_downgraded = false;
  bool driver_says = false;  // its NIC driver said the link is not enough for the card
  std::string judged_by;     // that driver's name ("ixgbe"), where the line gives it
};

// A link of the InfiniBand fabric as iblinkinfo prints it: "29 3[  ] ==( 1X 25.78125 Gbps
// Active/  LinkUp)==> 14 1[  ] "gpu-node03 mlx5_0" ( Could be 4X)": the node (its header
// line), the port, the width, speed, state and physical state, the far end, and
// iblinkinfo's own "Could be ..." where the link runs below what both ends support.
struct IbLinkFact {
  Quote where;
  std::string node, port, width, speed, state, phys, remote, could_be;
};

// A line of nvidia-smi about one GPU, and that GPU's bus id ("00000000:18:00.0"; "" where
// the paste does not show it).
struct SmiGpuFact {
  Quote where;
  std::string gpu;
};

// A test DCGM's diagnostic (`dcgmi diag -r N`) did not pass: its row ("| GPU Memory |
// Fail - GPU: 0 |"), its result ("Fail", "Warn", or "Error" for a deployment check's
// "| Error | GPU 3 has uncorrectable memory errors ... |"), the GPUs it names, and the
// detail DCGM prints below it ("| Warning | GPU 0 Thermal violations ...", its wrapped rows
// joined).
struct DcgmDiagFact {
  Quote where;
  std::string test, result, gpus, detail;
};

// lspci -vv's ACSCtl line of a PCIe port (or `lspci -vvv | grep ACSCtl`): Access Control
// Services with a redirection on (SrcValid+, ReqRedir+, CmpltRedir+) send peer-to-peer
// traffic between devices below one switch up to the root complex (and the IOMMU), where
// GPUDirect P2P and RDMA slow down, hang or fail.
struct AcsFact {
  Quote where;
  std::string device;  // lspci's device line above it; "" where not shown
  bool redirect = false;
};

// An RDMA device whose GUID is all zeros: ibv_devices' "mlx5_2 0000000000000000",
// ibstat's "Node GUID: 0x0000000000000000" (or Port GUID), ibv_devinfo's
// "node_guid: 0000:0000:0000:0000". The device where the listing names it.
// A row of show_gids: "mlx5_0 1 6 0000:...:0401 11.0.4.1 v1 net1" (no IPv4 for a
// link-local GID).
struct GidRowFact {
  Quote where;
  std::string device;
  int port = 0, index = 0;
  std::string gid, ipv4, version;
};

// A process's locked-memory limit (RLIMIT_MEMLOCK) as a listing shows it: /proc/PID/limits'
// "Max locked memory" (bytes), `ulimit -a`'s "max locked memory (kbytes, -l)", `ulimit -l`.
struct MemlockFact {
  Quote where;
  uint64_t bytes = 0;  // UINT64_MAX: unlimited; 0: a program said it was too small, not what it was
};

struct ZeroGuidFact {
  Quote where;
  std::string device;
};

// nvidia-smi nvlink -s: a GPU's line ("GPU 0: NVIDIA A100-SXM4-80GB (UUID: ...)") and its
// links' lines ("Link 3: 25 GB/s", "Link 4: <inactive>"). `listing` counts the listings in
// a file (a GPU index that does not rise starts another: several hosts' pasted together).
struct NvlinkFact {
  Quote where;  // the link's line
  Quote gpu_line;
  int listing = 0, gpu = -1, link = -1;
  double gbps = 0;  // GB/s; 0 where inactive
  bool inactive = false;
  // nvidia-smi's "Unable to retrieve NVLink information as all links are inActive" under
  // the GPU's line: every link of the GPU down (link is -1).
  bool all = false;
};

// The interfaces NCCL says it uses for sockets: "NET/Socket : Using [0]bond0:10.0.0.1<0>
// [1]br-05ab815fa14e:172.19.0.1<0>" or "Bootstrap : Using [0]eth0:...", or such entries
// on lines of their own (a list broken up when pasted).
struct InterfaceListFact {
  Quote where;
  std::string host;  // the NCCL line's host; "" for entries on lines of their own
  std::string what;  // "NET/Socket", "Bootstrap", or "" where the lines do not say
  std::vector<std::string> names;
};

// An nccl-tests "# Using devices" line, and its block in the file: a line that is not a
// comment (a table's row, a log line) ends a block, so two runs pasted one after the other
// are two blocks.
struct TestDeviceFact {
  Quote where;
  NcclTestsDevice device;
  int block = 0;
};

// Everything the files say that a signature reads.
struct Facts {
  std::vector<TriageFile> files;
  std::vector<NcclFact> nccl;
  std::vector<RasFact> ras;   // NCCL's RAS client's lost processes and ranks behind
  std::vector<Quote> kernel;  // dmesg / journalctl -k lines of the kinds the signatures read
  std::vector<std::pair<std::string, NcclTestsTable>> tables;  // file, table
  std::vector<CounterFact> counters;
  std::vector<PcieLinkFact> pcie_links;  // lspci's LnkCap/LnkSta pairs (the kernel's lines are in `kernel`)
  std::vector<NvlinkFact> nvlinks;       // nvidia-smi nvlink -s
  std::vector<AcsFact> acs;              // lspci's ACSCtl lines
  std::vector<DcgmDiagFact> dcgm_diag;   // DCGM's diagnostic: the tests that did not pass
  std::vector<IbLinkFact> ib_links;      // iblinkinfo's links below their capability or not Active
  // ibdiagnet's link checks ("-E- Link: ...<-->... - Unexpected actual link speed 25") and a
  // port whose rate keeps it out of its IPoIB group ("due to rate:2.5Gbps < group:10Gbps").
  std::vector<Quote> ibdiag_links;
  std::vector<ZeroGuidFact> zero_guids;  // RDMA devices listed with GUID 0
  std::vector<GidRowFact> gid_rows;      // show_gids' rows
  // ibv_devinfo -v's GID lines ("GID[  1]:  fe80:...", ", RoCE v2" after it in newer
  // rdma-core) under a host's label on a line of its own ("cu01:"); none without a label.
  struct GidIndexFact {
    Quote where;
    std::string host;
    int index = 0;
    std::string gid;
  };
  std::vector<GidIndexFact> gid_indexes;
  // NCCL's connections within a node ("Ring 00 : 6[6] -> 10[2] via P2P/IPC", "Channel 00/0 :
  // 2[2] -> 3[3] via SHM/direct/direct"), per host: the ranks its lines are from and the
  // peers they reach through P2P or SHM, each rank's GPU and its first line; a process
  // seen with two ranks (several communicators in the log) marks the host's as mixed.
  struct IntraNodeRanks {
    std::map<int, std::pair<int, Quote>> own, peers;  // rank: GPU, first line
    std::map<std::string, int, std::less<>> pid_rank;
    bool mixed = false;
  };
  std::map<std::string, IntraNodeRanks, std::less<>> intra_node;
  // Each NCCL process of a host ("host:pid:tid [dev]"), the highest CUDA device index it
  // logs and its first line: processes that all log device 0 each see one GPU of their own.
  // At most kMaxProcessesPerHost per host.
  struct NcclProcess {
    int dev = 0;
    Quote first;
  };
  static constexpr size_t kMaxProcessesPerHost = 256;
  std::map<std::string, std::map<std::string, NcclProcess, std::less<>>, std::less<>> nccl_processes;
  std::vector<Snapshot> snapshots;  // fabscope's profiler plugin's snapshots of a running job
  // nvidia-smi -q: a GPU memory repair waiting for a reset ("Pending : Yes" under "Remapped
  // Rows" or "Retired Pages", "Pending Page Blacklist : Yes"), and spare rows run out
  // ("Remapping Failure Occurred : Yes").
  std::vector<Quote> gpu_repair_pending, gpu_remap_failed;
  // nvidia-smi -q's "Fabric" section of a GPU whose registration with the NVLink fabric failed
  // ("Status : Insufficient Resources" under "State : Completed"): its State and Status lines.
  std::vector<Quote> gpu_fabric_failed;
  // CUDA's own report of it, from any program: "uncorrectable ECC error encountered"
  // (cudaErrorECCUncorrectable, CUDA_ERROR_ECC_UNCORRECTABLE, error 214).
  std::vector<Quote> cuda_ecc;
  // CUDA refusing peer access between two GPUs, from any program: "peer access is not
  // supported between these two devices" (cudaErrorPeerAccessUnsupported, error 217).
  // NVIDIA's rdma_topo check (DOCA) failing the PCIe path between a NIC's DMA function and
  // a GPU: "FAIL ACS for cx_switch 0009:02:00.0 0011101 != xx110x1, 0x1d != 0x19", "FAIL
  // Kernel iommu_group for DMA 0009:03:00.0 and GPU 0009:06:00.0 are not equal".
  std::vector<Quote> rdma_topo_failed;
  // NVIDIA's MIG manager unable to change a GPU's MIG layout while a client holds it:
  // "Error clearing MigConfig: error destroying Compute instance for profile '(0, 0)': In
  // use by another client".
  std::vector<Quote> mig_in_use;
  // ls -l's NCCL library links ("/usr/lib/x86_64-linux-gnu/libnccl.so.2 -> libnccl.so.2.23.4"),
  // whose versions check_nccl_library_versions compares.
  std::vector<Quote> nccl_library_links;
  // The dynamic loader refusing a program for an NCCL symbol its libnccl lacks ("ImportError:
  // .../torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister"): an older NCCL loaded
  // than the one the program was built against.
  std::vector<Quote> nccl_symbol_missing;
  // A framework finding no NCCL at all: XLA's "Unable to load NCCL library. Multi-GPU
  // collectives will not work.", PyTorch's "Distributed package doesn't have NCCL built in",
  // the loader's "libnccl.so.2: cannot open shared object file".
  std::vector<Quote> nccl_library_missing;
  // DCGM's IMEX health check, as dcgmi and the health checkers built on it print it
  // ("ErrorCode:DCGM_FR_IMEX_UNHEALTHY GPU:0 ...", "IMEX daemon status is -3 (not READY)").
  std::vector<Quote> imex_not_ready;
  // CUDA's multicast objects refused where a program needs them: TransformerEngine's
  // "CUDA device, driver and/or toolkit version does not support comm+GEMM overlap with CUDA
  // Multicast", a driver-API program's cuMulticastCreate failing with CUDA_ERROR_NOT_SUPPORTED.
  std::vector<Quote> multicast_unsupported;
  std::vector<Quote> cuda_p2p;
  // Broadcom's niccli showing a NIC's RDMA support off in its NVM ("support_rdma = False").
  std::vector<Quote> nic_rdma_disabled;
  // Cray MPICH's GPU transport layer failing to open another rank's GPU buffer over CUDA
  // IPC: "(GTL DEBUG: 1) cuIpcOpenMemHandle: invalid argument, CUDA_ERROR_INVALID_VALUE".
  std::vector<Quote> gtl_ipc_failed;
  // A peer-access tool (simpleP2P, deviceQuery, p2pBandwidthLatencyTest, `nvidia-smi topo
  // -p2p`, nvbandwidth's waived device-to-device tests) saying no GPU pair listed has access.
  std::vector<Quote> peer_tool_denied;
  // Accelerate refusing RTX 4000 GPUs' fast paths ("Using RTX 4000 series doesn't support
  // faster communication broadband via P2P or IB. Please set `NCCL_P2P_DISABLE="1"` ...").
  std::vector<Quote> framework_p2p_refused;
  // The NVIDIA driver's kernel module and its user-space libraries at different versions:
  // nvidia-smi's "Failed to initialize NVML: Driver/library version mismatch", the
  // kernel's "NVRM: API mismatch".
  std::vector<Quote> driver_mismatch;
  // CUDA refusing work because the system is not ready, from any program: "system not yet
  // initialized", cudaErrorSystemNotReady, error 802 (an NVSwitch system's Fabric Manager).
  std::vector<Quote> cuda_not_ready;
  // CUDA's errors that point at the machine, in other programs' lines than NCCL's own
  // (a framework's "CUDA error: peer mapping resources exhausted", cuda-samples'
  // "code=711(cudaErrorTooManyPeers)"): read with NCCL's warnings (names_cuda_error).
  std::vector<Quote> cuda_errors;
  // The NVIDIA driver refusing to pin GPU memory for another device (GPUDirect RDMA's
  // nvidia-peermem, nv_peer_mem, gdrcopy): "nvidia_p2p_get_pages(...) failed [ret = -22]".
  std::vector<Quote> gpudirect_pin_failed;
  // perftest with a GPU buffer (--use_cuda) whose registration the NIC refused with EFAULT
  // ("Couldn't allocate MR with error=14" after "allocated GPU buffer of a ..."): GPU memory
  // the NIC cannot pin.
  std::vector<Quote> gpu_mr_refused;
  // Frames of NCCL's RAS subsystem in a crashed process's backtrace ("rasMsgHandlePeersUpdate()"
  // after "Caught signal 11 (Segmentation fault").
  std::vector<Quote> ras_crash_frames;
  // The kernel refusing a module built against another version of one it uses:
  // "nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client".
  std::vector<Quote> module_abi;
  // nvidia-smi's "Failed to initialize NVML: Unknown Error": in a container, its GPU device
  // nodes taken from it.
  std::vector<Quote> nvml_unknown;
  // A container's cgroup v1 device list letting the NVIDIA devices (major 195) be created
  // but not read or written ("c 195:* m"), with no entry that allows them.
  std::vector<Quote> gpu_cgroup_denied;
  // nvidia-smi's "Failed to initialize NVML: Insufficient Permissions": the GPU device nodes
  // not open to the process.
  std::vector<Quote> nvml_denied;
  std::vector<MemlockFact> memlock;
  // libibverbs finding a kernel RDMA device with no user-space driver for it: "libibverbs:
  // Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0".
  std::vector<Quote> rdma_no_provider;
  // libibverbs unable to load a provider its configuration names (dynamic_driver.c:
  // "libibverbs: Warning: couldn't load driver 'libmlx5-rdmav34.so': libmlx5-rdmav34.so:
  // cannot open shared object file: No such file or directory"). Harmless for a provider of
  // hardware the host lacks; the NIC's own where no RDMA device is found after it.
  std::vector<Quote> rdma_driver_unloaded;
  // lspci's device lines of RDMA-capable NICs (a Mellanox/NVIDIA ConnectX, an InfiniBand
  // controller): the card is on the bus.
  std::vector<Quote> rdma_nics_on_bus;
  // Mellanox's shared RDMA device plugin refusing to start: "Exiting.. can not change :
  // incorrect RDMA subsystem network namespace" (the kernel's RDMA netns mode exclusive).
  std::vector<Quote> rdma_netns;
  // libnvidia-container unable to mount the host's driver files over the image's own:
  // "mount error: file creation failed: .../merged/usr/bin/nvidia-smi: file exists".
  std::vector<Quote> driver_files_in_image;
  // infiniband-diags' "No SM/SA found on port :1": no subnet manager answers on the port.
  std::vector<Quote> no_sm;
  // nvidia-smi's table: a GPU's rows with "ERR!" (NVML could not read the GPU); a volatile
  // uncorrectable ECC count above 0 (the table's "Volatile Uncorr. ECC", -q's "ECC Errors").
  std::vector<SmiGpuFact> smi_gpu_err, smi_uncorrectable;
  // nvidia-smi -q's "Clocks Event Reasons" ("Clocks Throttle Reasons" before 535): a
  // hardware or thermal slowdown Active ("HW Slowdown : Active", "HW Thermal Slowdown",
  // "HW Power Brake Slowdown", "SW Thermal Slowdown").
  std::vector<SmiGpuFact> smi_slowdown;
  // The NVIDIA driver's NVML library missing: NCCL's "Failed to open libnvidia-ml.so.1",
  // nvidia-smi's "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system".
  std::vector<Quote> driver_libs_missing;
  std::vector<Quote> toolkit_denied;  // nvidia-container-cli refused a privileged step
  // The container engine without an NVIDIA runtime: Docker's "could not select device driver
  // \"\" with capabilities: [[gpu]]", containerd's "no runtime for \"nvidia\" is configured".
  std::vector<Quote> toolkit_missing;
  // A container runtime unable to start the image's shell or command for want of the file:
  // enroot's "enroot-switchroot: failed to execute: /bin/sh: No such file or directory",
  // runc's "exec: \"/bin/bash\": stat /bin/bash: no such file or directory".
  std::vector<Quote> image_no_shell;
  std::vector<Quote> image_storage_full;  // an image written to a full filesystem (pull, import, squashfs)
  // A kernel module that did not build against the running kernel: modpost's "ERROR: modpost:
  // GPL-incompatible module gdrdrv.ko uses GPL-only symbol 'cc_mkdec'" or "... undefined!",
  // DKMS's "Error! Bad return status for module build on kernel: 6.5.0-14-generic (x86_64)".
  std::vector<Quote> module_build_failed;
  // modprobe finding no module of a GPU or RDMA driver for the running kernel ("modprobe: FATAL:
  // Module nvidia-peermem not found in directory /lib/modules/6.8.0-1059-azure").
  std::vector<Quote> module_not_found;
  std::vector<Quote> rdma_enomem;  // another program's RDMA resource refused with ENOMEM
  std::vector<Quote> shm_full;     // PyTorch's tensors between processes without room in /dev/shm
  // Open MPI's TCP transport failing to connect: "connect() to 172.17.0.1 failed".
  std::vector<Quote> tcp_connect_failed;
  // Gloo's TCP pairs failing to connect ("timed out connecting: SO_ERROR: Connection refused,
  // remote=[127.0.0.1]:14215"), and its warning that it took the loopback ("Unable to resolve
  // hostname to a (local) address. Using the loopback address as fallback.").
  std::vector<Quote> gloo_connect_failed, gloo_loopback;
  // nvidia-smi's "GPU is lost.  Reboot the system to recover this GPU": a GPU that stopped
  // answering (fallen off the bus).
  std::vector<Quote> gpu_lost;
  // MUNGE's errors, from PMIx, Slurm or munge's tools: "psec: munge failed to create
  // credential: Socket communication error", "Munge decode failed: Expired credential".
  std::vector<Quote> munge;
  // Open MPI's PMIx client failing at start ("OPAL ERROR: Not initialized in file
  // pmix3x_client.c at line 112", "ext3x_client.c"), and its help for a direct launch without
  // Slurm's PMI ("... direct launched using \"srun\", but OMPI was not built with SLURM's PMI
  // support"); `srun`: a line of srun's or slurmstepd's in the files.
  std::vector<Quote> pmix_client_failed;
  // Open MPI's launch failing: its daemons not started ("ORTE was unable to reliably start one
  // or more daemons", PRRTE's "PRTE was ..."), with what a remote shell said before it
  // (`mpi_launch_cause`: "bash: orted: command not found", ssh's "Could not resolve hostname",
  // "Host key verification failed", "Permission denied (publickey...)", a daemon's
  // "tcp_peer_send_blocking: send() ... failed"); a process unable to reach another over TCP
  // ("A process or daemon was unable to complete a TCP connection", with the box's hosts); a TCP
  // connection that reached another process than the one it was made for ("received unexpected
  // process identifier", "Open MPI accepted a TCP connection ... cannot find a corresponding
  // process entry").
  std::vector<Quote> mpi_daemons_failed, mpi_launch_cause, mpi_oob_unreachable, mpi_tcp_wrong_peer;
  // ORTE's daemons unable to read each other's messages ("Data unpack would read past end of
  // buffer"): Open MPI, or the hwloc it carries, differing between the processes.
  std::vector<Quote> mpi_unpack_failed;
  // Open MPI's MPI_Init failing in its point-to-point layer ("PML add procs failed", then
  // "--> Returned "Not found" (-13) instead of "Success" (0)").
  std::vector<Quote> mpi_pml_add_procs_failed;
  // Open MPI's openib BTL finding the factory-default subnet prefix (fe80::) on more than one
  // active port of a host ("the default subnet GID prefix was detected on more than one of
  // these ports").
  std::vector<Quote> default_subnet_prefix;
  bool srun_seen = false;
  // Slurm's daemons and commands of different releases, in Slurm's words: slurmd refusing a
  // credential another release packed ("Credential signature check: Credential data
  // mismatch"), a protocol version a daemon does not speak ("Invalid Protocol Version 9984",
  // "protocol_version 9216 not supported", "Incompatible versions of client and server code").
  // A version that no Slurm release has (a port scanner's bytes: "protocol_version 65363") is
  // not kept, nor the "Incompatible versions" lines of a file that has one.
  std::vector<Quote> slurm_version;
  // Slurm's job credential expired when slurmd checked it (its ESLURMD_CREDENTIAL_EXPIRED,
  // "srun: error: Task launch for 1466614.0 failed on node n1: Job credential expired").
  std::vector<Quote> slurm_credential_expired;
  // Slurm's generic resources (GRES: the GPUs) configured in a way slurmd or the controller
  // refuses, in Slurm's words (src/interfaces/gres.c): gres.conf records slurmd will not start
  // with ("fatal: gres.conf duplicate records for gpu", "gres.conf for gpu, some records have
  // "File" specification while others do not", "Invalid GRES record for gpu, count does not
  // match File value", "can't stat gres.conf file"); a node reporting fewer GPUs than slurm.conf
  // gives it, which the controller drains ("gres/gpu count reported lower than configured (0 <
  // 8)", "gpu:a100 count too low (4 < 8)", AutoDetect's "the amount of GPUs configured in
  // slurm.conf does not match what was detected"); a job asking for a GRES no node has
  // ("Invalid generic resource (gres) specification").
  std::vector<Quote> slurm_gres;
  // Open MPI's openib BTL finding that only part of the host's memory can be registered for
  // RDMA (help-mpi-btl-openib.txt's "reg mem limit low": "It appears that your OpenFabrics
  // subsystem is configured to only allow registering part of your physical memory."), with
  // the lines of its box that follow ("Local host:", "Registerable memory: 32768 MiB", "Total
  // memory: 65476 MiB").
  std::vector<Quote> rdma_registration_capped;
  // NVIDIA's NIC driver container (the Network Operator's MOFED/DOCA driver) refusing to
  // replace the RDMA stack while storage modules over it are loaded: "Storage modules are
  // loaded for current driver, terminating prior driver reload failure due to
  // UNLOAD_STORAGE_MODULES not set to "true"".
  std::vector<Quote> nic_driver_storage_modules;
  // NVIDIA's GPU driver container (the GPU Operator's) unable to unload the NVIDIA modules
  // it would replace: "Could not unload NVIDIA driver kernel modules, driver is in use".
  std::vector<Quote> gpu_driver_in_use;
  // An MPI built without CUDA support asked for it: Open MPI's help message "The user
  // requested CUDA support with the --mca mpi_cuda_support 1 flag / but the library was not
  // compiled with any support." (its first line kept).
  std::vector<Quote> mpi_not_cuda_aware;
  // UCC's shared-memory team layer (Open MPI's and HPC-X's collectives through coll/ucc)
  // failing, in UCC's log form: "[1723337199.099229] [ai-worker03:1382 :0] tl_shm_team.c:617
  // TL_SHM ERROR Child failed to attach to shmseg, errno: Invalid argument".
  std::vector<Quote> ucc_shm_failed;
  // A program that picks its RoCE GID itself finding none it can use on a device: Mooncake's
  // transfer engine, "No suitable GID found on mlx5_bond_1/".
  std::vector<Quote> roce_gid_unusable;
  // RDMA user space and the kernel's driver at versions that do not go together: libibverbs'
  // "Driver mlx5 does not support the kernel ABI of 1 (supports 4 to 4)", a DEVX call the
  // kernel's mlx5_ib lacks ("mlx5dv_devx_create_event_channel() failed: Protocol not supported").
  std::vector<Quote> rdma_abi_mismatch;
  // An inference framework's custom all-reduce (vLLM's, SGLang's csrc/custom_all_reduce.cuh,
  // which shares GPU buffers over CUDA IPC) failing a CUDA call: "Failed: Cuda error
  // /workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'"; and PyTorch's
  // expandable_segments turned on in the same files (PYTORCH_CUDA_ALLOC_CONF=
  // expandable_segments:True), whose memory CUDA's legacy IPC cannot export.
  std::vector<Quote> custom_allreduce;
  // A node health check's failure in LBNL NHC's words, as Azure's azurehpc-health-checks and
  // its distributed runner print them: "mynode-273 | ERROR: nhc: Health check failed:
  // check_hw_ib: No IB port mlx5_ib7:1 is ACTIVE (LinkUp 400 Gb/sec)." The quote is the line.
  struct NhcFailure {
    Quote where;
    std::string host;   // before " | " (the distributed runner's); "" where not said
    std::string check;  // "check_hw_ib"; "" where the message names none
    std::string words;  // after the check's name, its fault code left out
  };
  std::vector<NhcFailure> nhc;
  // One port as mlxlink shows it (NVIDIA's MFT: `mlxlink -d mlx5_0 [-c] [-e]`): its
  // Operational Info (State, Physical state, Speed; its Width line is taken, not judged: a
  // split port runs at 2x by design), Supported Info (the speeds
  // enabled and the cable's), Troubleshooting Info (mlxlink's own Recommendation) and, with
  // -c, its Physical Counters and BER. Empty strings and -1 where the paste lacks a field.
  struct MlxlinkPort {
    Quote where;         // its "State" line (or the first field read)
    std::string device;  // from a pasted "mlxlink -d DEV" command line; "" where none
    std::string state, physical, speed, enabled, cable, recommendation;
    Quote speed_line, recommendation_line, errors_line;
    int64_t effective_errors = -1, link_down = -1;
  };
  std::vector<MlxlinkPort> mlxlink;
  std::vector<Quote> expandable_segments;
  // An OCI runtime's hook that failed, so the container was not created (runc's "error running
  // createContainer hook #6: exit status 1, stdout: , stderr: ...", also pasted as
  // "createContainer hook #6: exit status 1, stderr:" with the hook's own words on the lines
  // after, which are kept with it: "mkdirat etc/nvidia/...: read-only file system"). The
  // NVIDIA toolkit's legacy prestart hook's nvidia-container-cli errors have readers of
  // their own and are not kept here.
  std::vector<Quote> runtime_hook_failed;
  // enroot's hooks failing as pyxis starts a Slurm job's container ("[ERROR]
  // /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1"), and nvidia-container-cli's
  // error lines ("nvidia-container-cli: ldcache error: ..."), the NVIDIA hook's why.
  std::vector<Quote> enroot_hook_failed, container_cli_errors;
  // The NVIDIA driver not starting, or a GPU it could not start: nvidia-smi's "couldn't
  // communicate with the NVIDIA driver", modprobe's "could not insert 'nvidia'", NVRM's
  // "RmInitAdapter failed!", an invalid BAR, an unsupported GPU, fallen off the bus at probe.
  std::vector<Quote> gpu_start;
  // PyTorch's c10d store failing before NCCL starts: "The client socket has failed to
  // connect to any network address of (HOST, PORT).", "Address already in use", "gai
  // error", "waiting for clients. 1/2 clients joined".
  std::vector<Quote> rendezvous;
  // Lightning's "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4", printed by each
  // process as it starts its process group, and whether "All distributed processes
  // registered. Starting with N processes" followed.
  std::vector<Quote> lightning_members;
  bool lightning_registered = false;
  // perftest (ib_write_bw ...) on a RoCE port ("Link type : Ethernet") whose GID line is all
  // zeros: the port has no RoCE GID in this network namespace.
  std::vector<Quote> roce_gid_empty;
  // libfabric's EFA provider with no usable device: "provider efa output empty list",
  // "fi_getinfo: -61 (No data available)" after the provider's own warnings.
  std::vector<Quote> efa_no_device;
  std::vector<InterfaceListFact> interfaces;
  std::vector<Quote> fabric_manager;  // NVIDIA Fabric Manager's lines (its log, journalctl)
  // An RDMA tool saying there is no device: ibstatus' "sys files not found
  // (/sys/class/infiniband/...)", ibv_devinfo's "No IB devices found", "Failed to get IB
  // devices list".
  std::vector<Quote> rdma_absent;
  // nccl-tests summaries ("# Out of bounds values") that follow one another with no table
  // between: each process printed its own run.
  std::vector<std::pair<Quote, Quote>> doubled_summaries;
  // nccl-tests' "# Using devices" lines, also where no table follows them.
  std::vector<TestDeviceFact> test_devices;
  topo::TopologySet topology;  // what nvidia-smi, XML, RDMA output and NCCL logs describe
};

// A frame of NCCL's error trace: the INFO line "misc/socket.cc:567 -> 2" (" [Progress
// Thread]" may follow) that NCCL prints at each level a failure returns through, innermost
// first: the source file and the ncclResult_t it returned. nullopt for any other message.
struct TraceFrame {
  std::string_view file;
  int result = 0;
};
std::optional<TraceFrame> nccl_trace_frame(std::string_view msg);

// Whether `line` names one of CUDA's errors that point at the machine (its message, or
// its runtime or driver name: "peer mapping resources exhausted", cudaErrorTooManyPeers,
// CUDA_ERROR_TOO_MANY_PEERS), as the signatures read them.
bool names_cuda_error(std::string_view line);
// Programs' own sentences for CUDA errors, which name no "CUDA error": PyTorch's ("The NVIDIA
// driver on your system is too old", "ProcessGroupNCCL is only supported with GPUs, no GPUs
// found") and the container toolkit's ("unsatisfied condition: cuda>=11.0").
bool cuda_sentence(std::string_view line);
// A verbs or libfabric resource refused with ENOMEM ("ibv_create_cq failed: Cannot allocate
// memory", "NET/OFI Couldn't open CQ. RC: -12, ...", "Unable to create extended CQ: ..."),
// not a dma-buf registration: locked memory, as the signatures read it.
bool rdma_enomem(std::string_view line);

// An NCCL installed in some form, as a listing names it: its library file
// ("/usr/lib64/libnccl.so.2.9.9", ls -l's link "libnccl.so.2 -> libnccl.so.2.23.4"), a
// package ("libnccl-2.9.9-1+cuda11.3.x86_64" of rpm -qa, "libnccl2_2.18.3-1+cuda12.2_amd64.deb",
// dpkg -l's "ii  libnccl2  2.18.3-1+cuda12.2  amd64 ...", pip's "nvidia-nccl-cu12  2.18.1" or
// "nvidia-nccl-cu12==2.18.1"): its version ("2.9.9") and where (the directory or the package
// as written). Nothing for another line, nor NCCL's own "NCCL version" lines.
struct NcclInstall {
  std::string version;
  std::string where;
};
std::optional<NcclInstall> nccl_install(std::string_view line);

// Whether an error's or a warning's text has a meaning of the signatures' own (NCCL's
// wordings, CUDA's catalogue, the verbs calls refused for want of locked memory): another
// program's warnings are read only then.
bool has_warn_meaning(std::string_view msg);

// The kinds a file can be taken as (a file can be several: nccl-tests run with
// NCCL_DEBUG=INFO is an NCCL log too). Empty: not recognised.
std::vector<std::string> recognise(std::string_view text);

// Reads one file's text into `facts` (its TriageFile appended). Never fails: what cannot
// be read is the file's note.
void gather(const std::string& path, std::string_view text, Facts& facts);

// Reads the file at `path` into `facts`: whole when small, streamed line by line when
// large (over 64 MiB: memory bounded by the distinct lines kept, not the file's size),
// with a progress line when given one. Fails only where the file cannot be read.
struct StreamLimits {
  uint64_t stream_above = 64ull << 20;  // bytes; larger files are streamed
  size_t chunk = 4 << 20;               // bytes read at a time
};
Status gather_file(const std::string& path, Facts& facts, Progress* progress, const StreamLimits& limits = {});

// Files under `paths` (directories recursively, in name order), regular files only.
Result<std::vector<std::string>> list_files(const std::vector<std::string>& paths);

// The signatures, run over `facts`: findings, errors first; what a judgement would need
// and the files lack is added to `missing`.
std::vector<Finding> run_signatures(const Facts& facts, std::vector<std::string>& missing);

// One signature of the table: the codes its findings carry (none: it only says what is
// missing), what it recognises, and its check.
struct Signature {
  std::vector<std::string_view> codes;
  std::string_view what;
  void (*check)(const Facts& facts, std::vector<Finding>& out, std::vector<std::string>& missing);
};
const std::vector<Signature>& signatures();

// What the facts say, into `report`: the signatures' findings, the topology's analysis,
// the answer first, the files as taken, and what is missing.
void judge(Facts facts, Report& report);

// A pasted line without what a launcher, a log collector or a web page put before it
// (kubectl logs --prefix, mpirun --tag-output, srun --label, an RFC 3339 timestamp, a
// Markdown quote), as every reader takes it.
std::string_view without_wrappers(std::string_view line);

// The whole triage of `paths` into `report` (files, topology, findings, missing).
Status triage_paths(const std::vector<std::string>& paths, Report& report);

}  // namespace fabscope::triage
