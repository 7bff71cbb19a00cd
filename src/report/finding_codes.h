// Every finding code fabscope reports, as named constants: the rule tables that make
// the findings and the code that looks for them (attribution, the simulator's scoring,
// the HTML report, triage) name the same constant, so a code renamed here is renamed
// everywhere and a misspelt one does not compile. A code is stable once released (the
// JSON, JUnit and Prometheus outputs carry it); docs/findings.md and docs/triage.md
// explain each. Grouped like the tables that make them; a new rule adds its constant
// here, in its group's list below, and uses it in its table row.
#pragma once

#include <string_view>

namespace fabscope::code {

// --- sweep, run and rank (diag/rules/table.cpp, kSweepRules) -------------------------
inline constexpr std::string_view kSweepWrongResults = "sweep.wrong_results";
inline constexpr std::string_view kRankStraggler = "rank.straggler";
inline constexpr std::string_view kRunHang = "run.hang";
inline constexpr std::string_view kRunInterrupted = "run.interrupted";
inline constexpr std::string_view kLinkFlap = "link.flap";
inline constexpr std::string_view kSweepStall = "sweep.stall";
inline constexpr std::string_view kPerfDip = "perf.dip";
inline constexpr std::string_view kPerfPlateau = "perf.plateau";
inline constexpr std::string_view kNcclLinkWait = "nccl.link_wait";
inline constexpr std::string_view kNcclOpenSteps = "nccl.open_steps";
inline constexpr std::string_view kTcpIdleRestart = "tcp.idle_restart";

// --- p2p links of one message size (diag/rules/table.cpp, kP2pRules) ------------------
inline constexpr std::string_view kP2pSlowHost = "p2p.slow_host";
inline constexpr std::string_view kP2pSlowNic = "p2p.slow_nic";
inline constexpr std::string_view kP2pCongestedUplink = "p2p.congested_uplink";
inline constexpr std::string_view kP2pSlowLink = "p2p.slow_link";
inline constexpr std::string_view kP2pCongestedLink = "p2p.congested_link";

// --- interface, port and NIC counters (diag/rules/table.cpp, kCounterRules) -----------
inline constexpr std::string_view kCountersForeignTraffic = "counters.foreign_traffic";
// Also a triage signature's code (the counters of a gathered bundle).
inline constexpr std::string_view kCountersLinkErrors = "counters.link_errors";
inline constexpr std::string_view kCountersCongestionRose = "counters.congestion_rose";

// --- an --expect file's bars (diag/expectations.cpp) -----------------------------------
inline constexpr std::string_view kPerfBelowExpected = "perf.below_expected";
inline constexpr std::string_view kPerfNotMeasured = "perf.not_measured";

// --- one host's topology (topo/rules/table.cpp, kHostRules) ----------------------------
inline constexpr std::string_view kTopoGpuWithoutNearNic = "topo.gpu_without_near_nic";
inline constexpr std::string_view kTopoNicFar = "topo.nic_far";
inline constexpr std::string_view kTopoNicShared = "topo.nic_shared";
inline constexpr std::string_view kTopoGdrOff = "topo.gdr_off";
inline constexpr std::string_view kTopoPortDown = "topo.port_down";
inline constexpr std::string_view kTopoPortDegraded = "topo.port_degraded";
inline constexpr std::string_view kTopoPcieDegraded = "topo.pcie_degraded";
inline constexpr std::string_view kTopoPcieAcs = "topo.pcie_acs";
inline constexpr std::string_view kTopoIbZeroGuid = "topo.ib_zero_guid";
inline constexpr std::string_view kTopoRoceGidEmpty = "topo.roce_gid_empty";
inline constexpr std::string_view kTopoRoceGidSparse = "topo.roce_gid_sparse";
inline constexpr std::string_view kTopoRoceGidIndexMismatch = "topo.roce_gid_index_mismatch";
inline constexpr std::string_view kTopoRoceGidUnusable = "topo.roce_gid_unusable";
inline constexpr std::string_view kTopoNicRdmaDisabled = "topo.nic_rdma_disabled";
inline constexpr std::string_view kTopoP2pUnsupported = "topo.p2p_unsupported";
inline constexpr std::string_view kTopoNumaMismatch = "topo.numa_mismatch";
inline constexpr std::string_view kTopoNumaAffinity = "topo.numa_affinity";
inline constexpr std::string_view kTopoNvlinkMismatch = "topo.nvlink_mismatch";
inline constexpr std::string_view kTopoHcaFilter = "topo.hca_filter";

// --- hosts compared (topo/rules/table.cpp, kFleetRules) --------------------------------
inline constexpr std::string_view kTopoHostDiffers = "topo.host_differs";
inline constexpr std::string_view kTopoSubnetPrefixMismatch = "topo.subnet_prefix_mismatch";
inline constexpr std::string_view kTopoMtuMismatch = "topo.mtu_mismatch";

// --- two runs compared (report/compare.cpp, kCompareRules) -----------------------------
inline constexpr std::string_view kCompareSettingsDiffer = "compare.settings_differ";
inline constexpr std::string_view kCompareRegression = "compare.regression";
inline constexpr std::string_view kCompareImprovement = "compare.improvement";
inline constexpr std::string_view kCompareMissing = "compare.missing";

// --- a series of runs (report/history.cpp, kHistoryRules) ----------------------------
inline constexpr std::string_view kHistoryStepWorse = "history.step_worse";
inline constexpr std::string_view kHistoryStepBetter = "history.step_better";

// --- triage of logs and gathered files (triage/signatures.cpp, kSignatures) ------------
// NCCL's choice of transport, GPUDirect RDMA, NICs, and settings across ranks.
inline constexpr std::string_view kNcclNoIbDevice = "nccl.no_ib_device";
inline constexpr std::string_view kNcclSocketFallback = "nccl.socket_fallback";
inline constexpr std::string_view kNcclGdrOff = "nccl.gdr_off";
inline constexpr std::string_view kNcclGdrPartial = "nccl.gdr_partial";
inline constexpr std::string_view kNcclSharedNic = "nccl.shared_nic";
inline constexpr std::string_view kNcclVersionMismatch = "nccl.version_mismatch";
inline constexpr std::string_view kNcclSettingMismatch = "nccl.setting_mismatch";
inline constexpr std::string_view kNcclIbListMismatch = "nccl.ib_list_mismatch";
// NCCL WARN lines and a framework's NCCL errors.
inline constexpr std::string_view kNcclKernelSharedMem = "nccl.kernel_shared_mem";
inline constexpr std::string_view kNcclShmExhausted = "nccl.shm_exhausted";
inline constexpr std::string_view kNcclShmPermission = "nccl.shm_permission";
inline constexpr std::string_view kNcclSocketIfnameNoMatch = "nccl.socket_ifname_no_match";
inline constexpr std::string_view kNcclIbRetryExceeded = "nccl.ib_retry_exceeded";
inline constexpr std::string_view kNcclIbLocalProtection = "nccl.ib_local_protection";
inline constexpr std::string_view kNcclIbQpAccessError = "nccl.ib_qp_access_error";
inline constexpr std::string_view kNcclOfiRegisterFailed = "nccl.ofi_register_failed";
inline constexpr std::string_view kNcclIbCompletionError = "nccl.ib_completion_error";
inline constexpr std::string_view kNcclIbvFailed = "nccl.ibv_failed";
inline constexpr std::string_view kNcclSystemError = "nccl.system_error";
inline constexpr std::string_view kNcclTopoFileInvalid = "nccl.topo_file_invalid";
inline constexpr std::string_view kNcclPciSysfsMissing = "nccl.pci_sysfs_missing";
inline constexpr std::string_view kNcclMessageTruncated = "nccl.message_truncated";
inline constexpr std::string_view kNcclCollectiveMismatch = "nccl.collective_mismatch";
inline constexpr std::string_view kNcclCudaOom = "nccl.cuda_oom";
inline constexpr std::string_view kNcclCudaDriverTooOld = "nccl.cuda_driver_too_old";
inline constexpr std::string_view kNcclInvalidDevice = "nccl.invalid_device";
inline constexpr std::string_view kNcclDuplicateGpu = "nccl.duplicate_gpu";
inline constexpr std::string_view kNcclHostIdentityCollision = "nccl.host_identity_collision";
inline constexpr std::string_view kNvlinkNvlsExhausted = "nvlink.nvls_exhausted";
inline constexpr std::string_view kUcxPortSpeedUnknown = "ucx.port_speed_unknown";
inline constexpr std::string_view kUcxTransportOpenFailed = "ucx.transport_open_failed";
inline constexpr std::string_view kNcclTopologyFallback = "nccl.topology_fallback";
inline constexpr std::string_view kNcclKnownBug = "nccl.known_bug";
inline constexpr std::string_view kNcclIbFabricEvent = "nccl.ib_fabric_event";
inline constexpr std::string_view kNcclRasProcessLost = "nccl.ras_process_lost";
inline constexpr std::string_view kNcclRasRanksBehind = "nccl.ras_ranks_behind";
inline constexpr std::string_view kNcclNetPluginLoadFailed = "nccl.net_plugin_load_failed";
inline constexpr std::string_view kNcclInvalidUsage = "nccl.invalid_usage";
inline constexpr std::string_view kNcclCudaKernelFault = "nccl.cuda_kernel_fault";
inline constexpr std::string_view kNcclCudaEcc = "nccl.cuda_ecc";
inline constexpr std::string_view kNcclNoCudaDevice = "nccl.no_cuda_device";
inline constexpr std::string_view kNcclGpuUnavailable = "nccl.gpu_unavailable";
inline constexpr std::string_view kNcclNoKernelImage = "nccl.no_kernel_image";
// CUDA's errors that point at the machine, from NCCL's warnings or any program's line.
inline constexpr std::string_view kNcclCudaTooManyPeers = "nccl.cuda_too_many_peers";
inline constexpr std::string_view kNcclCudaNvlinkError = "nccl.cuda_nvlink_error";
inline constexpr std::string_view kNcclCudaLaunchTimeout = "nccl.cuda_launch_timeout";
inline constexpr std::string_view kNcclCudaUnlicensed = "nccl.cuda_unlicensed";
inline constexpr std::string_view kNcclCudaMps = "nccl.cuda_mps";
inline constexpr std::string_view kNcclIbDeviceUnopened = "nccl.ib_device_unopened";
inline constexpr std::string_view kNcclCommIdUnresolved = "nccl.comm_id_unresolved";
inline constexpr std::string_view kNvlinkImexUnavailable = "nvlink.imex_unavailable";
inline constexpr std::string_view kNvlinkFabricRegistrationFailed = "nvlink.fabric_registration_failed";
inline constexpr std::string_view kNvlinkCudaMulticastUnsupported = "nvlink.cuda_multicast_unsupported";
inline constexpr std::string_view kFrameworkNcclLibraryMissing = "framework.nccl_library_missing";
inline constexpr std::string_view kNcclIbIncompatibleDevices = "nccl.ib_incompatible_devices";
inline constexpr std::string_view kNcclIbPortError = "nccl.ib_port_error";
inline constexpr std::string_view kNcclIbFatalEvent = "nccl.ib_fatal_event";
inline constexpr std::string_view kNcclIbMemlock = "nccl.ib_memlock";
inline constexpr std::string_view kNcclP2pDisabledNvlink = "nccl.p2p_disabled_nvlink";
inline constexpr std::string_view kNcclPeerLost = "nccl.peer_lost";
inline constexpr std::string_view kNcclTimeout = "nccl.timeout";
inline constexpr std::string_view kNcclSocketAccept = "nccl.socket_accept";
inline constexpr std::string_view kNcclSocketConnect = "nccl.socket_connect";
inline constexpr std::string_view kNcclSocketIfacesUnroutable = "nccl.socket_ifaces_unroutable";
inline constexpr std::string_view kNcclWarn = "nccl.warn";
// nccl-tests tables.
inline constexpr std::string_view kNcclTestsWrong = "nccl_tests.wrong";
inline constexpr std::string_view kNcclTestsDip = "nccl_tests.dip";
inline constexpr std::string_view kNcclTestsSingleRank = "nccl_tests.single_rank";
inline constexpr std::string_view kNcclTestsBelowNics = "nccl_tests.below_nics";
// The kernel's log.
inline constexpr std::string_view kKernelGpuXid = "kernel.gpu_xid";
inline constexpr std::string_view kKernelGpuResetRequired = "kernel.gpu_reset_required";
inline constexpr std::string_view kKernelGpuSlowdown = "kernel.gpu_slowdown";
inline constexpr std::string_view kKernelPcieAer = "kernel.pcie_aer";
inline constexpr std::string_view kKernelLinkFlap = "kernel.link_flap";
inline constexpr std::string_view kKernelMlx5Cmd = "kernel.mlx5_cmd";
inline constexpr std::string_view kKernelHcaFirmware = "kernel.hca_firmware";
inline constexpr std::string_view kKernelOomKill = "kernel.oom_kill";
inline constexpr std::string_view kKernelHostMemoryError = "kernel.host_memory_error";
inline constexpr std::string_view kKernelNicFirmwareMissing = "kernel.nic_firmware_missing";
inline constexpr std::string_view kContainerToolkitDenied = "container.toolkit_denied";
inline constexpr std::string_view kContainerToolkitMissing = "container.toolkit_missing";
inline constexpr std::string_view kContainerImageNoShell = "container.image_no_shell";
inline constexpr std::string_view kContainerImageStorageFull = "container.image_storage_full";
inline constexpr std::string_view kNcclCumemHostNeedsP2p = "nccl.cumem_host_needs_p2p";
inline constexpr std::string_view kKernelModuleBuildFailed = "kernel.module_build_failed";
inline constexpr std::string_view kKernelModuleNotFound = "kernel.module_not_found";
inline constexpr std::string_view kKernelNicModule = "kernel.nic_module";
inline constexpr std::string_view kKernelNicHealth = "kernel.nic_health";
inline constexpr std::string_view kKernelRdmaAbiMismatch = "kernel.rdma_abi_mismatch";
inline constexpr std::string_view kKernelDriverMismatch = "kernel.driver_mismatch";
inline constexpr std::string_view kKernelGpudirectPinFailed = "kernel.gpudirect_pin_failed";
inline constexpr std::string_view kContainerGpuAccessLost = "container.gpu_access_lost";
inline constexpr std::string_view kContainerDriverLibsMissing = "container.driver_libs_missing";
inline constexpr std::string_view kContainerRdmaNetnsExclusive = "container.rdma_netns_exclusive";
inline constexpr std::string_view kContainerDriverFilesInImage = "container.driver_files_in_image";
inline constexpr std::string_view kDcgmDiagFailed = "dcgm.diag_failed";
inline constexpr std::string_view kFabricLinkDegraded = "fabric.link_degraded";
inline constexpr std::string_view kFabricLinkNotActive = "fabric.link_not_active";
inline constexpr std::string_view kTopoRdmaProviderMissing = "topo.rdma_provider_missing";
inline constexpr std::string_view kLimitsMemlockLow = "limits.memlock_low";
inline constexpr std::string_view kLimitsPtraceDenied = "limits.ptrace_denied";
inline constexpr std::string_view kNcclRoceGidLinkLocal = "nccl.roce_gid_link_local";
inline constexpr std::string_view kNcclOfiUnreachable = "nccl.ofi_unreachable";
inline constexpr std::string_view kLauncherMungeUnavailable = "launcher.munge_unavailable";
inline constexpr std::string_view kLauncherMungeRejected = "launcher.munge_rejected";
inline constexpr std::string_view kLauncherSlurmVersionMismatch = "launcher.slurm_version_mismatch";
inline constexpr std::string_view kLauncherClockSkew = "launcher.clock_skew";
inline constexpr std::string_view kLauncherSlurmGresConfig = "launcher.slurm_gres_config";
inline constexpr std::string_view kKernelRdmaRegistrationCapped = "kernel.rdma_registration_capped";
inline constexpr std::string_view kLauncherVisibleDevicesSplit = "launcher.visible_devices_split";
inline constexpr std::string_view kContainerNicDriverStorageModules = "container.nic_driver_storage_modules";
inline constexpr std::string_view kMpiNotCudaAware = "mpi.not_cuda_aware";
inline constexpr std::string_view kMpiUccShmFailed = "mpi.ucc_shm_failed";
inline constexpr std::string_view kMpiPmixClientFailed = "mpi.pmix_client_failed";
inline constexpr std::string_view kMpiDaemonStartFailed = "mpi.daemon_start_failed";
inline constexpr std::string_view kKernelPciBarUnassigned = "kernel.pci_bar_unassigned";
inline constexpr std::string_view kMpiRuntimeMismatch = "mpi.runtime_mismatch";
inline constexpr std::string_view kMpiPmlAddProcsFailed = "mpi.pml_add_procs_failed";
inline constexpr std::string_view kFabricDefaultSubnetPrefix = "fabric.default_subnet_prefix";
inline constexpr std::string_view kFabricCxiAddressMismatch = "fabric.cxi_address_mismatch";
inline constexpr std::string_view kFrameworkNcclLibraryMismatch = "framework.nccl_library_mismatch";
inline constexpr std::string_view kMpiOobUnreachable = "mpi.oob_unreachable";
inline constexpr std::string_view kMpiTcpWrongPeer = "mpi.tcp_wrong_peer";
inline constexpr std::string_view kFrameworkCustomAllreduceIpc = "framework.custom_allreduce_ipc";
inline constexpr std::string_view kHealthcheckFailed = "healthcheck.failed";
inline constexpr std::string_view kLinkMlxlinkIssue = "link.mlxlink_issue";
inline constexpr std::string_view kContainerRuntimeHookFailed = "container.runtime_hook_failed";
inline constexpr std::string_view kContainerGpuDriverInUse = "container.gpu_driver_in_use";
inline constexpr std::string_view kNcclCudaError = "nccl.cuda_error";
inline constexpr std::string_view kKernelIommuFault = "kernel.iommu_fault";
inline constexpr std::string_view kKernelIommuTranslated = "kernel.iommu_translated";
inline constexpr std::string_view kRendezvousStoreUnreachable = "rendezvous.store_unreachable";
inline constexpr std::string_view kRendezvousPortInUse = "rendezvous.port_in_use";
inline constexpr std::string_view kRendezvousMasterUnresolved = "rendezvous.master_unresolved";
inline constexpr std::string_view kRendezvousClientsMissing = "rendezvous.clients_missing";
inline constexpr std::string_view kKernelGpuDriverNotLoaded = "kernel.gpu_driver_not_loaded";
inline constexpr std::string_view kKernelGpuInitFailed = "kernel.gpu_init_failed";
// NVIDIA Fabric Manager (NVSwitch systems).
inline constexpr std::string_view kNvlinkFmNoNvswitch = "nvlink.fm_no_nvswitch";
inline constexpr std::string_view kNvlinkFmVersionMismatch = "nvlink.fm_version_mismatch";
inline constexpr std::string_view kNvlinkFmFailed = "nvlink.fm_failed";
inline constexpr std::string_view kNvlinkLinkInactive = "nvlink.link_inactive";
inline constexpr std::string_view kNvlinkNvswitchError = "nvlink.nvswitch_error";
// Port and NIC counters of a bundle (and kCountersLinkErrors above).
inline constexpr std::string_view kCountersSaturated = "counters.saturated";
inline constexpr std::string_view kCountersCongestion = "counters.congestion";
inline constexpr std::string_view kCountersRoceNoFlowControl = "counters.roce_no_flow_control";
inline constexpr std::string_view kCountersAllowanceExceeded = "counters.allowance_exceeded";

// --- areas: a code's prefix up to and including its dot --------------------------------
inline constexpr std::string_view kAreaP2p = "p2p.";
inline constexpr std::string_view kAreaRank = "rank.";
inline constexpr std::string_view kAreaCounters = "counters.";
inline constexpr std::string_view kAreaTopo = "topo.";

// Whether `code` is in `area` ("p2p.slow_link" is in kAreaP2p).
constexpr bool in_area(std::string_view code, std::string_view area) { return code.starts_with(area); }

// Every constant above by the table that uses it, each in the order of its table: the
// unit test holds each table to its list (test/unit/finding_codes_test.cpp).
inline constexpr std::string_view kSweepCodes[] = {
    kSweepWrongResults, kRankStraggler, kRunHang,      kRunInterrupted, kLinkFlap,       kSweepStall,
    kPerfDip,           kPerfPlateau,   kNcclLinkWait, kNcclOpenSteps,  kTcpIdleRestart,
};
inline constexpr std::string_view kP2pCodes[] = {
    kP2pSlowHost, kP2pSlowNic, kP2pCongestedUplink, kP2pSlowLink, kP2pCongestedLink,
};
inline constexpr std::string_view kCounterCodes[] = {
    kCountersForeignTraffic,
    kCountersLinkErrors,
    kCountersCongestionRose,
};
inline constexpr std::string_view kExpectationCodes[] = {kPerfBelowExpected, kPerfNotMeasured};
inline constexpr std::string_view kTopoHostCodes[] = {
    kTopoGpuWithoutNearNic, kTopoNicFar,         kTopoNicShared,    kTopoGdrOff,
    kTopoPortDown,          kTopoPortDegraded,   kTopoPcieDegraded, kTopoNumaMismatch,
    kTopoNumaAffinity,      kTopoNvlinkMismatch, kTopoHcaFilter,
};
inline constexpr std::string_view kTopoFleetCodes[] = {kTopoHostDiffers, kTopoSubnetPrefixMismatch, kTopoMtuMismatch};
inline constexpr std::string_view kCompareCodes[] = {
    kCompareSettingsDiffer,
    kCompareRegression,
    kCompareImprovement,
    kCompareMissing,
};
inline constexpr std::string_view kHistoryCodes[] = {kHistoryStepWorse, kHistoryStepBetter};
inline constexpr std::string_view kTriageCodes[] = {
    kNcclNoIbDevice,
    kNcclSocketFallback,
    kNcclSocketIfacesUnroutable,
    kNcclGdrOff,
    kNcclGdrPartial,
    kNcclSharedNic,
    kNcclVersionMismatch,
    kNcclSettingMismatch,
    kNcclIbListMismatch,
    kNcclKernelSharedMem,
    kNcclShmExhausted,
    kNcclShmPermission,
    kNcclSocketIfnameNoMatch,
    kNcclIbRetryExceeded,
    kNcclIbLocalProtection,
    kNcclIbQpAccessError,
    kNcclOfiRegisterFailed,
    kNcclIbCompletionError,
    kNcclIbvFailed,
    kNcclSystemError,
    kNcclTopoFileInvalid,
    kNcclPciSysfsMissing,
    kNcclMessageTruncated,
    kNcclCollectiveMismatch,
    kNcclCudaOom,
    kNcclCudaDriverTooOld,
    kNcclInvalidDevice,
    kNcclDuplicateGpu,
    kNcclHostIdentityCollision,
    kNvlinkNvlsExhausted,
    kUcxPortSpeedUnknown,
    kUcxTransportOpenFailed,
    kNcclTopologyFallback,
    kNcclKnownBug,
    kNcclIbFabricEvent,
    kNcclRasProcessLost,
    kNcclRasRanksBehind,
    kNcclNetPluginLoadFailed,
    kNcclInvalidUsage,
    kNcclCudaKernelFault,
    kNcclCudaEcc,
    kNcclNoCudaDevice,
    kNcclGpuUnavailable,
    kNcclCudaTooManyPeers,
    kNcclCudaNvlinkError,
    kNcclCudaLaunchTimeout,
    kNcclCudaUnlicensed,
    kNcclCudaMps,
    kNcclIbDeviceUnopened,
    kNcclCommIdUnresolved,
    kNvlinkImexUnavailable,
    kNvlinkFabricRegistrationFailed,
    kNvlinkCudaMulticastUnsupported,
    kFrameworkNcclLibraryMissing,
    kNcclNoKernelImage,
    kNcclIbIncompatibleDevices,
    kNcclIbPortError,
    kNcclIbFatalEvent,
    kNcclIbMemlock,
    kNcclP2pDisabledNvlink,
    kNcclPeerLost,
    kNcclTimeout,
    kNcclSocketAccept,
    kNcclSocketConnect,
    kNcclWarn,
    kNcclTestsWrong,
    kNcclTestsDip,
    kNcclTestsSingleRank,
    kNcclTestsBelowNics,
    kKernelGpuXid,
    kKernelGpuResetRequired,
    kKernelGpuSlowdown,
    kKernelPcieAer,
    kKernelLinkFlap,
    kKernelMlx5Cmd,
    kKernelHcaFirmware,
    kKernelOomKill,
    kKernelHostMemoryError,
    kKernelNicFirmwareMissing,
    kContainerToolkitDenied,
    kContainerToolkitMissing,
    kContainerImageNoShell,
    kContainerImageStorageFull,
    kNcclCumemHostNeedsP2p,
    kKernelModuleBuildFailed,
    kKernelModuleNotFound,
    kKernelNicModule,
    kKernelNicHealth,
    kKernelDriverMismatch,
    kKernelRdmaAbiMismatch,
    kKernelGpudirectPinFailed,
    kContainerGpuAccessLost,
    kContainerDriverLibsMissing,
    kContainerRdmaNetnsExclusive,
    kContainerDriverFilesInImage,
    kDcgmDiagFailed,
    kFabricLinkDegraded,
    kFabricLinkNotActive,
    kTopoRdmaProviderMissing,
    kLimitsMemlockLow,
    kLimitsPtraceDenied,
    kNcclRoceGidLinkLocal,
    kNcclOfiUnreachable,
    kLauncherMungeUnavailable,
    kLauncherMungeRejected,
    kLauncherSlurmVersionMismatch,
    kLauncherClockSkew,
    kLauncherSlurmGresConfig,
    kKernelRdmaRegistrationCapped,
    kLauncherVisibleDevicesSplit,
    kContainerNicDriverStorageModules,
    kMpiNotCudaAware,
    kMpiUccShmFailed,
    kMpiPmixClientFailed,
    kMpiDaemonStartFailed,
    kKernelPciBarUnassigned,
    kMpiRuntimeMismatch,
    kMpiPmlAddProcsFailed,
    kFabricDefaultSubnetPrefix,
    kFabricCxiAddressMismatch,
    kFrameworkNcclLibraryMismatch,
    kMpiOobUnreachable,
    kMpiTcpWrongPeer,
    kFrameworkCustomAllreduceIpc,
    kHealthcheckFailed,
    kLinkMlxlinkIssue,
    kContainerRuntimeHookFailed,
    kContainerGpuDriverInUse,
    kNcclCudaError,
    kKernelIommuFault,
    kKernelIommuTranslated,
    kRendezvousStoreUnreachable,
    kRendezvousPortInUse,
    kRendezvousMasterUnresolved,
    kRendezvousClientsMissing,
    kKernelGpuDriverNotLoaded,
    kKernelGpuInitFailed,
    kNvlinkFmNoNvswitch,
    kNvlinkFmVersionMismatch,
    kNvlinkFmFailed,
    kNvlinkLinkInactive,
    kNvlinkNvswitchError,
    kTopoPcieDegraded,
    kTopoPcieAcs,
    kTopoIbZeroGuid,
    kTopoRoceGidEmpty,
    kTopoRoceGidSparse,
    kTopoRoceGidIndexMismatch,
    kTopoRoceGidUnusable,
    kTopoNicRdmaDisabled,
    kTopoP2pUnsupported,
    kCountersLinkErrors,
    kCountersSaturated,
    kCountersCongestion,
    kCountersAllowanceExceeded,
    kCountersRoceNoFlowControl,
    kNcclLinkWait,
    kRunHang,
};

}  // namespace fabscope::code
