// Triage: files taken by content (real fixtures and written ones, test/fixtures/triage:
// written_* files are written for these tests, see SOURCES.md), every signature on a
// fixture with its evidence lines, launcher prefixes, inconclusive where the files
// cannot tell, binary and truncated files.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <span>
#include <sstream>

#include "core/atomic_file.h"
#include "core/text.h"
#include "fuzz/paste_shapes.h"
#include "topo/readers.h"
#include "triage/triage.h"

namespace fabscope::triage {
namespace {

const std::string kDir = FABSCOPE_FIXTURES;

std::string text_of(const std::string& rel) {
  auto t = read_file(kDir + "/" + rel);
  EXPECT_TRUE(t.ok()) << rel;
  return t.ok() ? *t : std::string();
}

// Triage of fixture files, as `fabscope triage` does it.
Report triage_of(const std::vector<std::string>& rels) {
  std::vector<std::string> paths;
  for (const std::string& r : rels) paths.push_back(kDir + "/" + r);
  Report r;
  EXPECT_TRUE(triage_paths(paths, r).ok());
  decide_verdict(r);
  return r;
}

// Triage of texts given here: (file name, text) pairs.
Report judged(const std::vector<std::pair<std::string, std::string>>& files) {
  Facts facts;
  for (const auto& [name, text] : files) gather(name, text, facts);
  Report r;
  judge(std::move(facts), r);
  decide_verdict(r);
  return r;
}

const Finding* find(const Report& r, std::string_view code) {
  for (const Finding& f : r.findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

std::vector<std::string> codes(const Report& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) out.push_back(f.code);
  return out;
}

// The quoted lines of a finding: "FILE-NAME:LINE".
std::vector<std::string> quoted(const Finding& f) {
  std::vector<std::string> out;
  for (const auto& q : f.evidence.at("lines")) {
    const std::string file = q.at("file").get<std::string>();
    out.push_back(file.substr(file.rfind('/') + 1) + ":" + std::to_string(q.at("line").get<int>()));
  }
  return out;
}

TEST(TriageRecognise, RealFixturesAreTakenByContent) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"nccl-logs/slurmv4-tpgds-aihub0003_H100x8-2node-16rank-RoCE_NCCL-2.29.3_IB_HCA-prefix-match-pulls-mlx5_10.log",
       {"nccl-log"}},
      {"nccl-tests/nccl-tests-309_Dell-XE9680-H100x8-8CX7-IB400_2node_all_reduce_perf.txt", {"nccl-tests"}},
      {"nvidia-smi-topo/sglang-24966_H20x8-8NIC-1to1-PIX_topo-m.txt", {"nvidia-smi-topo"}},
      {"rdma/slurmv4-tpgds-aihub0001_H100-CX7-RoCE_show_gids_ibv_devinfo-mlx5_0.txt", {"rdma-info"}},
      {"ib-counters/osc-EDR-switch-ib-i4l1s01_perfquery-x_port1-xmitdiscards-xmitwait-linkdowned.out", {"counters"}},
      {"ib-counters/ethq-issue8_ConnectX-4Lx-mlx5_core-fw14.23_ethtool-S_leading-whitespace-stripped.txt",
       {"counters"}},
      {"topo-xml/azure-NDv5-H100x8-8NDR-topo.xml", {"nccl-xml"}},
      {"hwloc-xml/juwels-booster-jwb0004_A100x4-CX6-HDRx4-EPYC7402-NPS4_hwloc2.2.xml", {"hwloc-xml"}},
      {"triage/written_dmesg-xid79-aer-linkflap-oom.txt", {"kernel-log"}},
      {"triage/written_binary-core-excerpt.bin", {}},
      {"triage/written_ibstat_gpu-b01-8x-NDR-mlx5_5-at-200G.txt", {"rdma-info"}},
      {"triage/written_ibqueryerrors_fabric-symbol-errors-pegged.txt", {"counters"}},
      {"triage/written_sysfs-counters_grep-H_mlx5_1-port1.txt", {"counters"}},
      {"triage/written_all_reduce_perf_no-MPI-build-under-mpirun-2-processes.txt", {"nccl-tests"}},
      {"ib-counters/"
       "chester-gillon_ConnectX2-mlx4_sysfs-counters-deltas-before-after-pckt_drop-fault-injection_notes.txt",
       {"counters"}},
      {"triage/written_pytorch-watchdog-timeout_rank3-of-4.log", {"framework-log"}},
      {"triage/written_nccl-warn-init-failures_four-hosts.log", {"nccl-log"}},
  };
  for (const auto& [file, kinds] : cases) EXPECT_EQ(recognise(text_of(file)), kinds) << file;
}

TEST(TriageRecognise, AnyFileNameAndNothingRecognisedIsSaid) {
  Facts facts;
  gather("notes.txt", "the job was slow yesterday\nplease look\n", facts);
  ASSERT_EQ(facts.files.size(), 1u);
  EXPECT_TRUE(facts.files[0].kinds.empty());
  EXPECT_NE(facts.files[0].note.find("not recognised"), std::string::npos);
  EXPECT_EQ(facts.files[0].lines, 2);
  Report r;
  judge(std::move(facts), r);
  decide_verdict(r);
  EXPECT_EQ(name(r.verdict.result), "inconclusive");
}

TEST(TriageRecognise, BinaryAndTruncatedFilesGetANoteNotACrash) {
  Report r = triage_of({"triage/written_binary-core-excerpt.bin", "triage/written_all_reduce_perf_truncated.txt"});
  ASSERT_TRUE(r.triage);
  ASSERT_EQ(r.triage->files.size(), 2u);
  EXPECT_NE(r.triage->files[0].note.find("binary"), std::string::npos);
  EXPECT_NE(r.triage->files[1].note.find("line 10"), std::string::npos) << r.triage->files[1].note;
  EXPECT_EQ(name(r.verdict.result), "inconclusive");
}

TEST(TriageSignatures, NoIbDeviceInAContainerBehindMpirunPrefixes) {
  // Alone, nothing says RDMA was expected (issue 37): said, not a fault.
  Report alone = triage_of({"triage/written_container-no-ib-device_mpirun-prefix.log"});
  const Finding* said = find(alone, "nccl.no_ib_device");
  ASSERT_NE(said, nullptr) << testing::PrintToString(codes(alone));
  EXPECT_EQ(said->severity, Severity::kInfo);
  EXPECT_FALSE(said->evidence.at("ib_expected").get<bool>());
  EXPECT_NE(name(alone.verdict.result), "fail");
  // Beside the cluster's RDMA devices (ibv_devinfo of a node), the same lines fail the run.
  Report r = triage_of({"triage/written_container-no-ib-device_mpirun-prefix.log",
                        "rdma/slurmv4-tpgds-aihub0001_H100-CX7-RoCE_show_gids_ibv_devinfo-mlx5_0.txt"});
  const Finding* f = find(r, "nccl.no_ib_device");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->hosts, std::vector<std::string>{"gpu-a01"});  // the "[1,0]<stdout>:" prefix is not the host
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"written_container-no-ib-device_mpirun-prefix.log:4",
                                                  "written_container-no-ib-device_mpirun-prefix.log:5"}));
  EXPECT_EQ(r.triage->answer_code, "nccl.no_ib_device");
  EXPECT_EQ(name(r.verdict.result), "fail");
}

TEST(TriageSignatures, SocketFallbackWhereTheTopologyHasRdmaNics) {
  Report r = judged(
      {{"a.log",
        "h1:10:10 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
        "h1:10:10 [0] NCCL INFO Using network Socket\n"},
       {"ibdev2netdev.txt", text_of("rdma/slurmv4-tpgds-aihub0001_H100-CX7-RoCE_show_gids_ibv_devinfo-mlx5_0.txt")}});
  const Finding* f = find(r, "nccl.socket_fallback");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(f->evidence.at("rdma_devices_known").get<bool>());
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"a.log:1", "a.log:2"}));
}

TEST(TriageSignatures, GpuDirectOnSomeChannelsOfAGpuAndNotOthersBehindSrunPrefixes) {
  Report r = triage_of({"triage/written_gdr-partial_srun-prefix.log"});
  const Finding* f = find(r, "nccl.gdr_partial");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->subject, "GPU 0 on node07");
  EXPECT_EQ(f->evidence.at("gdr_nics"), nlohmann::ordered_json::array({0}));
  EXPECT_EQ(f->evidence.at("staged_nics"), nlohmann::ordered_json::array({1}));
  EXPECT_EQ(quoted(*f).front(), "written_gdr-partial_srun-prefix.log:15");
  // Only that GPU: the others use GPUDirect on every channel; every rank's log is here.
  const auto all = codes(r);
  EXPECT_EQ(std::count(all.begin(), all.end(), "nccl.gdr_partial"), 1);
  EXPECT_TRUE(r.verdict.missing.empty()) << testing::PrintToString(r.verdict.missing);
}

// One host's NET/IB channels all without GPUDirect RDMA while another host's use it: that
// host cannot (its peer-memory module); a host that only sends without it while receiving
// with it (NCCL_NET_GDR_READ=0) is not flagged.
TEST(TriageSignatures, GpuDirectOffOnOneHostOnlyOn) {
  Report r = judged({{"a.log",
                      "n1:10:10 [0] NCCL INFO Channel 00/0 : 0[0] -> 2[0] [send] via NET/IB/0/GDRDMA\n"
                      "n1:10:10 [0] NCCL INFO Channel 00/0 : 2[0] -> 0[0] [receive] via NET/IB/0/GDRDMA\n"
                      "n2:11:11 [0] NCCL INFO Channel 00/0 : 0[0] -> 2[0] [receive] via NET/IB/0\n"
                      "n2:11:11 [0] NCCL INFO Channel 00/0 : 2[0] -> 0[0] [send] via NET/IB/0\n"
                      "n3:12:12 [0] NCCL INFO Channel 00/0 : 4[0] -> 0[0] [send] via NET/IB/0\n"
                      "n3:12:12 [0] NCCL INFO Channel 00/0 : 0[0] -> 4[0] [receive] via NET/IB/0/GDRDMA\n"}});
  const Finding* f = find(r, "nccl.gdr_off");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->subject, "GPUDirect RDMA on n2");
  EXPECT_EQ(f->hosts, std::vector<std::string>{"n2"});
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"a.log:3", "a.log:4"}));
  const auto all = codes(r);
  EXPECT_EQ(std::count(all.begin(), all.end(), "nccl.gdr_off"), 1);
}

// IB completion errors by status: 4 (local protection: ACS or the IOMMU under GPUDirect
// RDMA) in NCCL's older and newer wordings, and any other status as itself.
TEST(TriageSignatures, IbCompletionStatuses) {
  Report r = judged({{"a.log",
                      "h1:5:9 [2] transport/net_ib.cc:1500 NCCL WARN NET/IB : Got completion from peer "
                      "10.1.1.2<41234> with error 4, opcode 1, len 0, vendor err 81 (Send)\n"
                      "h2:6:8 [1] transport/net_ib.cc:1700 NCCL WARN NET/IB: Got completion from peer 10.1.1.1<5122> "
                      "with status=4 opcode=0 len=524288 vendor err 81 (Recv) localGid fe80::1 remoteGids fe80::2\n"}});
  const Finding* f = find(r, "nccl.ib_local_protection");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"a.log:1", "a.log:2"}));
  Report other = judged({{"b.log",
                          "h1:5:9 [2] transport/net_ib.cc:1500 NCCL WARN NET/IB : Got completion from peer "
                          "10.1.1.2<41234> with status=10 opcode=1 len=0 vendor err 136 (Send)\n"}});
  ASSERT_NE(find(other, "nccl.ib_completion_error"), nullptr) << testing::PrintToString(codes(other));
  EXPECT_EQ(find(other, "nccl.ib_local_protection"), nullptr);
  Report retry = judged({{"c.log",
                          "h1:5:9 [2] NCCL WARN NET/IB : Got completion from peer 10.1.1.2<41234> with error 12, "
                          "opcode 0, len 0, vendor err 129 (Send)\n"}});
  EXPECT_NE(find(retry, "nccl.ib_retry_exceeded"), nullptr) << testing::PrintToString(codes(retry));
  EXPECT_EQ(find(retry, "nccl.ib_completion_error"), nullptr);
}

TEST(TriageSignatures, GpuDirectOffOnEveryChannel) {
  Report r = judged({{"a.log",
                      "h1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
                      "h1:10:10 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n"
                      "h1:10:10 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/IB/0\n"}});
  ASSERT_NE(find(r, "nccl.gdr_off"), nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(find(r, "nccl.gdr_off")->evidence.at("channels"), 2);
}

TEST(TriageSignatures, SeveralGpusOfAHostOnOneNicWhileItHasOthers) {
  Report r = judged(
      {{"a.log",
        "h1:10:10 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB\n"
        "h1:10:10 [0] NCCL INFO Channel 00/0 : 0[0] -> 4[0] [send] via NET/IB/0/GDRDMA\n"
        "h1:11:11 [1] NCCL INFO Channel 00/0 : 1[1] -> 5[1] [send] via NET/IB/0/GDRDMA\n"
        "h1:12:12 [2] NCCL INFO Channel 00/0 : 2[2] -> 6[2] [send] via NET/IB/2/GDRDMA\n"
        "h1:13:13 [3] NCCL INFO Channel 00/0 : 3[3] -> 7[3] [send] via NET/IB/3/GDRDMA\n"}});
  const Finding* f = find(r, "nccl.shared_nic");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->subject, "NET/IB/0 on h1");
  EXPECT_EQ(f->evidence.at("gpus"), nlohmann::ordered_json::array({0, 1}));
}

TEST(TriageSignatures, VersionsSettingsAndNicListsThatDifferAcrossRealLogs) {
  Report r = triage_of(
      {"nccl-logs/slurmv4-tpgds-aihub0003_H100x8-2node-16rank-RoCE_NCCL-2.29.3_IB_HCA-prefix-match-pulls-mlx5_10.log",
       "nccl-logs/slurmv4-tpgds-aihub0008_H100x8-2node-16rank-RoCE_NCCL-2.27.5_8rail-nonidentity-HCA-list.log"});
  const Finding* v = find(r, "nccl.version_mismatch");
  ASSERT_NE(v, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(v->message.find("2.27.5+cuda12.9"), std::string::npos);
  EXPECT_NE(v->message.find("2.29.3+cuda13.1"), std::string::npos);
  EXPECT_EQ(r.triage->answer_code, "nccl.version_mismatch");  // the error, before the warnings
  ASSERT_NE(find(r, "nccl.ib_list_mismatch"), nullptr);
  const Finding* s = find(r, "nccl.setting_mismatch");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->subject, "NCCL_SOCKET_IFNAME");
  // topo's analysis of what the logs describe: the prefix match that pulls mlx5_10 in.
  EXPECT_NE(find(r, "topo.hca_filter"), nullptr);
}

TEST(TriageSignatures, NcclWarningsWithTheirMeaningAndTheFirstFailingRank) {
  Report r = triage_of({"triage/written_nccl-warn-peer-lost.log"});
  const Finding* retry = find(r, "nccl.ib_retry_exceeded");
  ASSERT_NE(retry, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(retry->subject, "rank 1 on trn-13 (pid 6601)");
  EXPECT_EQ(quoted(*retry), std::vector<std::string>{"written_nccl-warn-peer-lost.log:7"});
  const Finding* lost = find(r, "nccl.peer_lost");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->subject, "rank 0 on trn-12 (pid 5501)");
  ASSERT_NE(find(r, "nccl.ibv_failed"), nullptr);
  EXPECT_EQ(name(r.verdict.result), "fail");
}

// Failures at start-up, one per host, and PyTorch's NCCL errors: each WARN pattern's
// meaning, the INFO line NCCL prints before its kernels fail to launch, the first rank.
TEST(TriageSignatures, StartUpFailuresAndFrameworkErrors) {
  Report r = triage_of({"triage/written_nccl-warn-init-failures_four-hosts.log",
                        "triage/written_pytorch-watchdog-timeout_rank3-of-4.log"});
  const std::vector<std::pair<std::string, std::string>> want = {
      {"nccl.kernel_shared_mem", "node21 pid 31001"},
      {"nccl.shm_exhausted", "node22 pid 42002"},
      {"nccl.socket_accept", "node23 pid 53003"},
      {"nccl.socket_connect", "node24 pid 64004"},
      {"nccl.system_error", "node24 pid 64004"},
      {"nccl.timeout", "rank 3"},
      {"nccl.peer_lost", "rank 1"},
  };
  for (const auto& [code, subject] : want) {
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << code << " in " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->subject, subject) << code;
    EXPECT_EQ(f->severity, Severity::kError) << code;
  }
  const Finding* smem = find(r, "nccl.kernel_shared_mem");
  EXPECT_NE(smem->message.find("2.26.2"), std::string::npos) << smem->message;
  EXPECT_EQ(quoted(*smem), std::vector<std::string>{"written_nccl-warn-init-failures_four-hosts.log:3"});
  EXPECT_EQ(find(r, "nccl.timeout")->evidence.at("first_rank"), 3);
  EXPECT_EQ(quoted(*find(r, "nccl.timeout")),
            (std::vector<std::string>{"written_pytorch-watchdog-timeout_rank3-of-4.log:1",
                                      "written_pytorch-watchdog-timeout_rank3-of-4.log:2",
                                      "written_pytorch-watchdog-timeout_rank3-of-4.log:9"}));
  EXPECT_EQ(quoted(*find(r, "nccl.shm_exhausted")).size(), 2u);
  // The one WARN no pattern explains: "Cuda failure 1 'invalid argument'".
  const Finding* other = find(r, "nccl.warn");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(quoted(*other), std::vector<std::string>{"written_nccl-warn-init-failures_four-hosts.log:4"});
  EXPECT_EQ(r.triage->answer_code, "nccl.kernel_shared_mem");
  // Four hosts known by their version lines alone: one line says what they lack.
  EXPECT_NE(std::find(r.verdict.missing.begin(), r.verdict.missing.end(),
                      "hosts node[21-24]: no GPU and no NIC in the files"),
            r.verdict.missing.end())
      << testing::PrintToString(r.verdict.missing);
}

// NCCL's own warnings in its source's wordings (misc/shmutils.cc, misc/socket.cc,
// misc/nvmlwrap.cc), each alone: the code that names it.
TEST(TriageSignatures, NcclSourceWarningsOfShmSocketsAndNvml) {
  const std::pair<const char*, const char*> cases[] = {
      {"misc/shmutils.cc:73 NCCL WARN Error: failed to create shared memory file /dev/shm/nccl-Ab12Cd, error "
       "Permission denied (13)",
       "nccl.shm_permission"},
      {"misc/shmutils.cc:131 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Ab12Cd (size "
       "9637888), error: Read-only file system (30)",
       "nccl.shm_permission"},
      {"misc/shmutils.cc:131 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Ab12Cd (size "
       "9637888), error: No space left on device (28)",
       "nccl.shm_exhausted"},
      {"misc/socket.cc:50 NCCL WARN socketProgressOpt: Call to recv from 10.0.0.2<43210> failed : Connection reset "
       "by peer",
       "nccl.peer_lost"},
      {"misc/socket.cc:50 NCCL WARN socketProgressOpt: Call to send to 10.0.0.2<43210> failed : Broken pipe",
       "nccl.peer_lost"},
      {"proxy.cc:1464 NCCL WARN [Proxy Service] Failed to execute operation Connect from rank 3, retcode 6",
       "nccl.peer_lost"},
      {"misc/nvmlwrap.cc:91 NCCL WARN nvmlInit_v2() failed: Driver Not Loaded", "kernel.gpu_driver_not_loaded"},
      {"misc/nvmlwrap.cc:180 NCCL WARN nvmlDeviceGetHandleByIndex(3) failed: Unknown Error",
       "container.gpu_access_lost"},
  };
  for (const auto& [warn, code] : cases) {
    Report r = judged({{"nccl.log", std::string("node1:123:456 [0] ") + warn + "\n"}});
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << warn << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError) << warn;
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"nccl.log:1"}) << warn;
  }
  // The exhausted reading stays for the full filesystem: no permission finding there.
  Report full = judged({{"nccl.log", std::string("node1:123:456 [0] ") + cases[2].first + "\n"}});
  EXPECT_EQ(find(full, "nccl.shm_permission"), nullptr) << testing::PrintToString(codes(full));
}

// Hosts on different network plugins: an external one on some, NCCL's internal one on the
// others; a host that printed both (an external one failed, then the internal) is not judged.
TEST(TriageSignatures, HostsOnDifferentNetworkPlugins) {
  Report r = judged({{"n.log",
                      "a:1:1 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.\n"
                      "b:2:2 [0] NCCL INFO Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so\n"
                      "c:3:3 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v7 (v7)\n"}});
  const Finding* f = find(r, "nccl.setting_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->subject, "network plugin");
  EXPECT_NE(f->message.find("a: NCCL's internal one vs b: /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so; c: "
                            "NCCL RDMA Plugin v7"),
            std::string::npos)
      << f->message;
  Report same = judged({{"n.log",
                         "b:2:2 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v7 (v7)\n"
                         "c:3:3 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v7 (v7)\n"
                         "a:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v7 (v7)\n"
                         "a:1:1 [0] NCCL INFO NET/Plugin: Using internal network plugin.\n"}});
  EXPECT_EQ(find(same, "nccl.setting_mismatch"), nullptr) << testing::PrintToString(codes(same));
}

// Other programs' lines in the same jobs, by their own words: PyTorch's collective
// fingerprints differing, UCX's shared-memory FIFO without room, go-nvml's library missing,
// libnvidia-container's NVML errors.
TEST(TriageSignatures, FrameworkMismatchShmFifoAndNvmlLibrary) {
  const std::pair<const char*, const char*> cases[] = {
      {"RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
       "CollectiveFingerPrint(SequenceNumber=21, OpType=BROADCAST, TensorShape=[1], TensorDtypes=Long)",
       "nccl.collective_mismatch"},
      {"mm_iface failed to allocate receive FIFO", "nccl.shm_exhausted"},
      {"2019/09/30 14:46:38 Failed to initialize NVML: could not load NVML library.", "container.driver_libs_missing"},
      // No NCCL at all: XLA's and PyTorch's words, the loader's.
      {"external/xla/xla/service/gpu/nccl_utils.cc:133: NCCL operation ncclGetUniqueId(&id) failed: Unable to load "
       "NCCL library. Multi-GPU collectives will not work.;",
       "framework.nccl_library_missing"},
      {"RuntimeError: Distributed package doesn't have NCCL built in", "framework.nccl_library_missing"},
      {"OSError: libnccl.so.2: cannot open shared object file: No such file or directory",
       "framework.nccl_library_missing"},
      // Open MPI's shared-memory BTL refused a CMA read (EPERM): ptrace's rule.
      {"[96c7e3d99641:24984] Read -1, expected 122880, errno = 1", "limits.ptrace_denied"},
      // The loader refusing a framework for an NCCL symbol its libnccl lacks: an older NCCL first.
      {"ImportError: /env/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister",
       "framework.nccl_library_mismatch"},
      {"time=2025-07-11T17:48:10.249Z level=ERROR msg=\"Cannot init NVML library; err: ERROR_LIBRARY_NOT_FOUND\"",
       "container.driver_libs_missing"},
      // The dynamic loader's words for either library, as Python and nvidia-smi give them.
      {"ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
       "container.driver_libs_missing"},
      {"nvidia-smi: error while loading shared libraries: libnvidia-ml.so.1: cannot open shared object file: No such "
       "file or directory",
       "container.driver_libs_missing"},
      // libnvidia-container's words for NVML failing at a container's start.
      {"nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.",
       "kernel.gpu_driver_not_loaded"},
      {"nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.",
       "kernel.driver_mismatch"},
      {"nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/bd45/merged/usr/bin/"
       "nvidia-smi: file exists",
       "container.driver_files_in_image"},
  };
  for (const auto& [line, code] : cases) {
    Report r = judged({{"job.log", std::string(line) + "\n"}});
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << line << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError) << line;
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"job.log:1"}) << line;
  }
}

// NET/IB's GIN saying that no HCA can read GPU memory, as a WARN or an INFO line: GPUDirect
// RDMA off on that host, not an unexplained warning.
TEST(TriageSignatures, GinWithoutPeerMemoryOrDmaBufIsGdrOff) {
  for (const char* line :
       {"n1:5:5 [0] transport/net_ib/gin.cc:42 NCCL WARN Unable to use GIN: Peermem is not supported, and device 0 "
        "does not support DMA-BUF.",
        "n1:5:5 [0] NCCL INFO Unable to use GIN: Peermem is not supported, nor DMA-BUF.",
        // aws-ofi-nccl on an instance type that requires GPUDirect RDMA
        "n1:5:5 [0] platform-aws.cpp:819 NCCL WARN NET/OFI GDR disabled on GDR-supported instance type "
        "p4d.24xlarge"}) {
    Report r = judged({{"job.log", std::string(line) + "\n"}});
    const Finding* f = find(r, "nccl.gdr_off");
    ASSERT_NE(f, nullptr) << line << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->hosts, std::vector<std::string>{"n1"});
    EXPECT_EQ(find(r, "nccl.warn"), nullptr) << line;
  }
}

// A network plugin installed but failing to load, in each of NCCL's loaders' words; a plugin
// simply not installed is how NCCL runs without one.
TEST(TriageSignatures, NetPluginThatFailsToLoad) {
  for (const char* line :
       {"n1:5:5 [0] NCCL INFO NET/Plugin : dlerror=/opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.7' not "
        "found (required by /usr/lib/libnccl-net.so) No plugin found (libnccl-net.so), using internal implementation",
        "n1:5:5 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libfabric.so.1: cannot open shared object file: "
        "No such file or directory when loading libnccl-net-ofi.so",
        "n1:5:5 [0] NCCL INFO NET/Plugin: libnccl-net-ofi.so: /usr/lib/libnccl-net-ofi.so: undefined symbol: "
        "fi_getinfo",
        // aws-ofi-nccl loaded, refusing the libfabric it found
        "n1:5:5 [0] nccl_ofi_net.cpp:651 NCCL WARN NET/OFI EFA provider requires at least libfabric version 1.22.0."}) {
    Report r = judged({{"job.log", std::string(line) + "\n"}});
    const Finding* f = find(r, "nccl.net_plugin_load_failed");
    ASSERT_NE(f, nullptr) << line << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_EQ(f->hosts, std::vector<std::string>{"n1"});
  }
  // A library without a network interface this NCCL takes: NCCL's own transports go on, so it is
  // said (info) unless the log then shows NCCL on sockets (nccl#1292: "not a sign of failure").
  const std::string probe =
      "n1:5:5 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.\n"
      "n1:5:5 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and "
      "lower are not supported.\n";
  Report alone = judged({{"job.log", probe}});
  const Finding* info = find(alone, "nccl.net_plugin_load_failed");
  ASSERT_NE(info, nullptr) << testing::PrintToString(codes(alone));
  EXPECT_EQ(info->severity, Severity::kInfo);
  EXPECT_EQ(quoted(*info), std::vector<std::string>{"job.log:2"});
  Report sockets = judged({{"job.log", probe + "n1:5:9 [0] NCCL INFO NET/Socket : Using [0]ens7:10.0.0.3<0>\n"}});
  const Finding* error = find(sockets, "nccl.net_plugin_load_failed");
  ASSERT_NE(error, nullptr) << testing::PrintToString(codes(sockets));
  EXPECT_EQ(error->severity, Severity::kError);
  for (const char* quiet :
       {"n1:5:5 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or "
        "directory No plugin found (libnccl-net.so), using internal implementation",
        "n1:5:5 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: "
        "No such file or directory : when loading libnccl-net.so",
        "n1:5:5 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin.",
        "n1:5:5 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)"}) {
    Report r = judged({{"job.log", std::string(quiet) + "\n"}});
    EXPECT_EQ(find(r, "nccl.net_plugin_load_failed"), nullptr) << quiet << testing::PrintToString(codes(r));
  }
}

// aws-ofi-nccl's fi_getinfo finding no provider with a device: EFA's devices missing, as
// libfabric's own "fi_getinfo: -61" says.
TEST(TriageSignatures, OfiGetinfoWithoutDataIsNoEfaDevice) {
  Report r = judged({{"job.log",
                      "n1:5:5 [0] nccl_net_ofi.cpp:200 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data "
                      "available\n"}});
  const Finding* f = find(r, "nccl.no_ib_device");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(find(r, "nccl.warn"), nullptr) << testing::PrintToString(codes(r));
}

// libfabric's EFA provider refusing a memory registration, in its debug log's own form: the
// device's page limit or memlock, named with the OFI plugin's registration failures.
TEST(TriageSignatures, EfaMemoryRegistrationRefused) {
  Report r = judged({{"fi.log",
                      "libfabric:15409:1705531788::efa:mr:efa_mr_reg_impl():850<warn> Unable to register MR: Cannot "
                      "allocate memory\n"}});
  const Finding* f = find(r, "nccl.ofi_register_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(f->message.find("registered host pages"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"fi.log:1"});
}

// NVSwitch errors in the nvswitch driver's words (SXid, fatal or not) and in Fabric
// Manager's log: a fatal one is an error, non-fatal ones a warning.
TEST(TriageSignatures, NvswitchSxidErrors) {
  Report fatal =
      judged({{"dmesg.txt",
               "[  100.1] nvidia-nvswitch3: SXid (PCI:0000:c5:00.0): 12028, Non-fatal, Link 32 egress "
               "non-posted PRIV error (First)\n"
               "[  100.2] nvidia-nvswitch3: SXid (PCI:0000:c5:00.0): 20034, Fatal, Link 40 LTSSM Fault Up\n"}});
  const Finding* f = find(fatal, "nvlink.nvswitch_error");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(fatal));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("SXid 12028, 20034; 1 fatal, 1 non-fatal"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"dmesg.txt:2", "dmesg.txt:1"}));
  Report nonfatal = judged({{"dmesg.txt",
                             "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 02 egress non-posted "
                             "PRIV error (First)\n"}});
  const Finding* n = find(nonfatal, "nvlink.nvswitch_error");
  ASSERT_NE(n, nullptr) << testing::PrintToString(codes(nonfatal));
  EXPECT_EQ(n->severity, Severity::kWarning);
  Report fm = judged({{"fabricmanager.log",
                       "[Jan 10 2024 10:01:02] [ERROR] [tid 1234] detected NVSwitch fatal error 12028 on fid 0 on "
                       "NVLink 32\n"}});
  const Finding* m = find(fm, "nvlink.nvswitch_error");
  ASSERT_NE(m, nullptr) << testing::PrintToString(codes(fm));
  EXPECT_EQ(m->severity, Severity::kError);
}

// NET/IB's event for a port whose speed changed under the job: lower is a degraded link,
// back up is nothing.
TEST(TriageSignatures, IbPortSpeedDroppedUnderTheJob) {
  Report r =
      judged({{"job.log", "n1:5:9 [0] NCCL INFO NET/IB : mlx5_0:1 speed change detected: 400000 -> 200000 Mbps\n"}});
  const Finding* f = find(r, "fabric.link_degraded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->message.find("mlx5_0:1 on n1: 400000 -> 200000 Mb/s"), std::string::npos) << f->message;
  Report up =
      judged({{"job.log", "n1:5:9 [0] NCCL INFO NET/IB : mlx5_0:1 speed change detected: 200000 -> 400000 Mbps\n"}});
  EXPECT_EQ(find(up, "fabric.link_degraded"), nullptr) << testing::PrintToString(codes(up));
}

// NCCL's network transports' lines pasted alone, without "NCCL INFO" or the prefix.
TEST(TriageSignatures, BareNetLinesAreNcclsOwn) {
  Report r = judged({{"post.txt",
                      "NCCL reports GPU Direct RDMA is disabled:\n\n"
                      "NET/IB : GPU Direct RDMA Disabled for HCA 0 'rocep1s0f0'\n"
                      "NET/IB : GPU Direct RDMA Disabled for HCA 1 'rocep1s0f1'\n"}});
  const Finding* f = find(r, "nccl.gdr_off");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"post.txt:3", "post.txt:4"}));
}

// gdb stopped on a SIGBUS in NCCL's shared-memory code: /dev/shm too small.
TEST(TriageSignatures, GdbSigbusInNcclShmOpen) {
  Report r = judged({{"gdb.txt",
                      "Thread 787 \"python\" received signal SIGBUS, Bus error.\n"
                      "[Switching to Thread 0x7f45d7dff640 (LWP 3925)]\n"
                      "0x00007f6b59544f3b in ncclShmOpen(char*, unsigned long, void**, void**, int, void**) () from "
                      "/usr/lib/libnccl.so.2\n"}});
  const Finding* f = find(r, "nccl.shm_exhausted");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"gdb.txt:1"});
  Report other = judged({{"gdb.txt", "Thread 2 \"python\" received signal SIGBUS, Bus error.\n#0 0x1 in memcpy ()\n"}});
  EXPECT_EQ(find(other, "nccl.shm_exhausted"), nullptr) << testing::PrintToString(codes(other));
}

// The ranks short of NICs, from NCCL's INFO lines before its warning; set to be ignored,
// a warning only.
TEST(TriageSignatures, MixedNetDeviceCountsNameTheRanksShort) {
  Report r = judged({{"job.log",
                      "n1:5:5 [0] NCCL INFO Rank 3 has 1 local Net devices (max 4).\n"
                      "n1:5:5 [0] init.cc:1339 NCCL WARN Detected mixed local Net device counts across ranks (min 1, "
                      "max 4). Set NCCL_IGNORE_NET_MISMATCH=1 to continue.\n"}});
  const Finding* f = find(r, "nccl.ib_list_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("(rank 3 has fewer), and stopped"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"job.log:2", "job.log:1"}));
  Report ignored = judged({{"job.log",
                            "n1:5:5 [0] NCCL INFO Detected mixed local Net device counts across ranks (min 1, max 4). "
                            "Ignoring due to NCCL_IGNORE_NET_MISMATCH.\n"}});
  const Finding* g = find(ignored, "nccl.ib_list_mismatch");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(ignored));
  EXPECT_EQ(g->severity, Severity::kWarning);
}

TEST(TriageSignatures, NcclTestsDipAtOneSize) {
  Report r = triage_of({"triage/written_all_reduce_perf_dip-at-64MiB_16-ranks-2-hosts.txt"});
  const Finding* f = find(r, "nccl_tests.dip");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->subject, "all_reduce_perf at 64 MiB");
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"written_all_reduce_perf_dip-at-64MiB_16-ranks-2-hosts.txt:32"});
  const auto all = codes(r);
  EXPECT_EQ(std::count(all.begin(), all.end(), "nccl_tests.dip"), 1);
  // Two hosts, but no NIC rates in the files: the bandwidth is not judged, and it says so.
  ASSERT_EQ(r.verdict.missing.size(), 1u) << testing::PrintToString(r.verdict.missing);
  EXPECT_NE(r.verdict.missing[0].find("no NIC rates"), std::string::npos);
}

// A dip in the out-of-place run alone, in-place at the same size at its neighbours' rate:
// one run disturbed, said as information, not the size's warning.
TEST(TriageSignatures, NcclTestsDipOfOneRunIsInformation) {
  const std::string head =
      "# Collective test starting: all_reduce_perf\n"
      "#                                                              out-of-place                       in-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  const std::string rows =
      "  33554432   8388608  float  sum  -1   255.1  131.54  230.19  0   254.0  132.13  231.22  0\n"
      "  67108864  16777216  float  sum  -1  1049.3   63.95  111.92  0   405.1  165.67  289.92  0\n"
      " 134217728  33554432  float  sum  -1   694.2  193.34  338.35  0   695.7  192.94  337.64  0\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 233.2\n";
  Report r = judged({{"rccl.txt", head + rows}});
  const Finding* f = find(r, "nccl_tests.dip");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_NE(f->message.find("in-place at the same size ran at 289.92 GB/s"), std::string::npos) << f->message;
}

TEST(TriageSignatures, NcclTestsWrongElementsNameTheSizes) {
  Report r = triage_of({"triage/written_all_reduce_perf_wrong-at-two-sizes.txt"});
  const Finding* f = find(r, "nccl_tests.wrong");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->evidence.at("wrong"), 20);
  EXPECT_NE(f->message.find("2 MiB, 8 MiB"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"written_all_reduce_perf_wrong-at-two-sizes.txt:13",
                                                  "written_all_reduce_perf_wrong-at-two-sizes.txt:15"}));
  EXPECT_EQ(name(r.verdict.result), "fail");
}

// A healthy real table alone: nothing wrong in it, but nothing says which hosts ran it or
// what their NICs allow, so its bandwidth is not called healthy.
TEST(TriageInconclusive, ARealTableAloneCannotShowItsBandwidthIsHealthy) {
  Report r = triage_of({"nccl-tests/nccl-tests-309_Dell-XE9680-H100x8-8CX7-IB400_2node_all_reduce_perf.txt"});
  EXPECT_TRUE(r.findings.empty()) << testing::PrintToString(codes(r));
  EXPECT_EQ(name(r.verdict.result), "inconclusive");
  ASSERT_EQ(r.verdict.missing.size(), 1u) << testing::PrintToString(r.verdict.missing);
  EXPECT_NE(r.verdict.missing[0].find("no NIC rates in the files"), std::string::npos) << r.verdict.missing[0];
  EXPECT_NE(r.verdict.missing[0].find("469.2 GB/s"), std::string::npos) << r.verdict.missing[0];
}

// nccl-tests built without MPI=1 under mpirun: each process a one-rank communicator,
// busbw 0 at every size. The numbers say nothing about the fabric.
TEST(TriageSignatures, OneRankTablesOfANonMpiBuildUnderMpirun) {
  Report r = triage_of({"triage/written_all_reduce_perf_no-MPI-build-under-mpirun-2-processes.txt"});
  const Finding* f = find(r, "nccl_tests.single_rank");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->evidence.at("tables"), 2);
  EXPECT_NE(f->message.find("algbw up to 1293.73"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f),
            (std::vector<std::string>{"written_all_reduce_perf_no-MPI-build-under-mpirun-2-processes.txt:17",
                                      "written_all_reduce_perf_no-MPI-build-under-mpirun-2-processes.txt:36"}));
  EXPECT_EQ(find(r, "nccl_tests.below_nics"), nullptr);  // no figure of the fabric to judge
  EXPECT_EQ(name(r.verdict.result), "inconclusive");
  ASSERT_EQ(r.verdict.missing.size(), 1u) << testing::PrintToString(r.verdict.missing);
  EXPECT_NE(r.verdict.missing[0].find("one rank each"), std::string::npos);
}

// The real ticket of nccl-tests#256: 16 H200 ranks in two VMs peak at 107.6 GB/s busbw,
// while NCCL's own topology dump lists 8 NICs of 50 GB/s per host.
TEST(TriageSignatures, BusBandwidthFarBelowTheNicsOfTheRealVmTicket) {
  Report r = triage_of({"nccl-tests/nccl-tests-256_H200x8-2node-KVM-VM-with-NCCL_TOPO_FILE_all_reduce_perf.txt",
                        "nccl-logs/nccl-tests-256_H200-CX7-KVM-VM_NCCL-GRAPH-topology-PCI0.2-links.log"});
  const Finding* f = find(r, "nccl_tests.below_nics");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_DOUBLE_EQ(f->evidence.at("peak_busbw_gbps").get<double>(), 107.63);  // in place, at 8 GB
  EXPECT_DOUBLE_EQ(f->evidence.at("nic_gbps").get<double>(), 400.0);
  EXPECT_NEAR(f->evidence.at("share").get<double>(), 0.269, 0.001);
  const auto lines = quoted(*f);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0], "nccl-tests-256_H200x8-2node-KVM-VM-with-NCCL_TOPO_FILE_all_reduce_perf.txt:10");
  EXPECT_EQ(lines[1], "nccl-tests-256_H200-CX7-KVM-VM_NCCL-GRAPH-topology-PCI0.2-links.log:6");
  EXPECT_EQ(r.triage->answer_code, "nccl_tests.below_nics");
  EXPECT_EQ(name(r.verdict.result), "fail");
  // The same issue's bare-metal run, 488.8 GB/s on the same NICs: not below them.
  Report ok = triage_of({"nccl-tests/nccl-tests-256_H200x8-2node-baremetal-CX7-400G_all_reduce_perf.txt",
                         "nccl-logs/nccl-tests-256_H200-CX7-KVM-VM_NCCL-GRAPH-topology-PCI0.2-links.log"});
  EXPECT_EQ(find(ok, "nccl_tests.below_nics"), nullptr) << testing::PrintToString(codes(ok));
}

// NIC rates from ibstat, hosts from the table's "# Rank" lines: the slowest host bounds.
TEST(TriageSignatures, NicRatesFromIbstatAndHostsFromTheTable) {
  const std::string ibstat = text_of("triage/written_ibstat_gpu-b01-8x-NDR-mlx5_5-at-200G.txt");
  std::string other = ibstat;
  other.replace(other.find("gpu-b01"), 7, "gpu-b02");
  other.replace(other.find("Rate: 200"), 9, "Rate: 400");
  auto with_ranks = [](std::string table) {
    const size_t at = table.find("#       size");
    table.insert(at,
                 "# Using devices\n"
                 "#  Rank  0 Group  0 Pid   4101 on     gpu-b01 device  0 [0x18] NVIDIA H200\n"
                 "#  Rank  8 Group  0 Pid   4201 on     gpu-b02 device  0 [0x18] NVIDIA H200\n");
    return table;
  };
  const std::string vm =
      with_ranks(text_of("nccl-tests/nccl-tests-256_H200x8-2node-KVM-VM-with-NCCL_TOPO_FILE_all_reduce_perf.txt"));
  Report r = judged({{"ibstat-b01.txt", ibstat}, {"ibstat-b02.txt", other}, {"vm.txt", vm}});
  const Finding* f = find(r, "nccl_tests.below_nics");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_DOUBLE_EQ(f->evidence.at("nic_gbps").get<double>(), 375.0);  // 7 x 400 + 200 Gb/s on gpu-b01
  EXPECT_NE(f->message.find("gpu-b01's 8 NIC(s)"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("mlx5_5 200 Gb/s"), std::string::npos) << f->message;
  // Everything topo finds on what the files describe: the port at half its peers' rate.
  const Finding* degraded = find(r, "topo.port_degraded");
  ASSERT_NE(degraded, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(degraded->hosts, std::vector<std::string>{"gpu-b01"});
  const std::string bare =
      with_ranks(text_of("nccl-tests/nccl-tests-256_H200x8-2node-baremetal-CX7-400G_all_reduce_perf.txt"));
  Report ok = judged({{"ibstat-b01.txt", ibstat}, {"ibstat-b02.txt", other}, {"bare.txt", bare}});
  EXPECT_EQ(find(ok, "nccl_tests.below_nics"), nullptr) << testing::PrintToString(codes(ok));
}

// A multi-host table whose rows moved nothing (busbw and algbw 0: a damaged paste) beside
// the NICs' rates: no figure to judge, said as missing; not a crash on the absent peak.
TEST(TriageInconclusive, ATableThatMovedNothingIsNotJudged) {
  std::string ibstat = text_of("triage/written_ibstat_gpu-b01-8x-NDR-mlx5_5-at-200G.txt");
  const std::string table =
      "# nccl-tests version 2.17.1 nccl-headers=22602 nccl-library=22602\n"
      "# Collective test starting: all_reduce_perf\n"
      "# Using devices\n"
      "#  Rank  0 Group  0 Pid   4101 on     gpu-b01 device  0 [0x18] NVIDIA H200\n"
      "#  Rank  1 Group  0 Pid   4201 on     gpu-b02 device  0 [0x18] NVIDIA H200\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
      "#wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
      "   134217728      33554432     float     sum      -1        0    0.00    0.00      0        0    0.00    0.00   "
      "   0\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 0\n";
  Report r = judged({{"ibstat.txt", ibstat}, {"zeros.txt", table}});
  EXPECT_EQ(find(r, "nccl_tests.below_nics"), nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(std::find_if(r.verdict.missing.begin(), r.verdict.missing.end(),
                         [](const std::string& m) { return m.find("shows no bandwidth") != std::string::npos; }),
            r.verdict.missing.end())
      << testing::PrintToString(r.verdict.missing);
}

// A sweep that stops before the bandwidth peaks is not judged against the NICs; it says so.
TEST(TriageInconclusive, ASweepTooShortForItsPeakSaysSo) {
  Report r = triage_of({"triage/written_all_reduce_perf_wrong-at-two-sizes.txt"});
  ASSERT_EQ(r.verdict.missing.size(), 1u) << testing::PrintToString(r.verdict.missing);
  EXPECT_NE(r.verdict.missing[0].find("stops at 16 MiB"), std::string::npos) << r.verdict.missing[0];
}

// The driver's own line for a GPU lost from PCIe, printed with or without its Xid line: Xid
// 79's event, counted once where both are there.
TEST(TriageSignatures, GpuFallenOffTheBusWithoutItsXidLine) {
  const std::string lost = "[ 8812.3] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n";
  Report r = judged({{"dmesg.txt", lost}});
  const Finding* xid = find(r, "kernel.gpu_xid");
  ASSERT_NE(xid, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(xid->evidence.at("xid"), 79);
  EXPECT_EQ(quoted(*xid), std::vector<std::string>{"dmesg.txt:1"});
  Report both =
      judged({{"dmesg.txt", "[ 8812.2] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n" + lost}});
  const Finding* x = find(both, "kernel.gpu_xid");
  ASSERT_NE(x, nullptr) << testing::PrintToString(codes(both));
  EXPECT_EQ(quoted(*x), std::vector<std::string>{"dmesg.txt:1"});
}

TEST(TriageSignatures, KernelLogXidAerLinkFlapAndOomKill) {
  Report r = triage_of({"triage/written_dmesg-xid79-aer-linkflap-oom.txt"});
  const Finding* xid = find(r, "kernel.gpu_xid");
  ASSERT_NE(xid, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(xid->evidence.at("xid"), 79);
  EXPECT_NE(xid->message.find("fallen off the bus"), std::string::npos);
  EXPECT_EQ(quoted(*xid), std::vector<std::string>{"written_dmesg-xid79-aer-linkflap-oom.txt:7"});
  ASSERT_NE(find(r, "kernel.pcie_aer"), nullptr);
  const Finding* flap = find(r, "kernel.link_flap");
  ASSERT_NE(flap, nullptr);
  EXPECT_EQ(flap->subject, "link ens3np0");
  EXPECT_EQ(flap->evidence.at("downs"), 2);
  ASSERT_NE(find(r, "kernel.oom_kill"), nullptr);
  const Finding* cmd = find(r, "kernel.mlx5_cmd");
  ASSERT_NE(cmd, nullptr);
  EXPECT_EQ(quoted(*cmd), std::vector<std::string>{"written_dmesg-xid79-aer-linkflap-oom.txt:10"});
}

// OOM kills in the words of a memory cgroup without the kernel's prefix, Slurm's step and
// srun's task: one finding quoting the kills, not the kernel's constraint line.
TEST(TriageSignatures, OomKillsInACgroupAndInSlurmsWords) {
  Report r = judged({{"job.err",
                      "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=5541.0. Some of your processes may "
                      "have been killed by the cgroup out-of-memory handler.\n"
                      "srun: error: node01: task 3: Out Of Memory\n"
                      "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0\n"
                      "Memory cgroup out of memory: Killed process 1234 (python) total-vm:123kB, anon-rss:100kB\n"}});
  const Finding* f = find(r, "kernel.oom_kill");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"job.err:1", "job.err:2", "job.err:4"}));
  // Slurm 21.08's wording.
  Report later = judged({{"job.err",
                          "slurmstepd: error: Detected 1 oom_kill event in StepId=1234.0. Some of the step tasks have "
                          "been OOM Killed.\n"}});
  EXPECT_NE(find(later, "kernel.oom_kill"), nullptr) << testing::PrintToString(codes(later));
  // CUDA's own out of memory, and a line that merely says "Detected", are not it.
  Report cuda = judged({{"t.log",
                         "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
                         "Detected 4 GPUs\n"}});
  EXPECT_EQ(find(cuda, "kernel.oom_kill"), nullptr) << testing::PrintToString(codes(cuda));
}

// Issue 37: lines as tickets quote them. The texts below are written for this test in
// the shapes the ticket corpus (test/fixtures/tickets) shows: no dmesg timestamp, no NCCL
// prefix, a source-location prefix, terminal colours.
// Xids above 100 in the catalogue: NVLink errors and the recovery action are errors.
TEST(TriagePasted, XidsOfNvlinkAndRecovery) {
  Report r = judged({{"x.txt",
                      "NVRM: Xid (PCI:0000:18:00): 145, NVLink: RLW error\n"
                      "NVRM: Xid (PCI:0000:18:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset "
                      "Required)\n"}});
  std::set<int> xids;
  for (const Finding& f : r.findings) {
    if (f.code != "kernel.gpu_xid") continue;
    xids.insert(f.evidence.at("xid").get<int>());
    EXPECT_EQ(f.severity, Severity::kError) << f.message;
  }
  EXPECT_EQ(xids, (std::set<int>{145, 154}));
}

// Codes of NVIDIA's catalogue beyond the common ones: each with its meaning and a severity
// by the catalogue's immediate action (reset the GPU: an error; restart the application: a
// warning; nothing to do: information); a code it does not describe names the catalogue.
TEST(TriagePasted, XidsOfTheCatalogueByTheirAction) {
  const std::vector<std::tuple<int, Severity, std::string>> cases = {
      {46, Severity::kError, "GPU stopped processing"},
      {136, Severity::kError, "link training failed"},
      {167, Severity::kError, "PCIe fatal timeout"},
      {171, Severity::kError, "uncorrectable DRAM"},
      {54, Severity::kError, "auxiliary power"},
      {39, Severity::kWarning, "copy engine"},
      {121, Severity::kWarning, "C2C"},
      {106, Severity::kInfo, "SMBPBI"},
      {999, Severity::kWarning, "NVIDIA's Xid catalogue"}};
  for (const auto& [xid, severity, words] : cases) {
    Report r = judged({{"x.txt", fmt::format("NVRM: Xid (PCI:0000:18:00): {}, pid=1, name=python\n", xid)}});
    const Finding* f = find(r, "kernel.gpu_xid");
    ASSERT_NE(f, nullptr) << xid << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, severity) << xid;
    EXPECT_NE(f->message.find(words), std::string::npos) << xid << ": " << f->message;
  }
}

TEST(TriagePasted, KernelLinesWithoutTheirTimestamp) {
  Report r = judged({{"paste.txt",
                      "NVRM: Xid (PCI:0000:18:00): 31, pid=2210, name=python, Ch 00000008, intr 10000000\n"
                      "mlx5_core 0000:61:00.0: wait_func_handle_exec_timeout:1104:(pid 1): cmd[22]: "
                      "CREATE_DCT(0x710) No done completion\n"}});
  const Finding* xid = find(r, "kernel.gpu_xid");
  ASSERT_NE(xid, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(xid->evidence.at("xid"), 31);
  const Finding* cmd = find(r, "kernel.mlx5_cmd");
  ASSERT_NE(cmd, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*cmd), std::vector<std::string>{"paste.txt:2"});
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"kernel-log"});
}

// A container on Docker's default bridge given another host's address (NCCL_COMM_ID): no
// interface in that subnet, its only address docker0's; a host with an address of its own
// outside 172.17/16 is not judged so.
TEST(TriagePasted, ContainerOnDockersDefaultBridge) {
  const std::string log =
      "e82c:213:213 [0] include/socket.h:197 NCCL WARN Net : No interface found in the same subnet as remote "
      "address 192.168.0.91<27030>\n"
      "e82c:213:213 [0] NCCL INFO Bootstrap : Using [0]eth0:172.17.0.3<0>\n"
      "e82c:213:213 [0] include/socket.h:333 NCCL WARN Call to bind failed : Cannot assign requested address\n";
  Report r = judged({{"ca.log", log}});
  const Finding* f = nullptr;
  for (const Finding& x : r.findings) {
    if (x.code == "nccl.socket_ifaces_unroutable" && x.message.find("Docker's default bridge") != std::string::npos) {
      f = &x;
    }
  }
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("192.168.0.91"), std::string::npos) << f->message;
  EXPECT_NE(f->hint.find("--network host"), std::string::npos) << f->hint;
  Report own = judged({{"ca.log", log + "e82c:213:213 [0] NCCL INFO NET/Socket : Using [0]eth0:172.17.0.3<0> "
                                        "[1]ens5:10.0.0.4<0>\n"}});
  for (const Finding& x : own.findings) {
    EXPECT_EQ(x.message.find("Docker's default bridge"), std::string::npos) << x.message;
  }
}

// A framework's "NCCL error: unhandled cuda error" alone: a CUDA call under NCCL failed; beside
// the CUDA failure NCCL named, that one stands for it.
TEST(TriagePasted, NcclUnhandledCudaError) {
  Report r = judged({{"worker.log",
                      "(RayWorkerWrapper pid=11305) ERROR 08-27 05:12:18 worker_base.py:382] RuntimeError: NCCL error: "
                      "unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n"}});
  const Finding* f = find(r, "nccl.cuda_error");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  Report oom = judged({{"rank0.log",
                        "n1:7:7 [0] enqueue.cc:100 NCCL WARN Cuda failure 'out of memory'\n"
                        "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n"}});
  EXPECT_EQ(find(oom, "nccl.cuda_error"), nullptr) << testing::PrintToString(codes(oom));
  EXPECT_NE(find(oom, "nccl.cuda_oom"), nullptr) << testing::PrintToString(codes(oom));
}

// A GitHub paste that opens with Markdown's HTML (`<details>`, `<summary>`) is text, not XML:
// its lines are read.
TEST(TriagePasted, PasteOpeningWithAnHtmlTagIsReadAsText) {
  Report r = judged({{"issue.md",
                      "<details><summary> dmesg -T </summary>\n\n```\n[Mon Oct  6 10:00:01 2025] NVRM: Xid "
                      "(PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n```\n</details>\n"}});
  EXPECT_NE(find(r, "kernel.gpu_xid"), nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"kernel-log"});
}

// mlx5 refusing CREATE_MKEY for "limits exceeded": the memory keys used up, said so; another
// command's failure keeps the general words.
TEST(TriagePasted, Mlx5MemoryKeysExhausted) {
  Report r = judged({{"dmesg.txt",
                      "[Mon Oct  6 10:00:01 2025] infiniband mlx5_0: create_mkey_callback:148:(pid 4711): async reg mr "
                      "failed. status -12\n"
                      "[Mon Oct  6 10:00:01 2025] mlx5_core 0000:41:00.0: mlx5_cmd_check:794:(pid 4711): "
                      "CREATE_MKEY(0x200) op_mod(0x0) failed, status limits exceeded(0x8), syndrome (0x59c8a4)\n"}});
  const Finding* f = find(r, "kernel.mlx5_cmd");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(f->message.find("no memory key left"), std::string::npos) << f->message;
  EXPECT_NE(f->hint.find("UCX_IB_RCACHE_MAX_REGIONS"), std::string::npos) << f->hint;
  Report other = judged({{"dmesg.txt",
                          "mlx5_core 0000:61:00.0: wait_func_handle_exec_timeout:1104:(pid 1): cmd[22]: "
                          "CREATE_DCT(0x710) No done completion\n"}});
  const Finding* g = find(other, "kernel.mlx5_cmd");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(other));
  EXPECT_EQ(g->message.find("memory key"), std::string::npos) << g->message;
}

// dmesg -H (--human, --reltime): the minute's stamp, then each line's distance from the last.
TEST(TriagePasted, KernelLinesOfDmesgHuman) {
  Report r = judged({{"dmesg-H.txt",
                      "[Mar 3 10:20] pcieport 0000:40:01.1: AER: Uncorrected (Fatal) error received: 0000:41:00.0\n"
                      "[  +0.000012] nvidia 0000:41:00.0: AER: can't recover (no error_detected callback)\n"
                      "[  +2.113000] NVRM: Xid (PCI:0000:41:00): 79, pid='<unknown>', name=<unknown>, GPU has "
                      "fallen off the bus.\n"}});
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"kernel-log"});
  const Finding* aer = find(r, "kernel.pcie_aer");
  ASSERT_NE(aer, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(aer->severity, Severity::kError);
  EXPECT_EQ(quoted(*aer), std::vector<std::string>{"dmesg-H.txt:1"});
  const Finding* xid = find(r, "kernel.gpu_xid");
  ASSERT_NE(xid, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(xid->evidence.at("xid"), 79);
}

TEST(TriagePasted, NcclLinesWithoutTheirPrefixOrBehindColours) {
  // Bare lines: the file is an NCCL log, the warning read for its meaning.
  Report bare = judged({{"bare.txt",
                         "NCCL INFO NET/Plugin : No plugin found (libnccl-net.so)\n"
                         "include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device\n"}});
  EXPECT_EQ(bare.triage->files.at(0).kinds, std::vector<std::string>{"nccl-log"});
  ASSERT_NE(find(bare, "nccl.shm_exhausted"), nullptr) << testing::PrintToString(codes(bare));
  // Older NCCL's IB completion error, and ANSI colour around a prefixed line.
  Report coloured =
      judged({{"c.txt",
               "\x1b[31mnode-1:946:988 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, "
               "opcode 1, len 0, vendor err 129\x1b[0m\n"}});
  const Finding* retry = find(coloured, "nccl.ib_retry_exceeded");
  ASSERT_NE(retry, nullptr) << testing::PrintToString(codes(coloured));
  EXPECT_EQ(retry->hosts, std::vector<std::string>{"node-1"});
}

TEST(TriagePasted, SocketsOnAMachineWithoutRdmaStayQuiet) {
  // fabscope's own H200 run: one GPU, no RDMA device, NCCL over sockets as it must be.
  Report r = triage_of({"tickets/own-healthy-h200-nccl-init-over-sockets.txt"});
  for (const Finding& f : r.findings) EXPECT_EQ(f.severity, Severity::kInfo) << f.code << ": " << f.message;
  // The plugin's "NET/IB : Using [RO]; OOB eth0" lists no device: no rank is on IB.
  const Finding* f = find(r, "nccl.no_ib_device");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_FALSE(f->evidence.at("rdma_devices_known").get<bool>());
  // NCCL_IB_HCA set makes the same lines a fault.
  Report hca = judged({{"a.log",
                        "h1:10:10 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\n"
                        "h1:10:10 [0] NCCL INFO NET/IB : No device found.\n"
                        "h1:10:10 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"}});
  const Finding* g = find(hca, "nccl.no_ib_device");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(hca));
  EXPECT_EQ(g->severity, Severity::kError);
}

// A setting on one host's ranks and on none of another's: judged only where the other host's
// log goes past the point where NCCL reports it (a setting the first host reports later), not
// where that log ends first (a paste cut short).
TEST(TriagePasted, SettingMissingOnAHostOnlyWhereItsLogWentPastIt) {
  const std::string a =
      "a:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n"
      "a:1:1 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to PHB\n"
      "a:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\n";
  Report past = judged({{"j.log", a + "b:2:2 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n"
                                      "b:2:2 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\n"}});
  const Finding* f = find(past, "nccl.setting_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(past));
  EXPECT_EQ(f->message, "NCCL_NET_GDR_LEVEL is set on a but on no rank of b");
  Report cut = judged({{"j.log", a + "b:2:2 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n"}});
  EXPECT_EQ(find(cut, "nccl.setting_mismatch"), nullptr) << testing::PrintToString(codes(cut));
}

TEST(TriagePasted, CountersPrintedByAShellLoopOrHead) {
  // for f in *; do echo "=== $f ==="; cat $f; done, in a port's counters directory
  Report loop = judged({{"loop.txt",
                         "=== ./port_xmit_wait ===\n4294967295\n=== ./link_downed ===\n3\n"
                         "=== ./symbol_error ===\n0\n"}});
  EXPECT_EQ(loop.triage->files.at(0).kinds, std::vector<std::string>{"counters"});
  const Finding* sat = find(loop, "counters.saturated");
  ASSERT_NE(sat, nullptr) << testing::PrintToString(codes(loop));
  EXPECT_EQ(quoted(*sat), std::vector<std::string>{"loop.txt:2"});
  ASSERT_NE(find(loop, "counters.link_errors"), nullptr) << testing::PrintToString(codes(loop));
  // head of sysfs files: the path names the device and port.
  Report head = judged({{"head.txt",
                         "==> /sys/class/infiniband/mlx5_1/ports/1/counters/link_downed <==\n7\n\n"
                         "==> /sys/class/infiniband/mlx5_1/ports/1/counters/port_rcv_errors <==\n0\n"}});
  const Finding* err = find(head, "counters.link_errors");
  ASSERT_NE(err, nullptr) << testing::PrintToString(codes(head));
  EXPECT_NE(err->message.find("mlx5_1 port 1 link_downed 7"), std::string::npos) << err->message;
  // grep -H of a few sysfs counters: fewer than five lines, but the path says what they are.
  Report grep = judged({{"grep.txt",
                         "/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait:4294967295\n"
                         "/sys/class/infiniband/mlx5_0/ports/1/counters/link_downed:3\n"}});
  EXPECT_EQ(grep.triage->files.at(0).kinds, std::vector<std::string>{"counters"});
  EXPECT_NE(find(grep, "counters.saturated"), nullptr) << testing::PrintToString(codes(grep));
  EXPECT_NE(find(grep, "counters.link_errors"), nullptr) << testing::PrintToString(codes(grep));
  // A heading over text is not a counter.
  Report prose = judged({{"p.txt", "=== notes ===\nthe link went down twice\n"}});
  EXPECT_TRUE(prose.triage->files.at(0).kinds.empty());
}

TEST(TriagePasted, AFewLinesOfOneProgramAreListedByWhatWasFoundInThem) {
  // A device plugin's log: no format reader names it, its NVML line is read.
  Report plugin = judged({{"plugin.txt",
                           "2020/10/14 18:04:53 Loading NVML\n"
                           "2020/10/14 18:04:53 Failed to initialize NVML: could not load NVML library.\n"}});
  EXPECT_EQ(plugin.triage->files.at(0).kinds, std::vector<std::string>{"gpu-driver-log"});
  ASSERT_NE(find(plugin, "container.driver_libs_missing"), nullptr) << testing::PrintToString(codes(plugin));
  EXPECT_EQ(plugin.triage->files.at(0).note.find("not recognised"), std::string::npos)
      << plugin.triage->files.at(0).note;
  // `ulimit -l` and its answer; NCCL's interface list with its entries on lines of their own.
  Report limit = judged({{"limit.txt", "$ ulimit -l\n64\n"}});
  EXPECT_EQ(limit.triage->files.at(0).kinds, std::vector<std::string>{"limits"});
  Report list =
      judged({{"list.txt", "INFO NET/Socket : Using\n[0]bond0:192.168.1.161<0>\n[1]br-05ab815fa14e:172.19.0.1<0>\n"}});
  EXPECT_EQ(list.triage->files.at(0).kinds, std::vector<std::string>{"nccl-log"});
}

TEST(TriagePasted, TheOnlyNicAcrossTheSocketsIsAWarning) {
  // nvidia-smi topo -m of a two-socket server whose one NIC is SYS from both GPUs.
  auto matrix = [](const char* path) {
    return fmt::format(
        "        GPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \t{0}\t{0}\t0-15\t0\n"
        "GPU1\t{0}\t X \t{0}\t16-31\t1\n"
        "NIC0\t{0}\t{0}\t X \n\nNIC Legend:\n\n  NIC0: mlx5_0\n",
        path);
  };
  Report sys = judged({{"topo.txt", matrix("SYS")}});
  int warned = 0;
  for (const Finding& f : sys.findings)
    warned += f.code == "topo.gpu_without_near_nic" && f.severity == Severity::kWarning;
  EXPECT_EQ(warned, 2) << testing::PrintToString(codes(sys));
  // The same NIC on the GPUs' own CPU (NODE): GPUDirect is off, but no socket is crossed.
  Report node = judged({{"topo.txt", matrix("NODE")}});
  for (const Finding& f : node.findings) EXPECT_NE(f.severity, Severity::kWarning) << f.code << ": " << f.message;
}

TEST(TriagePasted, ABareLineNamesNoHostButItsFile) {
  topo::NcclLogLine l;
  ASSERT_TRUE(topo::split_nccl_line("  NCCL INFO NET/IB : No device found.", l));
  EXPECT_EQ(l.host, topo::kUnnamedHost);
  EXPECT_EQ(l.pid, "");
  EXPECT_EQ(l.dev, -1);
  EXPECT_EQ(l.level, "INFO");
  EXPECT_EQ(l.msg, "NET/IB : No device found.");
  ASSERT_TRUE(topo::split_nccl_line("h1:12:13 [2] NCCL WARN oops", l));
  EXPECT_EQ(l.host, "h1");
  EXPECT_EQ(l.dev, 2);
  EXPECT_FALSE(topo::split_nccl_line("the NCCL INFOrmation page", l));
}

// lspci -vv: each device's LnkSta against its own LnkCap. Narrower is a warning whatever
// the device; slower only is a warning too, except on a GPU (an idle one lowers its
// link's speed to save power): information there. A link at its capability says nothing.
TEST(TriagePasted, PcieLinksBelowTheirDevicesCapability) {
  Report r = judged({{"lspci.txt",
                      "3b:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
                      "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n"
                      "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+\n"
                      "\t\tLnkSta:\tSpeed 32GT/s, Width x8 (downgraded)\n"
                      "\t\tLnkCap2: Supported Link Speeds: 2.5-32GT/s, Crosslink- Retimer+ 2Retimers+ DRS-\n"
                      "18:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)\n"
                      "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n"
                      "\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16\n"
                      "19:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)\n"
                      "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n"
                      "\t\tLnkSta:\tSpeed 32GT/s, Width x16\n"}});
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"lspci"});
  std::vector<const Finding*> links;
  for (const Finding& f : r.findings) {
    if (f.code == "topo.pcie_degraded") links.push_back(&f);
  }
  ASSERT_EQ(links.size(), 2u) << testing::PrintToString(codes(r));
  EXPECT_EQ(links[0]->severity, Severity::kWarning);
  EXPECT_NE(links[0]->subject.find("ConnectX-7"), std::string::npos) << links[0]->subject;
  EXPECT_EQ(quoted(*links[0]), (std::vector<std::string>{"lspci.txt:2", "lspci.txt:4"}));
  EXPECT_EQ(links[0]->evidence.at("current_width"), 8);
  EXPECT_EQ(links[0]->evidence.at("capable_width"), 16);
  EXPECT_EQ(links[1]->severity, Severity::kInfo);  // the idle GPU at 2.5 GT/s
  EXPECT_NE(links[1]->subject.find("18:00.0"), std::string::npos) << links[1]->subject;
  // Bare lines with no device line, as a reporter quotes them: still a warning.
  Report bare = judged({{"mail.txt",
                         "LnkCap: Port #0, Speed 5GT/s, Width x8, ASPM L0s, Exit Latency L0s <512ns, L1 <4us\n"
                         "LnkSta: Speed 2.5GT/s, Width x4, TrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-\n"}});
  const Finding* f = find(bare, "topo.pcie_degraded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(bare));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->message.find("25% of its bandwidth"), std::string::npos) << f->message;
}

// `lspci -vv | grep LnkSta` alone: pciutils marks a field below the device's capability
// "(downgraded)" itself, so the LnkCap need not be there. Unmarked lines say nothing, and a
// GPU's speed alone (an idle GPU lowers it) stays information.
TEST(TriagePasted, LspciMarksALinkDowngraded) {
  Report r = judged({{"grep.txt",
                      "\t\tLnkSta:\tSpeed 8GT/s, Width x16\n"
                      "\t\tLnkSta:\tSpeed 16GT/s, Width x2 (downgraded)\n"
                      "\t\tLnkSta:\tSpeed 8GT/s (ok), Width x16 (ok)\n"}});
  const Finding* f = find(r, "topo.pcie_degraded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"grep.txt:2"});
  EXPECT_NE(f->message.find("x2, which lspci marks as below the device's width"), std::string::npos) << f->message;
  EXPECT_EQ(f->evidence.at("current_width"), 2);
  Report gpu = judged({{"gpu.txt",
                        "17:00.0 3D controller: NVIDIA Corporation GH100 [H100 PCIe] (rev a1)\n"
                        "\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16\n"}});
  f = find(gpu, "topo.pcie_degraded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(gpu));
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_NE(f->subject.find("17:00.0"), std::string::npos) << f->subject;
  Report fine = judged({{"ok.txt", "\t\tLnkSta:\tSpeed 16GT/s, Width x16\n"}});
  EXPECT_EQ(find(fine, "topo.pcie_degraded"), nullptr) << testing::PrintToString(codes(fine));
}

// nvidia-smi -q's "GPU Link Info": a Link Width below its Max is a warning; a generation
// below its Max alone is an idle GPU's power saving (information). The GPU is named.
TEST(TriagePasted, NvidiaSmiQueryLinkWidth) {
  const std::string head =
      "GPU 00000000:3B:00.0\n"
      "    PCI\n"
      "        GPU Link Info\n"
      "            PCIe Generation\n"
      "                Max                       : 4\n"
      "                Current                   : {}\n"
      "                Device Max                : 4\n"
      "                Host Max                  : 4\n"
      "            Link Width\n"
      "                Max                       : 16x\n"
      "                Current                   : {}x\n"
      "        Bridge Chip\n"
      "            Type                          : N/A\n";
  Report narrow = judged({{"q.txt", fmt::format(fmt::runtime(head), 4, 8)}});
  const Finding* f = find(narrow, "topo.pcie_degraded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(narrow));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->subject.find("00000000:3B:00.0"), std::string::npos) << f->subject;
  EXPECT_EQ(f->evidence.at("current_width"), 8);
  EXPECT_EQ(f->evidence.at("capable_gts"), 16.0);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"q.txt:10", "q.txt:11"}));
  Report idle = judged({{"q.txt", fmt::format(fmt::runtime(head), 1, 16)}});
  f = find(idle, "topo.pcie_degraded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(idle));
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_EQ(f->evidence.at("current_gts"), 2.5);
  Report fine = judged({{"q.txt", fmt::format(fmt::runtime(head), 4, 16)}});
  EXPECT_EQ(find(fine, "topo.pcie_degraded"), nullptr) << testing::PrintToString(codes(fine));
}

// iblinkinfo: its own "Could be" on a link below what both ends support, and a link
// physically up but not Active; a port down with no far end, and full links, say nothing.
TEST(TriagePasted, IblinkinfoLinksBelowCapabilityOrNotActive) {
  Report r = judged(
      {{"iblinkinfo.txt",
        "Switch: 0x248a070300f7e4a0 MF0;switch-ib-01:MSB7800/U1:\n"
        "          29    1[  ] ==( 4X      25.78125 Gbps Active/  LinkUp)==>      12    1[  ] \"gpu-node01 mlx5_0\" ( "
        ")\n"
        "          29    3[  ] ==( 1X      25.78125 Gbps Active/  LinkUp)==>      14    1[  ] \"gpu-node03 mlx5_0\" ( "
        "Could be 4X)\n"
        "          29    4[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
        "          29    6[  ] ==( 4X      25.78125 Gbps Initialize/  LinkUp)==>      16    1[  ] \"gpu-node05 "
        "mlx5_0\" ( )\n"}});
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"iblinkinfo"});
  const Finding* slow = find(r, "fabric.link_degraded");
  ASSERT_NE(slow, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(slow->severity, Severity::kWarning);
  EXPECT_NE(slow->message.find("MF0;switch-ib-01:MSB7800/U1 port 3 to \"gpu-node03 mlx5_0\" at 1X 25.78125 Gbps "
                               "(Could be 4X)"),
            std::string::npos)
      << slow->message;
  EXPECT_EQ(quoted(*slow), std::vector<std::string>{"iblinkinfo.txt:3"});
  const Finding* idle = find(r, "fabric.link_not_active");
  ASSERT_NE(idle, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*idle), std::vector<std::string>{"iblinkinfo.txt:5"});
  EXPECT_NE(idle->message.find("port 6 to \"gpu-node05 mlx5_0\" (Initialize/LinkUp)"), std::string::npos)
      << idle->message;
  // saquery finding no subnet manager on a port: the same fault, told by another tool.
  Report sa = judged({{"lshca.txt",
                       "        CMD: saquery SMIR -C mlx5_0 -P 1 0\n"
                       "        Msg: ibwarn: [1685604] sa_get_handle: No SM/SA found on port :1\n"}});
  const Finding* no_sm = find(sa, "fabric.link_not_active");
  ASSERT_NE(no_sm, nullptr) << testing::PrintToString(codes(sa));
  EXPECT_EQ(quoted(*no_sm), std::vector<std::string>{"lshca.txt:2"});
  EXPECT_EQ(sa.triage->files.at(0).kinds, std::vector<std::string>{"infiniband-diags"});
}

// DCGM's diagnostic table: a failed test with its per-GPU row and its wrapped warning
// joined; a deployment check's own "Error" row under its section; passes say nothing, and
// a test that only warned is a warning.
TEST(TriagePasted, DcgmDiagFailuresWithTheirDetail) {
  const std::string head =
      "+---------------------------+------------------------------------------------+\n"
      "| Diagnostic                | Result                                         |\n"
      "+===========================+================================================+\n"
      "|-----  Deployment  --------+------------------------------------------------|\n"
      "| Denylist                  | Pass                                           |\n";
  const std::string failed =
      "| Error                     | GPU 3 has uncorrectable memory errors and row  |\n"
      "|                           |  remappings are pending                        |\n"
      "+-----  Hardware  ----------+------------------------------------------------+\n"
      "| GPU Memory                | Pass - GPUs: 1, 2, 3                           |\n"
      "|                           | Fail - GPU: 0                                  |\n"
      "| Warning                   | GPU 0 Thermal violations totaling 13.3 second  |\n"
      "|                           | s started at 9.7 seconds into the test.        |\n"
      "| Info                      | GPU 2 GPU 2 max power: 227.0 W average power   |\n"
      "+---------------------------+------------------------------------------------+\n";
  Report r = judged({{"diag.txt", head + failed}});
  const Finding* f = find(r, "dcgm.diag_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"dcgm-diag"});
  EXPECT_NE(f->message.find("Deployment: failed (\"GPU 3 has uncorrectable memory errors and row remappings are "
                            "pending\")"),
            std::string::npos)
      << f->message;
  EXPECT_NE(f->message.find("GPU Memory: failed on GPU: 0 (\"GPU 0 Thermal violations totaling 13.3 seconds "
                            "started at 9.7 seconds into the test.\")"),
            std::string::npos)
      << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"diag.txt:6", "diag.txt:10"}));
  EXPECT_EQ(f->evidence.at("tests"), 2);

  Report warned = judged({{"diag.txt", head + "| Persistence Mode          | Warn                                  "
                                              "         |\n"}});
  f = find(warned, "dcgm.diag_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(warned));
  EXPECT_EQ(f->severity, Severity::kWarning);
  Report passed = judged({{"diag.txt", head + "+-----  Hardware  ----------+---------------------------------------"
                                              "---------+\n"
                                              "| GPU Memory                | Pass - All                           "
                                              "          |\n"}});
  EXPECT_EQ(find(passed, "dcgm.diag_failed"), nullptr) << testing::PrintToString(codes(passed));
  // A Markdown table of another tool's results is not DCGM's.
  Report markdown = judged({{"notes.md", "| step | result |\n|---|---|\n| build | Fail |\n"}});
  EXPECT_EQ(find(markdown, "dcgm.diag_failed"), nullptr) << testing::PrintToString(codes(markdown));
}

// nvidia-smi's table: ERR! in a GPU's rows, or a volatile uncorrectable ECC count above 0,
// is a GPU to reset, named by its bus id; 0, N/A and a table of healthy GPUs say nothing.
// nvidia-smi -q's clock event reasons: a hardware or thermal slowdown Active is a slow GPU
// (the power brake and heat named); the power cap and idle are how a healthy GPU runs.
TEST(TriagePasted, NvidiaSmiClockSlowdowns) {
  const auto query = [](const char* header, const char* hw, const char* thermal, const char* brake,
                        const char* power_cap) {
    return fmt::format(
        "GPU 00000000:18:00.0\n    Product Name                          : NVIDIA H100 80GB HBM3\n    {}\n"
        "        Idle                              : Not Active\n"
        "        SW Power Cap                      : {}\n"
        "        HW Slowdown                       : {}\n"
        "            HW Thermal Slowdown           : {}\n"
        "            HW Power Brake Slowdown       : {}\n"
        "        SW Thermal Slowdown               : Not Active\n"
        "    Sparse Operation Mode                 : N/A\n"
        "    HW Slowdown                           : Active\n",  // outside the section: not read
        header, power_cap, hw, thermal, brake);
  };
  Report hot = judged({{"q.txt", query("Clocks Event Reasons", "Active", "Active", "Not Active", "Not Active")}});
  const Finding* f = find(hot, "kernel.gpu_slowdown");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(hot));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->message.find("GPU 00000000:18:00.0"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("too hot"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"q.txt:6", "q.txt:7"}));
  Report brake = judged({{"q.txt", query("Clocks Throttle Reasons", "Active", "Not Active", "Active", "Not Active")}});
  const Finding* b = find(brake, "kernel.gpu_slowdown");
  ASSERT_NE(b, nullptr) << testing::PrintToString(codes(brake));
  EXPECT_NE(b->message.find("power brake"), std::string::npos) << b->message;
  Report capped =
      judged({{"q.txt", query("Clocks Event Reasons", "Not Active", "Not Active", "Not Active", "Active")}});
  EXPECT_EQ(find(capped, "kernel.gpu_slowdown"), nullptr) << testing::PrintToString(codes(capped));
}

// ethtool's settings: an interface with no link is a port down; one up below the fastest
// mode it supports and advertises (and its partner, where listed) is degraded; one at its
// fastest, or advertising only slower modes, says nothing.
TEST(TriagePasted, EthtoolLinkDownAndBelowItsModes) {
  const auto settings = [](const char* speed, const char* link, const char* advertised, const char* partner) {
    return fmt::format(
        "$ ethtool ens1f0np0\nSettings for ens1f0np0:\n\tSupported ports: [ Backplane ]\n"
        "\tSupported link modes:   1000baseKX/Full\n\t                        25000baseCR/Full\n"
        "\t                        100000baseCR4/Full\n\tSupported pause frame use: Symmetric\n"
        "\tAdvertised link modes:  {}\n\tLink partner advertised link modes:  {}\n\tSpeed: {}\n"
        "\tDuplex: Full\n\tAuto-negotiation: on\n\tLink detected: {}\n",
        advertised, partner, speed, link);
  };
  Report slow =
      judged({{"eth.txt", settings("25000Mb/s", "yes", "25000baseCR/Full 100000baseCR4/Full", "Not reported")}});
  const Finding* d = find(slow, "topo.port_degraded");
  ASSERT_NE(d, nullptr) << testing::PrintToString(codes(slow));
  EXPECT_EQ(d->severity, Severity::kWarning);
  EXPECT_NE(d->message.find("runs at 25 Gb/s, below the 100 Gb/s its link modes allow"), std::string::npos)
      << d->message;
  Report down = judged({{"eth.txt", settings("Unknown!", "no", "100000baseCR4/Full", "Not reported")}});
  const Finding* p = find(down, "topo.port_down");
  ASSERT_NE(p, nullptr) << testing::PrintToString(codes(down));
  EXPECT_EQ(p->severity, Severity::kWarning);
  for (const std::string& quiet :
       {settings("100000Mb/s", "yes", "100000baseCR4/Full", "Not reported"),
        settings("25000Mb/s", "yes", "25000baseCR/Full", "Not reported"),  // it advertises no more
        settings("25000Mb/s", "yes", "25000baseCR/Full 100000baseCR4/Full", "25000baseCR/Full")}) {
    Report r = judged({{"eth.txt", quiet}});
    EXPECT_EQ(find(r, "topo.port_degraded"), nullptr) << quiet << testing::PrintToString(codes(r));
    EXPECT_EQ(find(r, "topo.port_down"), nullptr) << quiet << testing::PrintToString(codes(r));
  }
}

// ibstat of a host whose InfiniBand ports run at 400 Gb/s beside its 200 Gb/s Ethernet bond (the
// front-end network): the bond is no peer of the InfiniBand ports, and nothing is degraded; an
// InfiniBand port at 200 Gb/s among them is.
TEST(TriagePasted, PortsAreComparedWithPeersOfTheirLinkLayer) {
  const auto ca = [](const char* name, const char* rate, const char* layer) {
    return fmt::format(
        "CA '{}'\n\tCA type: MT41692\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n\t\tPhysical "
        "state: LinkUp\n\t\tRate: {}\n\t\tBase lid: 0\n\t\tLink layer: {}\n",
        name, rate, layer);
  };
  const std::string ib =
      ca("mlx5_0", "400", "InfiniBand") + ca("mlx5_1", "400", "InfiniBand") + ca("mlx5_2", "400", "InfiniBand");
  Report mixed = judged({{"ibstat.txt", ib + ca("mlx5_bond_0", "200", "Ethernet")}});
  EXPECT_EQ(find(mixed, "topo.port_degraded"), nullptr) << testing::PrintToString(codes(mixed));
  Report slow = judged({{"ibstat.txt", ib + ca("mlx5_3", "200", "InfiniBand") + ca("mlx5_bond_0", "200", "Ethernet")}});
  const Finding* d = find(slow, "topo.port_degraded");
  ASSERT_NE(d, nullptr) << testing::PrintToString(codes(slow));
  EXPECT_NE(d->message.find("mlx5_3 port 1"), std::string::npos) << d->message;
  EXPECT_EQ(d->message.find("mlx5_bond_0"), std::string::npos) << d->message;
}

// AWS ENA's allowance counters (ethtool -S): above 0, the instance went past its network
// allowances, a warning naming them; at 0 (and conntrack_allowance_available, a gauge) nothing.
TEST(TriagePasted, EnaAllowanceCountersAboveZero) {
  const std::string head =
      "# ethtool -S ens34\nNIC statistics:\n     tx_timeout: 0\n     interface_up: 1\n"
      "     ena_srd_tx_pkts: 0\n     ena_srd_rx_pkts: 0\n";
  Report over =
      judged({{"ena.txt", head + "     bw_in_allowance_exceeded: 3241329\n"
                                 "     bw_out_allowance_exceeded: 0\n     pps_allowance_exceeded: 784\n"
                                 "     conntrack_allowance_exceeded: 0\n     linklocal_allowance_exceeded: 0\n"
                                 "     conntrack_allowance_available: 615471\n"}});
  const Finding* f = find(over, "counters.allowance_exceeded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(over));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->message.find("ens34 bw_in_allowance_exceeded 3241329, ens34 pps_allowance_exceeded 784"),
            std::string::npos)
      << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"ena.txt:7", "ena.txt:9"}));
  Report quiet = judged({{"ena.txt", head + "     bw_in_allowance_exceeded: 0\n     bw_out_allowance_exceeded: 0\n"
                                            "     pps_allowance_exceeded: 0\n     conntrack_allowance_exceeded: 0\n"
                                            "     conntrack_allowance_available: 615471\n"}});
  EXPECT_EQ(find(quiet, "counters.allowance_exceeded"), nullptr) << testing::PrintToString(codes(quiet));
}

TEST(TriagePasted, NvidiaSmiTableErrAndUncorrectableEcc) {
  const std::string head =
      "+-----------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |\n"
      "|-------------------------------+----------------------+----------------------+\n"
      "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
      "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
      "|===============================+======================+======================|\n";
  const std::string gpu0 =
      "|   0  NVIDIA A100-SXM...  On   | 00000000:07:00.0 Off |                    {} |\n"
      "| N/A   33C    P0    61W / 400W |      0MiB / 81251MiB |      0%      Default |\n"
      "+-------------------------------+----------------------+----------------------+\n";
  const std::string gpu1_err =
      "|   1  NVIDIA A100-SXM...  On   | 00000000:0F:00.0 Off |                 ERR! |\n"
      "|ERR!  ERR! ERR!    ERR! / ERR! |      4MiB / 81251MiB |    ERR!      Default |\n";
  Report bad = judged({{"smi.txt", head + fmt::format(fmt::runtime(gpu0), 2) + gpu1_err}});
  std::vector<const Finding*> reset;
  for (const Finding& f : bad.findings) {
    if (f.code == "kernel.gpu_reset_required") reset.push_back(&f);
  }
  ASSERT_EQ(reset.size(), 2u) << testing::PrintToString(codes(bad));
  EXPECT_EQ(bad.triage->files.at(0).kinds, std::vector<std::string>{"nvidia-smi"});
  for (const Finding* f : reset) {
    EXPECT_EQ(f->severity, Severity::kError);
    if (f->subject == "GPU in error (nvidia-smi)") {
      EXPECT_EQ(f->evidence.at("gpus"), nlohmann::json::array({"00000000:0F:00.0"}));
      EXPECT_EQ(quoted(*f), (std::vector<std::string>{"smi.txt:10", "smi.txt:11"}));
    } else {
      EXPECT_EQ(f->subject, "GPU memory (nvidia-smi)");
      EXPECT_EQ(f->evidence.at("gpus"), nlohmann::json::array({"00000000:07:00.0"}));
      EXPECT_EQ(quoted(*f), std::vector<std::string>{"smi.txt:7"});
    }
  }
  // nvidia-smi -q's "ECC Errors": the Volatile part's uncorrectable count, not the Aggregate's.
  const std::string q =
      "GPU 00000000:3B:00.0\n"
      "    ECC Errors\n"
      "        Volatile\n"
      "            DRAM Correctable              : 12\n"
      "            DRAM Uncorrectable            : {}\n"
      "        Aggregate\n"
      "            DRAM Uncorrectable            : 5\n"
      "    Retired Pages\n";
  Report ecc = judged({{"q.txt", fmt::format(fmt::runtime(q), 2)}});
  const Finding* e = find(ecc, "kernel.gpu_reset_required");
  ASSERT_NE(e, nullptr) << testing::PrintToString(codes(ecc));
  EXPECT_EQ(quoted(*e), std::vector<std::string>{"q.txt:5"});
  EXPECT_EQ(e->evidence.at("gpus"), nlohmann::json::array({"00000000:3B:00.0"}));
  Report lifetime = judged({{"q.txt", fmt::format(fmt::runtime(q), 0)}});
  EXPECT_EQ(find(lifetime, "kernel.gpu_reset_required"), nullptr) << testing::PrintToString(codes(lifetime));
  for (const char* count : {"0", "N/A"}) {
    Report fine = judged({{"smi.txt", head + fmt::format(fmt::runtime(gpu0), count)}});
    EXPECT_EQ(find(fine, "kernel.gpu_reset_required"), nullptr) << count << testing::PrintToString(codes(fine));
  }
}

// The kernel's PCI link attributes as `grep . /sys/bus/pci/devices/*/*link*` prints them:
// each device's current width against its max; a device's four lines make one link.
TEST(TriagePasted, SysfsLinkAttributes) {
  Report r = judged({{"sys.txt",
                      "/sys/bus/pci/devices/0000:3b:00.0/current_link_speed:16.0 GT/s PCIe\n"
                      "/sys/bus/pci/devices/0000:3b:00.0/current_link_width:4\n"
                      "/sys/bus/pci/devices/0000:3b:00.0/max_link_speed:16.0 GT/s PCIe\n"
                      "/sys/bus/pci/devices/0000:3b:00.0/max_link_width:16\n"
                      "/sys/bus/pci/devices/0000:5e:00.0/current_link_speed:16.0 GT/s PCIe\n"
                      "/sys/bus/pci/devices/0000:5e:00.0/current_link_width:16\n"
                      "/sys/bus/pci/devices/0000:5e:00.0/max_link_speed:16.0 GT/s PCIe\n"
                      "/sys/bus/pci/devices/0000:5e:00.0/max_link_width:16\n"}});
  std::vector<const Finding*> links;
  for (const Finding& f : r.findings) {
    if (f.code == "topo.pcie_degraded") links.push_back(&f);
  }
  ASSERT_EQ(links.size(), 1u) << testing::PrintToString(codes(r));
  EXPECT_EQ(links[0]->severity, Severity::kWarning);
  EXPECT_EQ(links[0]->subject, "0000:3b:00.0");
  EXPECT_NE(links[0]->message.find("x4 where the device can do 16 GT/s x16"), std::string::npos) << links[0]->message;
}

// setpci reading ports' ACS control register (the capability's name, or PLX switches' own
// offset) and the words it prints: a redirection bit on is ACS on; a write prints nothing.
TEST(TriagePasted, SetpciAcsControlReads) {
  Report r = judged({{"acs.txt",
                      "$ for b in 02:00.0 03:00.0; do sudo setpci -s $b ECAP_ACS+0x6.w; done\n"
                      "0000\n"
                      "001d\n"}});
  const Finding* f = find(r, "topo.pcie_acs");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(f->message.find("on 1 of the 2 ports listed"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"acs.txt:3"});
  Report off = judged({{"off.txt", "$ sudo setpci -s 03:00.0 ECAP_ACS+6.w\n0000\n0000\n"}});
  EXPECT_EQ(find(off, "topo.pcie_acs"), nullptr) << testing::PrintToString(codes(off));
  Report plain = judged({{"plain.txt", "$ sudo setpci -s 03:00.0 COMMAND.w\n0147\n"}});
  EXPECT_EQ(find(plain, "topo.pcie_acs"), nullptr) << testing::PrintToString(codes(plain));
}

// The kernel refusing a module built against another version of one it uses (or a symbol
// no loaded module provides): the module named, with dmesg's timestamp or without.
TEST(TriagePasted, ModuleDisagreesAboutSymbolVersion) {
  Report r = judged({{"dmesg.txt",
                      "[  12.5] nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client\n"
                      "[  12.5] nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -22)\n"
                      "mlx5_ib: disagrees about version of symbol mlx5_core_create_cq\n"}});
  const Finding* f = find(r, "kernel.driver_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->subject, "kernel module nvidia_peermem, mlx5_ib");
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"dmesg.txt:1", "dmesg.txt:2", "dmesg.txt:3"}));
  // modprobe's word for it, naming the module in quotes.
  Report modprobe = judged({{"dkms.txt",
                             "DKMS: install completed.\n"
                             "modprobe: ERROR: could not insert 'nv_peer_mem': Unknown symbol in module, or unknown "
                             "parameter (see dmesg)\n"}});
  f = find(modprobe, "kernel.driver_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(modprobe));
  EXPECT_EQ(f->subject, "kernel module nv_peer_mem");
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"dkms.txt:2"});
}

// The kernel's own report of a link trained below its device (pcie_print_link_status),
// with dmesg's timestamp or without.
TEST(TriagePasted, TheKernelsLimitedByLine) {
  Report r =
      judged({{"dmesg.txt",
               "[    2.101010] ixgbe 0000:01:00.0: 8.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe "
               "x4 link at 0000:00:1c.0 (capable of 31.504 Gb/s with 8.0 GT/s PCIe x4 link)\n"}});
  const Finding* f = find(r, "topo.pcie_degraded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->subject, "0000:01:00.0");
  EXPECT_EQ(f->evidence.at("current_gts"), 2.5);
  EXPECT_EQ(f->evidence.at("capable_gts"), 8.0);
  EXPECT_EQ(f->evidence.at("current_width"), 4);
}

// NCCL's IB plugin: GPUDirect RDMA disabled on every HCA a host lists is GDR off there,
// with no Channel line at all; one HCA enabled beside it is not.
TEST(TriagePasted, GdrDisabledForEveryHca) {
  Report r = judged({{"n.log",
                      "learn01:22:23 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"
                      "learn01:22:23 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1'\n"
                      "learn02:22:23 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"
                      "learn02:22:23 [3] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 1 'mlx5_1'\n"}});
  const Finding* f = find(r, "nccl.gdr_off");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->hosts, std::vector<std::string>{"learn01"});
  EXPECT_EQ(f->evidence.at("hcas"), 2);
}

// The driver's "Reset required" (dmesg -T's bracketed date), and corrected AER lines,
// one event of them: each a finding naming its lines.
TEST(TriagePasted, ResetRequiredAndCorrectedAer) {
  Report r =
      judged({{"k.txt",
               " [Sun Jan 11 09:52:01 2026] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required "
               "[NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2874 \n"
               "pcieport 0000:00:1d.0: AER: Corrected error received: 0000:07:00.0\n"
               "alx 0000:07:00.0: AER: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Receiver ID)\n"}});
  const Finding* reset = find(r, "kernel.gpu_reset_required");
  ASSERT_NE(reset, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(reset->severity, Severity::kError);
  EXPECT_EQ(quoted(*reset), std::vector<std::string>{"k.txt:1"});
  const Finding* aer = find(r, "kernel.pcie_aer");
  ASSERT_NE(aer, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(aer->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*aer), (std::vector<std::string>{"k.txt:3"}));  // the device's line: one error, not two
}

// The firmware's records of the same through APEI (firmware-first platforms): one record per
// "section_type: PCIe error", its severity from the record's "event severity" line.
TEST(TriagePasted, AerFromTheFirmwaresRecords) {
  const auto record = [](std::string_view severity) {
    return fmt::format(
        "{{8}}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 514\n"
        "{{8}}[Hardware Error]: event severity: {}\n"
        "{{8}}[Hardware Error]:  Error 0, type: {}\n"
        "{{8}}[Hardware Error]:   section_type: PCIe error\n"
        "{{8}}[Hardware Error]:   device_id: 0000:e3:00.0\n",
        severity, severity);
  };
  Report corrected = judged({{"dmesg.txt", record("corrected")}});
  const Finding* c = find(corrected, "kernel.pcie_aer");
  ASSERT_NE(c, nullptr) << testing::PrintToString(codes(corrected));
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*c), (std::vector<std::string>{"dmesg.txt:4"}));
  Report fatal = judged({{"dmesg.txt", record("fatal")}});
  const Finding* f = find(fatal, "kernel.pcie_aer");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(fatal));
  EXPECT_EQ(f->severity, Severity::kError);
  // A memory record is the host memory's, not PCIe's.
  Report memory = judged({{"dmesg.txt",
                           "{1}[Hardware Error]: event severity: corrected\n"
                           "{1}[Hardware Error]:  section_type: memory error\n"}});
  EXPECT_EQ(find(memory, "kernel.pcie_aer"), nullptr) << testing::PrintToString(codes(memory));
}

// The NVLink fabric's own state as the node's tools give it: DCGM's IMEX check (a warning:
// an idle Kubernetes node has no IMEX daemon), nvidia-smi -q's Fabric section with a failed
// registration (an error; Success and N/A are none), CUDA's multicast refused (an error).
TEST(TriagePasted, NvlinkFabricImexAndMulticast) {
  Report imex = judged({{"dcgm.txt",
                         "GpuNvlinkWatch = True   reason=GpuNvlinkWatchIsNotHealthy\n"
                         "  ErrorCode:DCGM_FR_IMEX_UNHEALTHY GPU:0 PCI:0000:9d:00.0\n"
                         "  GPU_UUID:GPU-bb3e1419-... IMEX daemon status is -3 (not READY)\n"}});
  const Finding* i = find(imex, "nvlink.imex_unavailable");
  ASSERT_NE(i, nullptr) << testing::PrintToString(codes(imex));
  EXPECT_EQ(i->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*i), (std::vector<std::string>{"dcgm.txt:2", "dcgm.txt:3"}));
  const auto fabric = [](std::string_view state, std::string_view status) {
    return fmt::format(
        "GPU 00000008:01:00.0\n    Fabric\n        State                             : {}\n"
        "        Status                            : {}\n        CliqueId                          : 0\n"
        "    Processes                             : None\n",
        state, status);
  };
  Report failed = judged({{"smi-q.txt", fabric("Completed", "Insufficient Resources")}});
  const Finding* f = find(failed, "nvlink.fabric_registration_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(failed));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("Insufficient Resources"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"smi-q.txt:3", "smi-q.txt:4"}));
  for (const auto& [state, status] : {std::pair{"Completed", "Success"}, std::pair{"N/A", "N/A"}}) {
    Report fine = judged({{"smi-q.txt", fabric(state, status)}});
    EXPECT_EQ(find(fine, "nvlink.fabric_registration_failed"), nullptr) << status;
  }
  for (const char* line :
       {"[rank0]: AssertionError: CUDA device, driver and/or toolkit version does not support comm+GEMM overlap with "
        "CUDA Multicast. Launch app with UB_SKIPMC=1 to try CUDA IPC instead.",
        "cuMulticastCreate failed: CUDA_ERROR_NOT_SUPPORTED"}) {
    Report m = judged({{"train.log", std::string(line) + "\n"}});
    const Finding* mc = find(m, "nvlink.cuda_multicast_unsupported");
    ASSERT_NE(mc, nullptr) << line << testing::PrintToString(codes(m));
    EXPECT_EQ(mc->severity, Severity::kError);
    EXPECT_NE(mc->hint.find("UB_SKIPMC=1"), std::string::npos) << mc->hint;
  }
}

// Kernels since 4.20 say "Correctable" and "Uncorrectable", and the device's "PCIe Bus
// Error" line carries no "AER:"; the port's summary is counted only where no device line is.
TEST(TriagePasted, AerInTheNewerKernelsWords) {
  Report r = judged({{"k.txt",
                      "[Tue Mar  4 02:11:09 2025] pcieport 0000:80:03.1: AER: Multiple Correctable error message "
                      "received from 0000:81:00.0\n"
                      "[Tue Mar  4 02:11:09 2025] mlx5_core 0000:81:00.0: PCIe Bus Error: severity=Correctable, "
                      "type=Physical Layer, (Receiver ID)\n"
                      "[Tue Mar  4 02:11:09 2025] mlx5_core 0000:81:00.0:   device [15b3:101d] error "
                      "status/mask=00000001/00000000\n"
                      "[Tue Mar  4 02:11:09 2025] mlx5_core 0000:81:00.0:    [ 0] RxErr\n"}});
  const Finding* aer = find(r, "kernel.pcie_aer");
  ASSERT_NE(aer, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(aer->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*aer), (std::vector<std::string>{"k.txt:2"}));
  Report fatal = judged({{"k.txt",
                          "[ 8812.004411] pcieport 0000:40:01.1: AER: Uncorrectable (Fatal) error message received "
                          "from 0000:41:00.0\n"}});
  const Finding* f = find(fatal, "kernel.pcie_aer");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(fatal));
  EXPECT_EQ(f->severity, Severity::kError);
}

// CUDA's error 217 in a program's own log (here a custom all-reduce's), and the driver's
// module at another version than its libraries: nvidia-smi's line and the kernel's.
TEST(TriagePasted, PeerAccessUnsupportedAndDriverMismatch) {
  Report r = judged({{"serve.log",
                      "INFO 04-02 10:11:12 custom_all_reduce.py:112] initializing custom allreduce\n"
                      "RuntimeError: CUDA error: peer access is not supported between these two devices\n"}});
  const Finding* p2p = find(r, "topo.p2p_unsupported");
  ASSERT_NE(p2p, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(p2p->severity, Severity::kError);
  EXPECT_EQ(quoted(*p2p), std::vector<std::string>{"serve.log:2"});
  // The same error in NCCL's SHM transport is its cuMem host memory asking for peer access.
  Report shm = judged({{"nccl.log",
                        "[2025-09-09 23:51:24] h1:774:854 [0] transport/shm.cc:590 NCCL WARN Cuda failure 217 'peer "
                        "access is not supported between these two devices'\n"}});
  const Finding* cumem = find(shm, "nccl.cumem_host_needs_p2p");
  ASSERT_NE(cumem, nullptr) << testing::PrintToString(codes(shm));
  EXPECT_EQ(cumem->severity, Severity::kError);
  EXPECT_NE(cumem->hint.find("NCCL_CUMEM_HOST_ENABLE=0"), std::string::npos) << cumem->hint;
  EXPECT_EQ(find(shm, "topo.p2p_unsupported"), nullptr) << testing::PrintToString(codes(shm));
  Report d = judged({{"node.txt",
                      "$ nvidia-smi\n"
                      "Failed to initialize NVML: Driver/library version mismatch\n"
                      "NVML library version: 550.127\n"
                      "[  311.502208] NVRM: API mismatch: the client has the version 550.127.08, but\n"
                      "[  311.502209] NVRM: this kernel module has the version 550.90.07.  Please\n"}});
  const Finding* m = find(d, "kernel.driver_mismatch");
  ASSERT_NE(m, nullptr) << testing::PrintToString(codes(d));
  EXPECT_EQ(m->severity, Severity::kError);
  EXPECT_EQ(quoted(*m), (std::vector<std::string>{"node.txt:2", "node.txt:4"}));
  // NCCL's INFO lines are not read for them; a healthy nvidia-smi says nothing.
  Report quiet = judged({{"ok.log", "h1:7:7 [0] NCCL INFO P2P/IPC: peer access is not supported here, using SHM\n"}});
  EXPECT_EQ(find(quiet, "topo.p2p_unsupported"), nullptr);
}

// CUDA's error 217 opening a peer's IPC handle where every NCCL process of the node logs device
// 0: each rank sees only a GPU of its own (ray#16979's shape, Ray's "(pid=N)" prefix kept).
// Where one process logs device 1 the ranks see each other's GPUs, and it is the GPUs' path.
TEST(TriagePasted, PeerAccessUnsupportedWhereEachRankSeesOneGpu) {
  const std::string split =
      "(pid=11) n1:11:21 [0] NCCL INFO Channel 00 : 3[b0] -> 0[80] via P2P/IPC\n"
      "(pid=11) n1:11:21 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 217 peer access is "
      "not supported between these two devices\n"
      "(pid=12) n1:12:22 [0] NCCL INFO Trees [0] 2/-1/-1->1->0|0->1->2/-1/-1\n"
      "(pid=13) n1:13:23 [0] NCCL INFO Trees [0] 3/-1/-1->2->1|1->2->3/-1/-1\n";
  Report r = judged({{"ray.log", split}});
  const Finding* f = find(r, "launcher.visible_devices_split");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("each of the 3 NCCL processes"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"ray.log:2", "ray.log:1", "ray.log:3"}));
  EXPECT_EQ(find(r, "topo.p2p_unsupported"), nullptr) << testing::PrintToString(codes(r));
  std::string seen = split;
  seen.replace(seen.find("n1:13:23 [0]"), 12, "n1:13:23 [1]");
  Report shared = judged({{"ray.log", seen}});
  EXPECT_EQ(find(shared, "launcher.visible_devices_split"), nullptr) << testing::PrintToString(codes(shared));
  EXPECT_NE(find(shared, "topo.p2p_unsupported"), nullptr) << testing::PrintToString(codes(shared));
  // One process alone on the host says nothing of the others.
  Report one = judged({{"one.log", split.substr(0, split.find("(pid=12)"))}});
  EXPECT_EQ(find(one, "launcher.visible_devices_split"), nullptr) << testing::PrintToString(codes(one));
}

// The peer-access tools in their own words: a finding where no pair listed has access,
// nothing where some pairs have it (many PCIe servers across their sockets) or where one GPU
// is all nvbandwidth saw.
TEST(TriagePasted, PeerAccessToolsSayingNoPairHasIt) {
  auto p2p_lines = [](const std::string& text) {
    Report r = judged({{"p2p.txt", text}});
    const Finding* f = find(r, "topo.p2p_unsupported");
    if (f == nullptr) return std::vector<std::string>{};
    EXPECT_EQ(f->severity, Severity::kWarning);
    return quoted(*f);
  };
  const std::string simple =
      "[./simpleP2P] - Starting...\n"
      "Checking for multiple GPUs...\n"
      "CUDA-capable device count: 2\n\n"
      "Checking GPU(s) for support of peer to peer memory access...\n"
      "> Peer access from NVIDIA GeForce RTX 4090 (GPU0) -> NVIDIA GeForce RTX 4090 (GPU1) : No\n"
      "> Peer access from NVIDIA GeForce RTX 4090 (GPU1) -> NVIDIA GeForce RTX 4090 (GPU0) : No\n"
      "Two or more GPUs with Peer-to-Peer access capability are required for ./simpleP2P.\n"
      "Peer to Peer access is not available amongst GPUs in the system, waiving test.\n";
  EXPECT_EQ(p2p_lines(simple), (std::vector<std::string>{"p2p.txt:6", "p2p.txt:7", "p2p.txt:9"}));
  // deviceQuery on a server where the pairs across the sockets have none: no finding.
  EXPECT_EQ(p2p_lines("> Peer access from NVIDIA A100 (GPU0) -> NVIDIA A100 (GPU1) : Yes\n"
                      "> Peer access from NVIDIA A100 (GPU0) -> NVIDIA A100 (GPU2) : No\n"),
            std::vector<std::string>{});
  EXPECT_EQ(p2p_lines("[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
                      "Device: 0, NVIDIA GeForce RTX 3090, pciBusID: 1, pciDeviceID: 0, pciDomainID:0\n"
                      "Device: 1, NVIDIA GeForce RTX 3090, pciBusID: 2, pciDeviceID: 0, pciDomainID:0\n"
                      "Device=0 CANNOT Access Peer Device=1\n"
                      "Device=1 CANNOT Access Peer Device=0\n"),
            (std::vector<std::string>{"p2p.txt:4", "p2p.txt:5"}));
  // nvidia-smi topo -p2p r: its legend alone says nothing, its matrix does; topo -m's rows are
  // not read as one.
  const std::string legend =
      "Legend:\n\n  X    = Self\n  OK   = Status Ok\n  CNS  = Chipset not supported\n"
      "  GNS  = GPU not supported\n  TNS  = Topology not supported\n  NS   = Not supported\n  U    = Unknown\n";
  EXPECT_EQ(p2p_lines(" \tGPU0\tGPU1\t\n GPU0\tX\tCNS\t\n GPU1\tCNS\tX\t\n\n" + legend),
            (std::vector<std::string>{"p2p.txt:2", "p2p.txt:3"}));
  EXPECT_EQ(p2p_lines(" \tGPU0\tGPU1\t\n GPU0\tX\tOK\t\n GPU1\tOK\tX\t\n\n" + legend), std::vector<std::string>{});
  EXPECT_EQ(p2p_lines("\tGPU0\tGPU1\tCPU Affinity\n GPU0\tX\tSYS\t0-31\n GPU1\tSYS\tX\t0-31\n"),
            std::vector<std::string>{});
  // nvbandwidth before 0.5: its waived device-to-device tests, with two GPUs in its matrices.
  const std::string waived =
      "Waiving device_to_device_memcpy_read_ce.\n\nWaiving device_to_device_memcpy_write_ce.\n\n";
  const std::string h2d = "Running host_to_device_memcpy_ce.\nmemcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n";
  EXPECT_EQ(p2p_lines(h2d + "          0         1\n0     24.12     24.35\n\n" + waived),
            (std::vector<std::string>{"p2p.txt:6", "p2p.txt:8"}));
  EXPECT_EQ(p2p_lines(h2d + "          0\n0     24.12\n\n" + waived), std::vector<std::string>{});
  EXPECT_EQ(p2p_lines("Device 0: NVIDIA GeForce RTX 2080 Ti\nDevice 1: NVIDIA GeForce RTX 2080 Ti\n" + waived).size(),
            2u);
}

// A container's cgroup v1 device list: the NVIDIA devices (major 195) without read and write
// is the GPUs taken away; with them, or with every device allowed, nothing.
TEST(TriagePasted, DeviceCgroupWithoutTheGpus) {
  Report lost =
      judged({{"devices.txt", "$ cat /sys/fs/cgroup/devices/devices.list\nc 1:3 rwm\nc 136:* rwm\nc 195:* m\n"}});
  const Finding* f = find(lost, "container.gpu_access_lost");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(lost));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"devices.txt:4"});
  Report denied = judged({{"smi.txt", "$ nvidia-smi\nFailed to initialize NVML: Insufficient Permissions\n"}});
  f = find(denied, "container.gpu_access_lost");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(denied));
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"smi.txt:2"});
  for (const char* ok : {"c 195:* m\nc 195:0 rw\n", "a *:* rwm\nc 195:* m\n", "c 1:3 rwm\nc 136:* rwm\n"}) {
    Report r = judged({{"devices.txt", ok}});
    EXPECT_EQ(find(r, "container.gpu_access_lost"), nullptr) << ok;
  }
}

// The files table's lines not read: counted where only line readers read the file (here
// NCCL lines, a framework error and a kernel line around an application's own output),
// blank lines not; not counted where a table reader read the other lines whole.
TEST(TriageFiles, LinesNotReadAreCountedWithTheFirstFew) {
  Facts facts;
  gather("job.log",
         "h1:7:7 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
         "epoch 1 step 10 loss 2.31\n"
         "\n"
         "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled system error\n"
         "[  12.345678] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n"
         "epoch 1 step 20 loss 2.29\n",
         facts);
  ASSERT_EQ(facts.files.size(), 1u);
  EXPECT_EQ(facts.files[0].lines_not_read, 2);
  EXPECT_EQ(facts.files[0].not_read_examples,
            (std::vector<std::string>{"line 2: epoch 1 step 10 loss 2.31", "line 6: epoch 1 step 20 loss 2.29"}));
  gather("counters.txt",
         "ethtool -S eth2\n     rx_packets: 10\n     tx_packets: 12\n     rx_crc_errors_phy: 0\n"
         "     rx_discards_phy: 0\n     tx_pause_ctrl_phy: 3\n",
         facts);
  ASSERT_EQ(facts.files.size(), 2u);
  EXPECT_EQ(facts.files[1].kinds, std::vector<std::string>{"counters"});
  EXPECT_EQ(facts.files[1].lines_not_read, 0);
  gather("table.txt",
         "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
         "busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
         "(GB/s)       \n"
         "    33554432       8388608     float     sum      -1    855.9   39.20   73.51      0   1003.6   33.43   "
         "62.69      0\n"
         "# Out of bounds values : 0 OK\n"
         "# Avg bus bandwidth    : 52.7626 \n",
         facts);
  ASSERT_EQ(facts.files.size(), 3u);
  ASSERT_EQ(facts.files[2].kinds, std::vector<std::string>{"nccl-tests"});
  EXPECT_EQ(facts.files[2].lines_not_read, -1);  // the table reader read it whole
}

// RoCE dropping packets with neither PFC nor ECN ever acting: a warning for the file; a
// pause counter that moved, or a listing without ECN/CNP counters, says nothing of it.
TEST(TriagePasted, RoceLossWithoutFlowControl) {
  auto listing = [](const std::string& prio3_pause, bool with_ecn) {
    std::string t =
        "ethtool -S ens1f0np0\n"
        "     rx_vport_rdma_unicast_packets: 981234567\n"
        "     tx_vport_rdma_unicast_packets: 978812345\n"
        "     rx_discards_phy: 18231\n"
        "     rx_pause_ctrl_phy: 0\n"
        "     tx_pause_ctrl_phy: 0\n"
        "     rx_prio3_pause: " +
        prio3_pause + "\n     tx_prio3_pause: 0\n";
    if (with_ecn) t += "     np_ecn_marked_roce_packets: 0\n     np_cnp_sent: 0\n     rp_cnp_handled: 0\n";
    return t + "     out_of_sequence: 5120\n";
  };
  Report r = judged({{"ethtool.txt", listing("0", true)}});
  const Finding* f = find(r, "counters.roce_no_flow_control");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->subject, "RoCE in ethtool.txt");
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"ethtool.txt:4", "ethtool.txt:12"}));
  EXPECT_EQ(find(judged({{"ethtool.txt", listing("412", true)}}), "counters.roce_no_flow_control"), nullptr);
  EXPECT_EQ(find(judged({{"ethtool.txt", listing("0", false)}}), "counters.roce_no_flow_control"), nullptr);
}

// NCCL's interface search found nothing (NCCL_SOCKET_IFNAME matching no interface): both
// of NCCL's wordings, with the usual prefix and bare; not a socket connect or accept.
TEST(TriagePasted, NoSocketInterfaceIsTheIfnameFilter) {
  Report r = judged({{"boot.log",
                      "gpu3:4101:4101 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to ib0\n"
                      "gpu3:4101:4101 [0] bootstrap.cc:1095 NCCL WARN Bootstrap : no socket interface found\n"
                      "gpu3:4101:4101 [0] NCCL INFO init.cc:1720 -> 3\n"}});
  const Finding* f = find(r, "nccl.socket_ifname_no_match");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"boot.log:2"});
  EXPECT_EQ(find(r, "nccl.socket_connect"), nullptr);
  Report net = judged({{"w.txt", "NCCL WARN NET/Socket : no interface found\n"}});
  EXPECT_NE(find(net, "nccl.socket_ifname_no_match"), nullptr) << testing::PrintToString(codes(net));
}

// Ranks NCCL connects within a node (P2P, SHM) are on one node: a peer on a GPU another rank
// of that host holds, which logs nothing there itself, is a node NCCL took for this one. Not
// judged where a process shows two ranks (several communicators), nor from receive lines.
TEST(TriageHostIdentity, PeerOnAGpuAnotherRankHoldsIsAnotherNode) {
  const std::string old =
      "learngpu060:101:201 [2] INFO Ring 00 : 2[2] -> 3[3] via P2P/IPC\n"
      "learngpu060:102:202 [3] INFO Ring 00 : 3[3] -> 7[7] via P2P/IPC\n"
      "learngpu060:106:206 [6] INFO Ring 00 : 6[6] -> 10[2] via P2P/IPC\n";
  const Report r = judged({{"ring.log", old}});
  const Finding* f = find(r, "nccl.host_identity_collision");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("rank 10"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("rank 2's"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"ring.log:3", "ring.log:1"}));
  EXPECT_EQ(name(r.verdict.result), "fail");

  // 2.19's channel lines of one healthy node: every peer is a rank that logs there.
  const std::string healthy =
      "n1:11:21 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "n1:12:22 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via SHM/direct/direct\n"
      "n1:12:22 [1] NCCL INFO Channel 01/0 : 3[1] -> 1[1] [receive] via NET/IB/0\n";
  EXPECT_EQ(find(judged({{"ok.log", healthy}}), "nccl.host_identity_collision"), nullptr);

  // Two communicators in one log, numbered apart: process 12 is rank 1 in one, 0 in the other.
  const std::string two_comms =
      "n1:11:21 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
      "n1:12:22 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC\n"
      "n1:12:22 [1] NCCL INFO Channel 00/0 : 0[1] -> 5[0] via P2P/IPC\n";
  EXPECT_EQ(find(judged({{"two.log", two_comms}}), "nccl.host_identity_collision"), nullptr);
}

// NCCL before 2.4 printed WARN without the word NCCL, and a pasted line may keep only the
// source location: both are NCCL's, their host where the prefix names it. A socket created
// with no address family is NCCL having found no interface at all. A WARN after anything
// but a C or CUDA source location is not NCCL's.
TEST(TriagePasted, OldAndBareWarnLinesAndNoInterfaceAtAll) {
  topo::NcclLogLine l;
  ASSERT_TRUE(topo::split_nccl_line("box7:88:88 [1] misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]", l));
  EXPECT_EQ(l.host, "box7");
  EXPECT_EQ(l.dev, 1);
  EXPECT_EQ(l.level, "WARN");
  EXPECT_EQ(l.msg, "Failed to open libibverbs.so[.1]");
  ASSERT_TRUE(topo::split_nccl_line("  include/socket.h:290 WARN Socket creation failed : x", l));
  EXPECT_EQ(l.host, topo::kUnnamedHost);
  EXPECT_EQ(l.msg, "Socket creation failed : x");
  EXPECT_FALSE(topo::split_nccl_line("2024-01-02 10:00:00 WARN disk almost full", l));
  EXPECT_FALSE(topo::split_nccl_line("[1700000000.1] [h:1:0] ib_iface.c:9 UCX  WARN  x", l));
  EXPECT_FALSE(topo::split_nccl_line("train.py:12 WARN lr too high", l));
  // NCCL before 2.3: INFO without the word NCCL, after a whole host:pid:tid [dev].
  ASSERT_TRUE(topo::split_nccl_line("learngpu060:3728589:3730445 [2] INFO Ring 00 : 2[2] -> 3[3] via P2P/IPC", l));
  EXPECT_EQ(l.host, "learngpu060");
  EXPECT_EQ(l.dev, 2);
  EXPECT_EQ(l.level, "INFO");
  EXPECT_EQ(l.msg, "Ring 00 : 2[2] -> 3[3] via P2P/IPC");
  EXPECT_FALSE(topo::split_nccl_line("[2024-01-02 10:00:00] [3] INFO started", l));
  EXPECT_FALSE(topo::split_nccl_line("worker:main:loop [0] INFO step 10", l));
  Report r = judged({{"w.txt",
                      "box7:88:88 [0] misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]\n"
                      "box7:88:88 [0] include/socket.h:290 WARN Socket creation failed : Address family not "
                      "supported by protocol\n"}});
  const Finding* f = find(r, "nccl.socket_ifname_no_match");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"w.txt:2"});
  EXPECT_EQ(find(r, "nccl.no_ib_device"), nullptr);
}

// NCCL's error trace through socket.cc and bootstrap.cc with no warning: the bootstrap's
// sockets failed, with its interface where a line names it (an IPoIB one said so). A trace
// elsewhere (the net plugin's probe, which NCCL survives) says nothing; a warning that
// names the socket failure stands for the trace.
TEST(TriagePasted, BootstrapTraceThroughItsSockets) {
  Report r = judged({{"init.log",
                      "n3:51:60 [2] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ibs2:10.8.0.3<0>\n"
                      "n3:51:60 [2] NCCL INFO misc/socket.cc:480 -> 2\n"
                      "n3:51:60 [2] NCCL INFO misc/socket.cc:530 -> 2\n"
                      "n3:51:60 [2] NCCL INFO bootstrap.cc:300 -> 2\n"
                      "n3:51:60 [2] NCCL INFO init.cc:1400 -> 2\n"}});
  const Finding* f = find(r, "nccl.socket_connect");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"init.log:2", "init.log:4"}));
  EXPECT_EQ(f->evidence.at("bootstrap_interface"), "ibs2:10.8.0.3");
  EXPECT_NE(f->message.find("IPoIB"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("system error"), std::string::npos) << f->message;
  Report probe = judged({{"p.log",
                          "n3:51:51 [0] NCCL INFO plugin/net.cc:118 -> 2\n"
                          "n3:51:51 [0] NCCL INFO misc/socket.cc:480 -> 3\n"
                          "n3:51:51 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.3<0>\n"}});
  EXPECT_EQ(find(probe, "nccl.socket_connect"), nullptr) << testing::PrintToString(codes(probe));
  Report warned = judged({{"w.log",
                           "n3:51:60 [2] misc/socket.cc:470 NCCL WARN Net : Connect to 10.0.0.4<4000> failed : "
                           "Connection refused\n"
                           "n3:51:60 [2] NCCL INFO misc/socket.cc:480 -> 2\n"
                           "n3:51:60 [2] NCCL INFO bootstrap.cc:300 -> 2\n"}});
  int connects = 0;
  for (const Finding& w : warned.findings) connects += w.code == "nccl.socket_connect";
  EXPECT_EQ(connects, 1) << testing::PrintToString(codes(warned));
}

// CUDA's 802 in any program's output is the NVLink fabric not up (Fabric Manager), with its
// service's failure folded in; Fabric Manager's own reason (a version) stands instead. The
// driver refusing to pin GPU memory for GPUDirect RDMA is an error, stamped or bare.
TEST(TriagePasted, CudaSystemNotReadyAndGpudirectPinFailed) {
  Report r = judged({{"run.txt",
                      "$ python -c 'import torch; torch.zeros(1).cuda()'\n"
                      "RuntimeError: CUDA error: system not yet initialized\n"},
                     {"svc.txt",
                      "nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
                      "   Active: inactive (dead)\n"}});
  const Finding* f = find(r, "nvlink.fm_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"run.txt:2", "svc.txt:2"}));
  int fm = 0;
  for (const Finding& g : r.findings) fm += g.code == "nvlink.fm_failed";
  EXPECT_EQ(fm, 1);
  Report version = judged({{"fm.log",
                            "[ERROR] [tid 88] fabric manager NVIDIA GPU driver interface version 535.54.03 don't "
                            "match with driver version 535.104.05\n"
                            "CUDA error at x.cu:9 code=802(cudaErrorSystemNotReady) \"cudaSetDevice(0)\"\n"}});
  EXPECT_NE(find(version, "nvlink.fm_version_mismatch"), nullptr) << testing::PrintToString(codes(version));
  EXPECT_EQ(find(version, "nvlink.fm_failed"), nullptr) << testing::PrintToString(codes(version));
  Report pin = judged({{"k.txt",
                        "[ 812.5] nvidia-peermem nv_get_p2p_pages: nvidia_p2p_get_pages failed, ret -22\n"
                        "gdrdrv:nvidia_p2p_get_pages(va=7f00 len=65536 p2p_token=0 va_space=0) failed [ret = -12]\n"}});
  const Finding* p = find(pin, "kernel.gpudirect_pin_failed");
  ASSERT_NE(p, nullptr) << testing::PrintToString(codes(pin));
  EXPECT_EQ(p->severity, Severity::kError);
  EXPECT_EQ(quoted(*p), (std::vector<std::string>{"k.txt:1", "k.txt:2"}));
  // The module and its GSP firmware at different versions, in either of the module's words.
  Report gsp = judged({{"boot.txt",
                        "NVRM: GPU0 _kgspFwContainerVerifyVersion: GSP firmware image version mismatch:\n"
                        "got version 560.35.03, expected version 560.28.03\n"
                        "[ 9.1] nvidia 0000:41:00.0: Direct firmware load for nvidia/560.28.03/gsp_tu10x.bin failed "
                        "with error -2\n"
                        "[ 9.2] iwlwifi 0000:02:00.0: Direct firmware load for iwlwifi-ty-a0-gf-a0-83.ucode failed "
                        "with error -2\n"}});
  const Finding* m = find(gsp, "kernel.driver_mismatch");
  ASSERT_NE(m, nullptr) << testing::PrintToString(codes(gsp));
  EXPECT_EQ(quoted(*m), (std::vector<std::string>{"boot.txt:1", "boot.txt:3"}));
  Report quiet = judged({{"ok.txt", "nvidia_p2p_get_pages returned 0 for 16 pages\nsystem initialized\n"}});
  EXPECT_EQ(find(quiet, "kernel.gpudirect_pin_failed"), nullptr);
  EXPECT_EQ(find(quiet, "nvlink.fm_failed"), nullptr);
}

// NCCL's topology: its XML lacking an attribute (a topology file for another machine), and
// a device's PCI path missing from sysfs; each its own error, first failing process named.
TEST(TriagePasted, TopologyFileAndSysfsPathWarnings) {
  Report r = judged({{"a.log",
                      "g1:70:80 [3] NCCL INFO NCCL_TOPO_FILE set by environment to /etc/topo/p4d.xml\n"
                      "g1:70:80 [3] graph/xml.h:77 NCCL WARN Attribute numaid of node cpu not found\n"
                      "g1:70:80 [3] NCCL INFO graph/topo.cc:400 -> 3\n"},
                     {"b.log",
                      "wsl:9:12 [0] graph/xml.cc:300 NCCL WARN Could not find real path of "
                      "/sys/class/pci_bus/0000:02/../../0000:02:00.0\n"
                      "wsl:9:12 [0] NCCL INFO graph/xml.cc:450 -> 2\n"}});
  const Finding* topo = find(r, "nccl.topo_file_invalid");
  ASSERT_NE(topo, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(topo->severity, Severity::kError);
  EXPECT_EQ(quoted(*topo), std::vector<std::string>{"a.log:2"});
  const Finding* sysfs = find(r, "nccl.pci_sysfs_missing");
  ASSERT_NE(sysfs, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*sysfs), std::vector<std::string>{"b.log:1"});
  EXPECT_EQ(find(r, "nccl.warn"), nullptr) << testing::PrintToString(codes(r));
}

// nvidia-smi's lost GPU needs a reboot; perftest on a RoCE port with a GID of zeros has no
// RoCE GID (an IB port's perftest prints no GID line; a RoCE port's real GID says nothing).
TEST(TriagePasted, LostGpuAndRocePerftestWithoutGid) {
  Report lost = judged({{"smi.txt",
                         "Unable to determine the device handle for GPU 0000:41:00.0: GPU is lost.  Reboot the system "
                         "to recover this GPU\n"}});
  const Finding* l = find(lost, "kernel.gpu_reset_required");
  ASSERT_NE(l, nullptr) << testing::PrintToString(codes(lost));
  EXPECT_EQ(l->severity, Severity::kError);
  // The same line with NVML's "Unknown Error": a GPU fallen off the bus (gpud's Xid 79 notes).
  Report unknown = judged({{"smi.txt", "Unable to determine the device handle for GPU0000:91:00.0: Unknown Error\n"}});
  ASSERT_NE(find(unknown, "kernel.gpu_reset_required"), nullptr) << testing::PrintToString(codes(unknown));
  const std::string header =
      " Dual-port       : OFF\t\tDevice         : mlx5_1\n"
      " Link type       : Ethernet\n"
      " GID index       : 3\n"
      "---------------------------------------------------------------------------------------\n";
  Report roce = judged({{"bw.txt", header + " local address: LID 0000 QPN 0x0101 PSN 0x1\n"
                                            " GID: 00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00\n"
                                            " remote address: LID 0000 QPN 0x0102 PSN 0x2\n"
                                            " GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:0:0:2\n"
                                            "Failed to modify QP 257 to RTR\n"}});
  const Finding* g = find(roce, "topo.roce_gid_empty");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(roce));
  EXPECT_EQ(quoted(*g), std::vector<std::string>{"bw.txt:6"});
  Report fine = judged({{"ok.txt", header + " GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:0:0:1\n"}});
  EXPECT_EQ(find(fine, "topo.roce_gid_empty"), nullptr) << testing::PrintToString(codes(fine));
}

// CUDA's and the application's failures as NCCL reports them: each its own code.
TEST(TriagePasted, NcclWarningsOfCudaAndOfTheApplication) {
  const std::pair<const char*, const char*> cases[] = {
      {"n1:5:9 [0] transport/net.cc:900 NCCL WARN Message truncated : received 4096 bytes instead of 2048",
       "nccl.message_truncated"},
      {"n1:5:5 [1] init.cc:300 NCCL WARN Cuda failure 'out of memory'", "nccl.cuda_oom"},
      {"n1:5:5 [1] include/alloc.h:48 NCCL WARN Failed to CUDA calloc 4194304 bytes", "nccl.cuda_oom"},
      {"n1:5:5 [0] init.cc:1200 NCCL WARN Cuda failure 'CUDA driver version is insufficient for CUDA runtime "
       "version'",
       "nccl.cuda_driver_too_old"},
      {"n1:5:5 [9] init.cc:1500 NCCL WARN Cuda failure 'invalid device ordinal'", "nccl.invalid_device"},
      // Built from NCCL 2.28.9's WARN wordings (bench/nccl_warn_coverage.py lists them) and CUDA's error strings.
      {"n1:5:5 [1] init.cc:904 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1b000",
       "nccl.duplicate_gpu"},
      // perftest's failed completions, by status, in its forms before 2025, since, and now.
      {" Failed status 12: wr_id 0 syndrom 0x81", "nccl.ib_retry_exceeded"},
      {" Failed status 4: qp_num 1234 wr_id 0 syndrom 0x33", "nccl.ib_local_protection"},
      {" Failed status-remote access error (10): wr_id 0 syndrom 0x88", "nccl.ib_completion_error"},
      // The same check quoted without NCCL's prefix, as a write-up or a framework gives it.
      {"Error: rank 27 and rank 19 both on CUDA device 53000 (PCI 53:00.0)", "nccl.duplicate_gpu"},
      {"n1:5:9 [0] enqueue.cc:1400 NCCL WARN Cuda failure 700 'an illegal memory access was encountered'",
       "nccl.cuda_kernel_fault"},
      {"n1:5:9 [0] proxy.cc:800 NCCL WARN Cuda failure 'unspecified launch failure'", "nccl.cuda_kernel_fault"},
      {"n1:5:9 [3] init.cc:300 NCCL WARN Cuda failure 'uncorrectable ECC error encountered'", "nccl.cuda_ecc"},
      {"n1:5:5 [0] init.cc:1700 NCCL WARN Cuda failure 'no CUDA-capable device is detected'", "nccl.no_cuda_device"},
      {"n1:5:5 [0] init.cc:1700 NCCL WARN Cuda failure 'all CUDA-capable devices are busy or unavailable'",
       "nccl.gpu_unavailable"},
      {"n1:5:5 [0] enqueue.cc:60 NCCL WARN Cuda failure 'no kernel image is available for execution on the device'",
       "nccl.no_kernel_image"},
      {"n1:5:5 [0] graph/paths.cc:320 NCCL WARN P2P is disabled between NVLINK connected GPUs 1 and 0. This should "
       "not be the case given their connectivity, and is probably due to a hardware issue.",
       "nccl.p2p_disabled_nvlink"},
      {"n1:5:7 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory",
       "nccl.ib_memlock"},
      {"n1:5:5 [0] graph/search.cc:851 NCCL WARN XML Import Channel : dev 4 not found.", "nccl.topo_file_invalid"},
      {"n1:5:5 [0] graph/xml.cc:1041 NCCL WARN Could not open XML graph file /opt/graph.xml : No such file or "
       "directory",
       "nccl.topo_file_invalid"},
      {"n1:5:7 [3] nccl_net_ofi_rdma.cpp:617 NCCL WARN NET/OFI Unable to register memory (type = 2) for device 3. "
       "RC: -22, Error: Invalid argument",
       "nccl.ofi_register_failed"},
      {"n1:5:8 [0] transport/net_ib/common.cc:179 NCCL WARN NET/IB : mlx5_2:1 Got non-fatal async event: port "
       "error(10)",
       "nccl.ib_port_error"},
      {"n1:5:8 [0] transport/net_ib.cc:90 NCCL WARN NET/IB : Got async event : port error", "nccl.ib_port_error"},
      // A QP's access violation, in 2.19-2.28's fatal form and the older one: not a device's fatal event.
      {"n1:5:8 [0] transport/net_ib.cc:231 NCCL WARN NET/IB : mlx5_1:1 async fatal event on QP (0x5581c0): local "
       "access violation work queue error",
       "nccl.ib_qp_access_error"},
      {"n1:5:8 [0] transport/net_ib.cc:100 NCCL WARN NET/IB : mlx5_0:1 Got async event : local access violation "
       "work queue error",
       "nccl.ib_qp_access_error"},
      {"n1:5:8 [0] transport/net_ib/common.cc:123 NCCL WARN NET/IB : mlx5_0:1 async fatal event: local catastrophic "
       "error",
       "nccl.ib_fatal_event"},
      {"n1:5:8 [0] transport/net_ib/connect.cc:987 NCCL WARN NET/IB : Attempted to connect incompatible devices: "
       "[0]mlx5_0:1/IB and [0]mlx5_4:1/RoCE. Try selecting NICs of only one link type using NCCL_IB_HCA",
       "nccl.ib_incompatible_devices"},
      {"RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, invalid usage (run with NCCL_DEBUG=WARN for "
       "details), NCCL version 2.21.5",
       "nccl.invalid_usage"},
      {"n1:5:5 [0] init.cc:1800 NCCL WARN Invalid rank requested : 4/4", "nccl.invalid_usage"},
      {"n1:5:5 [0] bootstrap.cc:334 NCCL WARN Bootstrap Root : rank 1 of 4 ranks has already checked in",
       "nccl.invalid_usage"},
      {"n1:5:5 [0] transport/net_ib.cc:600 NCCL WARN NET/IB : No IP interface found.", "nccl.socket_ifname_no_match"},
      {"n1:5:5 [0] graph/xml.cc:90 NCCL WARN XML Parse : Unexpected EOF", "nccl.topo_file_invalid"},
      {"n1:5:5 [0] misc/shmutils.cc:90 NCCL WARN Error: failed to extend /dev/shm/nccl-Xz1 to 9637892 bytes, error: "
       "No space left on device (28)",
       "nccl.shm_exhausted"},
      {"n1:5:5 [0] misc/cudawrap.cc:200 NCCL WARN CUDA Driver version found is 11040. Minimum requirement is 12000",
       "nccl.cuda_driver_too_old"},
      {"n1:5:8 [0] transport/net_ib.cc:1300 NCCL WARN NET/IB : Remote mlx5_0 device is incompatible with the local "
       "[0]mlx5_4:1/RoCE. Try selecting NICs of only one link type using NCCL_IB_HCA",
       "nccl.ib_incompatible_devices"},
      // NCCL 2.30's wording of two ranks on one GPU.
      {"n1:5:5 [0] init.cc:1057 NCCL WARN Multiple Ranks are using the same GPU/Partition. Set "
       "NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
       "nccl.duplicate_gpu"},
      {"n1:5:5 [3] init.cc:1339 NCCL WARN Detected mixed local Net device counts across ranks (min 1, max 4). Set "
       "NCCL_IGNORE_NET_MISMATCH=1 to continue.",
       "nccl.ib_list_mismatch"},
      // The topology search giving up: NCCL 2.3-2.4's rings, 2.5 on's search.
      {"misc/rings.cu:319 NCCL WARN Could not create rings, falling back on simple ring", "nccl.topology_fallback"},
      {"n1:5:5 [0] graph/search.cc:556 NCCL WARN Could not find a path for pattern 4, falling back to simple order",
       "nccl.topology_fallback"},
      // NCCL 2.25-2.26's fallback naming a NET that NIC fusion took away (NVIDIA/nccl#1748).
      {"n1:5:5 [0] graph/topo.h:230 NCCL WARN Could not find NET with id 0", "nccl.known_bug"},
      // NCCL before 2.20.5 binding one Unix-domain socket name for split communicators (nccl#1185).
      {"h:33:10589 [2] misc/ipcsocket.cc:57 NCCL WARN UDS: Binding to socket /tmp/nccl-socket-2-e647f8d8e15809a1 "
       "failed : Address already in use (98)",
       "nccl.known_bug"},
      // NCCL's connect retry before 2.24 (nccl#1515), its warning quoted alone in backticks.
      {"`socketStartConnect: Connect to 10.45.234.83<47527> failed : Software caused connection abort`",
       "nccl.socket_connect"},
      // UCX's CMA transport refused by ptrace's rules.
      {"[1699871234.123456] [node1:12345:0]          cma_ep.c:81   UCX  ERROR process_vm_readv(pid=12346 "
       "{0x7f00,8192}-->{0x7f00,8192}) returned -1: Operation not permitted",
       "limits.ptrace_denied"},
      // UCX's IB transport without a case for the port's speed (NDR's 128 before UCX 1.13).
      {"[1731632081.707655] [gpu46:69078:0]        ib_iface.c:1674 UCX  ERROR Invalid active_speed on mlx5_0:1: 128",
       "ucx.port_speed_unknown"},
      // NCCL 2.3-2.20's own size check over InfiniBand.
      {"node1:1234:1290 [0] transport/net_ib.cc:1119 NCCL WARN NET/IB : req 1/1 tag 7 peer 10.0.0.2<37457> "
       "collective mismatch error, local size 1048576 remote size 262144",
       "nccl.collective_mismatch"},
      // UCX unable to open a transport on a device it lists (Azure's MANA: no UD queue pairs).
      {"[1741000000.123456] [runner:2345:0]     uct_iface.c:158  UCX  ERROR uct_iface_open(ud_verbs/mana_0:1) failed: "
       "Input/output error",
       "ucx.transport_open_failed"},
      // MindSpore's collective library unloadable: NCCL or Open MPI missing, or NCCL too old.
      {"Loading libgpu_collective.so failed. Many reasons could cause this:", "framework.nccl_library_mismatch"},
      // Its RC transport's shared receive queue on a device without RC (EFA, ucx#6882).
      {"[1622579912.469497] [ip-172-31-71-148:53521:0]        rc_iface.c:492  UCX  ERROR ibv_create_srq() failed: "
       "Operation not supported",
       "ucx.transport_open_failed"},
      // aws-ofi-nccl finding no libfabric provider (EFA's absent): NCCL falls back to sockets.
      {"ip-172-31-9-96:26565:26565 [0] get_ofi_provider:312 NCCL WARN NET/OFI Could not find any optimal provider",
       "nccl.no_ib_device"},
      {"node-0:152:386 [0] NCCL INFO NET/OFI No eligible providers were found", "nccl.no_ib_device"}};
  for (const auto& [line, code] : cases) {
    Report r = judged({{"w.log", std::string(line) + "\n"}});
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << line << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_EQ(find(r, "nccl.warn"), nullptr) << line;
  }
}

// Sockets over HPE Slingshot's interfaces with no OFI plugin: an error naming them; the same
// job with the plugin's NET/OFI lines, or within one node, is none of it.
TEST(TriageSignatures, SocketsOverSlingshotWithoutTheOfiPlugin) {
  const std::string log =
      "g1064:11143:11143 [0] NCCL INFO NET/Plugin : No plugin found (librccl-net.so), using internal implementation\n"
      "g1064:11143:11194 [0] NCCL INFO NET/IB : No device found.\n"
      "g1064:11143:11194 [0] NCCL INFO NET/Socket : Using [0]bond0:10.64.4.21<0> [1]hsn0:10.80.0.205<0> "
      "[2]hsn1:10.80.0.154<0>\n"
      "g1064:11143:11194 [0] NCCL INFO comm 0x55d1 rank 0 nranks 16 cudaDev 0 busId 0xc1000 - Init START\n"
      "g1064:11143:11194 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/1\n";
  Report r = judged({{"rccl.log", log}});
  const Finding* f = find(r, "nccl.socket_fallback");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("hsn0, hsn1"), std::string::npos) << f->message;
  Report plugin = judged({{"rccl.log", log + "g1064:11143:11194 [0] NCCL INFO NET/OFI Selected provider is cxi\n"}});
  const Finding* p = find(plugin, "nccl.socket_fallback");
  EXPECT_TRUE(p == nullptr || p->message.find("Slingshot") == std::string::npos)
      << testing::PrintToString(codes(plugin));
}

// NCCL's lines pasted bare: "Using network Socket" read, and the socket transport's GDR line
// naming a Slingshot interface is sockets over Slingshot; NET/OFI beside it is not.
TEST(TriagePasted, BareSocketLinesOverSlingshot) {
  const std::string log =
      "NET/Plugin: Could not find: libnccl-net.so\n"
      "Using network Socket\n"
      "NET/Socket : GPU Direct RDMA Disabled for HCA 'hsn0'\n";
  Report r = judged({{"nccl.txt", log}});
  const Finding* f = find(r, "nccl.socket_fallback");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("(hsn0)"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"nccl.txt:2"});
  Report ofi = judged({{"nccl.txt", "NET/OFI Selected Provider is cxi\nUsing network AWS Libfabric\n"}});
  EXPECT_EQ(find(ofi, "nccl.socket_fallback"), nullptr) << testing::PrintToString(codes(ofi));
  // A sentence that starts so is not NCCL's line.
  Report prose = judged({{"notes.txt", "Using network storage: /mnt/nfs/home\n"}});
  EXPECT_EQ(find(prose, "nccl.socket_fallback"), nullptr) << testing::PrintToString(codes(prose));
}

// NCCL refusing a graph capture: its libnccl built for CUDA before 11.3 (or an old driver).
TEST(TriagePasted, NcclCannotBeCapturedInAGraph) {
  Report r =
      judged({{"vllm.txt",
               "NCCL version 2.19.3+cuda11.0\n"
               "NCCL WARN NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 "
               "or if the installed CUDA driver < R465.\n"}});
  const Finding* f = find(r, "framework.nccl_library_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("CUDA graph"), std::string::npos) << f->message;
}

// perftest's GPU buffer refused by the NIC with EFAULT: GPUDirect RDMA cannot pin it. The same
// refusal of a host buffer (no GPU buffer line) is not that.
TEST(TriagePasted, PerftestGpuBufferRegistrationRefused) {
  const std::string tail = "Couldn't allocate MR with error=14\nfailed to create mr\n Couldn't create IB resources\n";
  Report r = judged({{"perftest.txt",
                      "creating CUDA Ctx\nallocated GPU buffer of a 16777216 address at 0x594ca786d9b0 for type "
                      "CUDA_MEM_DEVICE\n" +
                          tail}});
  const Finding* f = find(r, "kernel.gpudirect_pin_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"perftest.txt:3"});
  EXPECT_NE(f->hint.find("--use_cuda_dmabuf"), std::string::npos) << f->hint;
  Report host = judged({{"perftest.txt", tail}});
  EXPECT_EQ(find(host, "kernel.gpudirect_pin_failed"), nullptr) << testing::PrintToString(codes(host));
}

// modprobe without a GPU or RDMA module for the running kernel: an error naming the module and
// the kernel; another module missing is not read.
TEST(TriagePasted, ModprobeModuleNotFound) {
  Report r =
      judged({{"pod.txt",
               "nvidia-peermem-ctr:  CrashLoopBackOff\n"
               "  modprobe: FATAL: Module nvidia-peermem not found in directory /lib/modules/6.8.0-1059-azure\n"}});
  const Finding* f = find(r, "kernel.module_not_found");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("nvidia-peermem module for the running kernel (6.8.0-1059-azure)"), std::string::npos)
      << f->message;
  Report other =
      judged({{"boot.txt", "modprobe: FATAL: Module ip_tables not found in directory /lib/modules/6.1.0-18-amd64\n"}});
  EXPECT_EQ(find(other, "kernel.module_not_found"), nullptr) << testing::PrintToString(codes(other));
}

// ibdiagnet's link checks and its IPoIB rate check: links below the expected rate, a warning.
TEST(TriagePasted, IbdiagnetLinksBelowTheExpectedRate) {
  Report r = judged({{"ibdiagnet.log",
                      "-E- Link: Sec0d9a0300246e30/Nec0d9a0300246e30/P19<-->switch-004/U1/P20 - Unexpected actual "
                      "link speed 25\n"
                      "-W- Port localhost/P1 lid=0x00e2 guid=0x001e0bffff4ced75 dev=25218 can not join\n"
                      "    due to rate:2.5Gbps < group:10Gbps\n"}});
  const Finding* f = find(r, "fabric.link_degraded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"ibdiagnet.log:1", "ibdiagnet.log:3"}));
}

// ibcheckerrors' counters over their threshold and ibdiagnet's: link errors by their names
// there, discards as congestion; the port where the line says which.
TEST(TriagePasted, IbcheckerrorsAndIbdiagnetCounters) {
  Report r = judged({{"ibcheckerrors.txt",
                      "#warn: counter SymbolErrors = 36905     (threshold 10) lid 193 port 14\n"
                      "#warn: counter LinkDowned = 23  (threshold 10) lid 193 port 14\n"
                      "#warn: counter XmtDiscards = 120      (threshold 100)\n"
                      "Error check on lid 193 (ISR9288/ISR9096 Voltaire sLB-24) port 14:  FAILED\n"}});
  const Finding* f = find(r, "counters.link_errors");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("lid 193 port 14 SymbolErrors 36905"), std::string::npos) << f->message;
  EXPECT_NE(find(r, "counters.congestion"), nullptr) << testing::PrintToString(codes(r));
  Report pm = judged({{"ibdiagnet2.log",
                       "-E- lid=0x0143 dev=51000 xxxxxxxx/U1/P36\nPerformance Monitor counter : Value\n"
                       "link_down_counter : 3 (threshold=0)\n"}});
  const Finding* p = find(pm, "counters.link_errors");
  ASSERT_NE(p, nullptr) << testing::PrintToString(codes(pm));
  EXPECT_NE(p->message.find("link_down_counter 3"), std::string::npos) << p->message;
}

// Accelerate refusing RTX 4000-series GPUs: no P2P between them, an error.
TEST(TriagePasted, AccelerateRefusesRtx4000FastPaths) {
  Report r = judged({{"train.log",
                      "[rank0]: NotImplementedError: Using RTX 4000 series doesn't support faster communication "
                      "broadband via P2P or IB. Please set `NCCL_P2P_DISABLE=\"1\"` and `NCCL_IB_DISABLE=\"1\" or use "
                      "`accelerate launch` which will do this automatically.\n"}});
  const Finding* f = find(r, "topo.p2p_unsupported");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->hint.find("NCCL_P2P_DISABLE=1"), std::string::npos) << f->hint;
}

// The NVIDIA driver unable to map a peer GPU through a translating IOMMU: an error.
TEST(TriagePasted, NvrmIommuPeerMappingFailed) {
  Report r = judged({{"dmesg.txt",
                      "NVRM: The peer DMA address 0x1800400000 is not aligned at 0x20000000\n"
                      "NVRM: IOMMU mapping failed from GPU1 to GPU0\n"}});
  const Finding* f = find(r, "kernel.iommu_translated");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"dmesg.txt:2"});
}

// sichek's PCIe tree check: a link on a NIC's path below both ends' speed, by speeds alone.
TEST(TriagePasted, SichekUpstreamLinkBelowItsCapability) {
  Report r = judged({{"sichek.txt", "mlx5_3 upstream link 0000:16:02.0->0000:17:00.0 current 16GT/s < cap 32GT/s\n"}});
  const Finding* f = find(r, "topo.pcie_degraded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->message.find("runs at 16 GT/s where it can do 32 GT/s (50% of its bandwidth)"), std::string::npos)
      << f->message;
  Report same =
      judged({{"sichek.txt", "mlx5_3 upstream link 0000:16:02.0->0000:17:00.0 current 32GT/s < cap 32GT/s\n"}});
  EXPECT_EQ(find(same, "topo.pcie_degraded"), nullptr) << testing::PrintToString(codes(same));
}

// Broadcom's niccli: a NIC's RDMA support off in its NVM is an error; on, nothing.
TEST(TriagePasted, NiccliRdmaSupportOff) {
  Report r =
      judged({{"niccli.txt", "$ sudo niccli -i 3 nvm -getoption support_rdma -scope 0\n\nsupport_rdma = False\n"}});
  const Finding* f = find(r, "topo.nic_rdma_disabled");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"niccli.txt:3"});
  EXPECT_NE(f->hint.find("-setoption support_rdma"), std::string::npos) << f->hint;
  Report on = judged({{"niccli.txt", "support_rdma = True\n"}});
  EXPECT_EQ(find(on, "topo.nic_rdma_disabled"), nullptr) << testing::PrintToString(codes(on));
}

// ls -l listing NCCL library links of two versions: a warning naming both; one version is none.
// A crash whose backtrace has a frame of NCCL's RAS thread: a known bug, with RAS off as the
// workaround; a RAS frame with no crash before it, or a crash in another function, is none.
TEST(TriagePasted, CrashInNcclsRasThread) {
  const std::string crash =
      "[n125:288505:0:296459] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x48)\n"
      "==== backtrace (tid: 296459) ====\n"
      " 0  /usr/lib/libucs.so.0(ucs_handle_error+0x2d4) [0x7fedc925c274]\n";
  Report r = judged(
      {{"crash.txt", crash + " 1 0x0000000000122927rasMsgHandlePeersUpdate() /opt/nccl/src/ras/peers.cc:512\n"}});
  const Finding* f = find(r, "nccl.known_bug");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"crash.txt:4"});
  EXPECT_NE(f->hint.find("NCCL_RAS_ENABLE=0"), std::string::npos) << f->hint;
  Report other = judged({{"crash.txt", crash + " 1 0x0000000000122927ncclProxyProgress() ???:0\n"}});
  EXPECT_EQ(find(other, "nccl.known_bug"), nullptr) << testing::PrintToString(codes(other));
  Report alone = judged({{"notes.txt", "see rasMsgHandlePeersUpdate() in src/ras/peers.cc\n"}});
  EXPECT_EQ(find(alone, "nccl.known_bug"), nullptr) << testing::PrintToString(codes(alone));
}

// Open MPI's MPI_Init box for its PML unable to add the peers: an error with its return code.
TEST(TriagePasted, OpenMpiPmlAddProcsFailed) {
  Report r = judged({{"mpirun.txt",
                      "It looks like MPI_INIT failed for some reason; your parallel process is\n"
                      "likely to abort.\n\n"
                      "  PML add procs failed\n"
                      "    --> Returned \"Not found\" (-13) instead of \"Success\" (0)\n"
                      "[g0080:118482] *** An error occurred in MPI_Init\n"}});
  const Finding* f = find(r, "mpi.pml_add_procs_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("(returned \"Not found\" (-13))"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"mpirun.txt:4", "mpirun.txt:5"}));
  EXPECT_NE(f->hint.find("--mca pml ob1"), std::string::npos) << f->hint;
}

// NCCL's installs in a listing's forms: library files, links, rpm, deb, dpkg -l and pip.
TEST(TriagePasted, NcclInstallsAsListingsNameThem) {
  const auto at = [](std::string_view line) {
    const auto i = nccl_install(line);
    return i ? i->version + " @ " + i->where : std::string("-");
  };
  EXPECT_EQ(at("/usr/lib64/libnccl.so.2.9.9"), "2.9.9 @ /usr/lib64");
  EXPECT_EQ(at("lrwxrwxrwx 1 root root 17 Jul 17 /opt/nccl/lib/libnccl.so.2 -> libnccl.so.2.27.0"),
            "2.27.0 @ /opt/nccl/lib");
  EXPECT_EQ(at("/var/nccl-repo-2.8.3-ga-cuda10.1/libnccl-devel-2.8.3-1+cuda10.1.x86_64.rpm"),
            "2.8.3 @ /var/nccl-repo-2.8.3-ga-cuda10.1/libnccl-devel-2.8.3-1+cuda10.1.x86_64.rpm");
  EXPECT_EQ(at("libnccl-2.9.9-1+cuda11.3.x86_64"), "2.9.9 @ libnccl-2.9.9-1+cuda11.3.x86_64");
  EXPECT_EQ(at("libnccl2_2.18.3-1+cuda12.2_amd64.deb"), "2.18.3 @ libnccl2_2.18.3-1+cuda12.2_amd64.deb");
  EXPECT_EQ(at("ii  libnccl2   2.18.3-1+cuda12.2   amd64   NVIDIA Collective Communication Library"),
            "2.18.3 @ libnccl2");
  EXPECT_EQ(at("nvidia-nccl-cu12          2.18.1"), "2.18.1 @ nvidia-nccl-cu12");
  EXPECT_EQ(at("nvidia-nccl-cu12==2.21.5"), "2.21.5 @ nvidia-nccl-cu12==2.21.5");
  EXPECT_EQ(at("/usr/lib/x86_64-linux-gnu/libnccl.so.2"), "-");  // no version: the link's name
  EXPECT_EQ(at("NCCL version 2.18.1+cuda12.1"), "-");
  EXPECT_EQ(at("export LD_LIBRARY_PATH=/opt/nccl/lib:$LD_LIBRARY_PATH"), "-");
  // A wheel and the system's package of another version: the warning; one version twice is none.
  Report r = judged({{"env.txt",
                      "$ pip list | grep nccl\nnvidia-nccl-cu12          2.18.1\n$ dpkg -l | grep nccl\n"
                      "ii  libnccl2   2.21.5-1+cuda12.4   amd64   NVIDIA Collective Communication Library\n"}});
  const Finding* f = find(r, "framework.nccl_library_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(f->message.find("2.18.1 in nvidia-nccl-cu12; 2.21.5 in libnccl2"), std::string::npos) << f->message;
  Report same = judged({{"env.txt",
                         "ii  libnccl-dev   2.21.5-1+cuda12.4   amd64   NVIDIA Collective Communication Library\n"
                         "ii  libnccl2   2.21.5-1+cuda12.4   amd64   NVIDIA Collective Communication Library\n"}});
  EXPECT_EQ(find(same, "framework.nccl_library_mismatch"), nullptr) << testing::PrintToString(codes(same));
}

TEST(TriagePasted, NcclLibrariesOfTwoVersionsListed) {
  Report r = judged({{"ls.txt",
                      "# ls $NCCL_HOME/lib/libnccl.so.2 -lh\n"
                      "lrwxrwxrwx 1 root root 17 Jul 17 19:02 /opt/nccl/build/lib/libnccl.so.2 -> libnccl.so.2.27.0\n"
                      "# ls /usr/lib/x86_64-linux-gnu/libnccl.so.2 -lh\n"
                      "lrwxrwxrwx 1 root root 17 Sep 10  2024 /usr/lib/x86_64-linux-gnu/libnccl.so.2 -> "
                      "libnccl.so.2.23.4\n"}});
  const Finding* f = find(r, "framework.nccl_library_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->message.find("2.23.4 in /usr/lib/x86_64-linux-gnu; 2.27.0 in /opt/nccl/build/lib"), std::string::npos)
      << f->message;
  Report one = judged({{"ls.txt",
                        "lrwxrwxrwx 1 root root 17 Sep 10  2024 /usr/lib/x86_64-linux-gnu/libnccl.so.2 -> "
                        "libnccl.so.2.23.4\n"
                        "lrwxrwxrwx 1 root root 17 Sep 10  2024 /usr/lib/x86_64-linux-gnu/libnccl.so -> "
                        "libnccl.so.2\n"}});
  EXPECT_EQ(find(one, "framework.nccl_library_mismatch"), nullptr) << testing::PrintToString(codes(one));
}

// The NICs' asynchronous events of the fabric (libibverbs' names, in NCCL's wordings before
// and since 2.19, and UCX's): one warning naming what changed; not "other NCCL WARN lines".
// The queues' own events stay other readers' (a port error, a fatal event).
TEST(TriagePasted, FabricEventsUnderTheJobAreAWarning) {
  Report sm = judged({{"sm.log",
                       "n1:5:9 [0] transport/net_ib.cc:98 NCCL WARN NET/IB : mlx5_0:1 Got non-fatal async event: SM "
                       "change(16)\n"
                       "n1:5:9 [0] transport/net_ib.cc:98 NCCL WARN NET/IB : mlx5_0:1 Got non-fatal async event: "
                       "client reregistration(17)\n"
                       "n2:7:7 [1] NCCL WARN NET/IB : Got async event : LID change\n"}});
  const Finding* f = find(sm, "nccl.ib_fabric_event");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(sm));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"sm.log:1", "sm.log:2", "sm.log:3"}));
  EXPECT_NE(f->message.find("subnet manager"), std::string::npos) << f->message;
  EXPECT_NE(f->hint.find("opensm"), std::string::npos) << f->hint;
  EXPECT_EQ(find(sm, "nccl.warn"), nullptr);
  Report gid = judged({{"gid.log",
                        "n1:5:9 [0] transport/net_ib/common.cc:153 NCCL WARN NET/IB : mlx5_2:1 GID table "
                        "changed\n"}});
  const Finding* g = find(gid, "nccl.ib_fabric_event");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(gid));
  EXPECT_NE(g->hint.find("NCCL_IB_GID_INDEX"), std::string::npos) << g->hint;
  Report ucx = judged({{"ucx.log",
                        "[1700000000.1] [n3:12:0]  ib_device.c:468 UCX  WARN  IB Async event on mlx5_0: "
                        "port active on port 1\n"}});
  ASSERT_NE(find(ucx, "nccl.ib_fabric_event"), nullptr) << testing::PrintToString(codes(ucx));
  Report err =
      judged({{"e.log", "n1:5:9 [0] NCCL WARN NET/IB : mlx5_0:1 Got non-fatal async event: port error(10)\n"}});
  EXPECT_NE(find(err, "nccl.ib_port_error"), nullptr) << testing::PrintToString(codes(err));
  EXPECT_EQ(find(err, "nccl.ib_fabric_event"), nullptr);
}

// NCCL's RAS client's status: the processes and ranks it lost, each named once (dead where a
// line says so), an error; the ranks behind the others' operation counts, a warning naming
// them and their node; a rank's reported error read by NCCL's meanings; the frame of the
// output (titles, underlines, the summary table) read, not left over.
TEST(TriagePasted, NcclRasStatusNamesTheLostProcessAndTheRanksBehind) {
  Report lost = judged({{"ras.txt",
                         "Communicators... (2.05s)\n=============\n\n"
                         "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
                         "    #  in group  per comm  per node  per comm  in group\n"
                         "    0         1         4       7-8        32        32   RUNNING  INCOMPLETE\n\n"
                         "Errors\n======\n\n"
                         "DEAD\n  1 job process is considered dead (unreachable via the RAS network)\n"
                         "  Process 3487984 on node 172.16.64.213 managing GPU 5\n\n"
                         "#0-0 (cf264af53edbe986) INCOMPLETE\n  Missing communicator data from 1 rank\n"
                         "  Rank 21 -- GPU 5 managed by process 3487984 on node 172.16.64.213\n\n"
                         "#1-0 (9e17999afaa87dbb) ERROR\n  Asynchronous error on 1 rank\n"
                         "  Rank 3 reported remote process exited or there was a network error -- GPU 3 managed by "
                         "process 507288 on node 172.16.64.210\n"}});
  const Finding* f = find(lost, "nccl.ras_process_lost");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(lost));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->subject, "172.16.64.213");
  EXPECT_NE(f->message.find("dead (unreachable over RAS for 60 s): process 3487984 on node 172.16.64.213 managing "
                            "GPU 5"),
            std::string::npos)
      << f->message;
  EXPECT_NE(f->message.find("rank 21 (process 3487984 on node 172.16.64.213)"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"ras.txt:13", "ras.txt:17"}));
  const Finding* peer = find(lost, "nccl.peer_lost");
  ASSERT_NE(peer, nullptr) << testing::PrintToString(codes(lost));
  EXPECT_EQ(quoted(*peer), std::vector<std::string>{"ras.txt:21"});
  EXPECT_EQ(lost.triage->files.at(0).kinds, std::vector<std::string>{"nccl-ras"});
  EXPECT_EQ(lost.triage->files.at(0).lines_not_read, 0)
      << testing::PrintToString(lost.triage->files.at(0).not_read_examples);

  Report behind = judged({{"ras.txt",
                           "#0-0 (27a079b828ff1a75) MISMATCH\n"
                           "  Communicator ranks have different AllReduce operation counts\n"
                           "  26 ranks have launched up to operation 6650\n"
                           "  6 ranks have launched up to operation 6649\n"
                           "  Rank 0 -- GPU 0 managed by process 483072 on node 172.16.64.210\n"
                           "  Rank 2 -- GPU 2 managed by process 483074 on node 172.16.64.210\n"
                           "  Rank 3 has launched up to operation 6648 -- GPU 3 managed by process 483075 on node "
                           "172.16.64.211\n"}});
  const Finding* b = find(behind, "nccl.ras_ranks_behind");
  ASSERT_NE(b, nullptr) << testing::PrintToString(codes(behind));
  EXPECT_EQ(b->severity, Severity::kWarning);
  EXPECT_EQ(b->subject, "ranks 0, 2, 3");
  EXPECT_NE(b->message.find("(on 172.16.64.210, 172.16.64.211)"), std::string::npos) << b->message;
  EXPECT_NE(b->message.find("the others up to 6650"), std::string::npos) << b->message;
  // RAS names the smaller group; where it is ahead (nccl#1911), the many unnamed are behind.
  Report ahead = judged({{"ras.txt",
                          "#0-0 (fa93daea854b060b) MISMATCH\n"
                          "  Communicator ranks have different AllGather operation counts\n"
                          "  30 ranks have launched up to operation 640\n"
                          "  2 ranks have launched up to operation 641\n"
                          "  Rank 12 -- GPU 4 managed by process 323032 on node 10.137.190.124\n"
                          "  Rank 13 -- GPU 5 managed by process 323033 on node 10.137.190.124\n"}});
  const Finding* many = find(ahead, "nccl.ras_ranks_behind");
  ASSERT_NE(many, nullptr) << testing::PrintToString(codes(ahead));
  EXPECT_EQ(many->subject, "30 ranks");
  EXPECT_NE(many->message.find("while ranks 12, 13 reached 641"), std::string::npos) << many->message;
  EXPECT_EQ(quoted(*many), std::vector<std::string>{"ras.txt:3"});
  // A rank named behind both: the unnamed group, then that rank, each behind.
  Report three = judged({{"ras.txt",
                          "#0-0 (fa93daea854b060b) MISMATCH\n"
                          "  Communicator ranks have different AllGather operation counts\n"
                          "  29 ranks have launched up to operation 640\n"
                          "  2 ranks have launched up to operation 641\n"
                          "  Rank 12 -- GPU 4 managed by process 323032 on node 10.137.190.124\n"
                          "  Rank 13 -- GPU 5 managed by process 323033 on node 10.137.190.124\n"
                          "  Rank 7 has launched up to operation 639 -- GPU 7 managed by process 323038 on node "
                          "10.137.190.125\n"}});
  std::vector<const Finding*> groups;
  for (const Finding& g : three.findings) {
    if (g.code == "nccl.ras_ranks_behind") groups.push_back(&g);
  }
  ASSERT_EQ(groups.size(), 2u) << testing::PrintToString(codes(three));
  EXPECT_EQ(groups[0]->subject, "29 ranks");
  EXPECT_TRUE(groups[0]->hosts.empty()) << testing::PrintToString(groups[0]->hosts);
  EXPECT_NE(groups[0]->message.find("while ranks 12, 13 reached 641"), std::string::npos) << groups[0]->message;
  EXPECT_EQ(groups[1]->subject, "rank 7");
  EXPECT_EQ(groups[1]->hosts, std::vector<std::string>{"10.137.190.125"});
  EXPECT_NE(groups[1]->message.find("up to operation 639 only, the others up to 641"), std::string::npos)
      << groups[1]->message;
  // Status differences (a communicator being set up or torn down) are no ranks behind.
  Report status = judged({{"ras.txt",
                           "#0-0 (9e17999afaa87dbb) MISMATCH\n  Communicator ranks have different status\n"
                           "  26 ranks have status UNKNOWN\n  4 ranks have status RUNNING\n"
                           "  Rank 0 -- GPU 0 managed by process 507285 on node 172.16.64.210\n"}});
  EXPECT_EQ(find(status, "nccl.ras_ranks_behind"), nullptr) << testing::PrintToString(codes(status));
  // The monitor: unresponsive, then recovered, is nothing; dead is an error.
  Report monitor = judged({{"m.txt",
                            "RAS Monitor Mode - watching for peer changes (Ctrl+C to exit)...\n"
                            "[2025-12-19 13:07:01] PEER_UNRESPONSIVE: Process 11 on node 10.0.0.5 managing GPU 1 "
                            "keep-alive timeout\n"
                            "[2025-12-19 13:07:03] PEER_RECOVERED: Process 11 on node 10.0.0.5 managing GPU 1 peer "
                            "responding again\n"}});
  EXPECT_EQ(find(monitor, "nccl.ras_process_lost"), nullptr) << testing::PrintToString(codes(monitor));
  Report dead = judged({{"m.txt", "[2025-12-19 13:07:07] PEER_DEAD: Process 12 on node 10.0.0.6 managing GPU 2 \n"}});
  const Finding* d = find(dead, "nccl.ras_process_lost");
  ASSERT_NE(d, nullptr) << testing::PrintToString(codes(dead));
  EXPECT_EQ(d->subject, "10.0.0.6");
}

// A node health check's failures (LBNL NHC's words, Azure's distributed runner's "node | "
// before them): each read by its check and naming its node; an Xid's quoted kernel line is
// the kernel reader's.
TEST(TriagePasted, NodeHealthCheckFailuresNameTheNodes) {
  Report r = judged(
      {{"nhc.txt",
        "mynode-066 | ERROR: nhc: Health check failed: check_gpu_xid: GPU Xid errors detected: [ 3606.832215] NVRM: "
        "Xid (PCI:0002:00:00): 79, pid=0, GPU has fallen off the bus.\n"
        "mynode-273 | ERROR: nhc: Health check failed: check_hw_ib: No IB port mlx5_ib7:1 is ACTIVE (LinkUp 400 "
        "Gb/sec).\n"
        "mynode-510 | ERROR: nhc: Health check failed: check_gpu_ecc: GPU id 3: Row remap pending. FaultCode: "
        "NHC2007\n"
        "ERROR:  nhc:  Health check failed:  check_nvlink_status: GPU 0 has nvlinks inactive: Link 4: Inactive. "
        "FaultCode: NHC2016\n"}});
  const Finding* port = find(r, "topo.port_down");
  ASSERT_NE(port, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(port->subject, "mynode-273");
  EXPECT_EQ(quoted(*port), std::vector<std::string>{"nhc.txt:2"});
  const Finding* ecc = find(r, "healthcheck.failed");
  ASSERT_NE(ecc, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(ecc->message.find("mynode-510: check_gpu_ecc: GPU id 3: Row remap pending;"), std::string::npos)
      << ecc->message;
  EXPECT_EQ(ecc->message.find("FaultCode"), std::string::npos) << ecc->message;
  const Finding* nvl = find(r, "nvlink.link_inactive");
  ASSERT_NE(nvl, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*nvl), std::vector<std::string>{"nhc.txt:4"});
  const Finding* xid = find(r, "kernel.gpu_xid");
  ASSERT_NE(xid, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*xid), std::vector<std::string>{"nhc.txt:1"});
  EXPECT_EQ(r.triage->files.at(0).kinds, (std::vector<std::string>{"kernel-log", "health-check"}));
}

// mlxlink's port output: a port trained below what its enabled speeds and its cable allow is
// degraded; one at its cable's best is not; mlxlink's own recommendation and errors after FEC
// are said; a port not Active is down; the device comes from the pasted command.
TEST(TriagePasted, MlxlinkPortsDownDegradedAndTheirOwnRecommendation) {
  const std::string block =
      "Operational Info\n----------------\n"
      "State                              : Active \n"
      "Physical state                     : LinkUp \n"
      "Speed                              : IB-EDR \n"
      "Width                              : 4x \n\n"
      "Supported Info\n--------------\n"
      "Enabled Link Speed                 : 0x0000003f (HDR,EDR,FDR,FDR10,QDR,DDR,SDR) \n"
      "Supported Cable Speed              : CABLE \n\n"
      "Troubleshooting Info\n--------------------\n"
      "Status Opcode                      : 0 \n"
      "Recommendation                     : No issue was observed \n";
  std::string degraded = block;
  degraded.replace(degraded.find("CABLE"), 5, "0x0000003f (HDR,EDR,FDR,FDR10,QDR,DDR,SDR)");
  Report d = judged({{"m.txt", "$ mlxlink -d mlx5_2 -c\n" + degraded}});
  const Finding* slow = find(d, "topo.port_degraded");
  ASSERT_NE(slow, nullptr) << testing::PrintToString(codes(d));
  EXPECT_EQ(slow->subject, "mlx5_2");
  EXPECT_NE(slow->message.find("at IB-EDR, below the 200 Gb/s"), std::string::npos) << slow->message;
  EXPECT_EQ(quoted(*slow), std::vector<std::string>{"m.txt:6"});
  EXPECT_EQ(d.triage->files.at(0).kinds, std::vector<std::string>{"mlxlink"});
  std::string limited = block;
  limited.replace(limited.find("CABLE"), 5, "0x0000001e (EDR,FDR,FDR10,QDR,DDR)");
  Report l = judged({{"m.txt", limited}});
  EXPECT_TRUE(codes(l).empty()) << testing::PrintToString(codes(l));
  std::string bad = degraded;
  bad.replace(bad.find("Active "), 6, "Polling");
  bad.replace(bad.find("No issue was observed"), 21, "Bad signal integrity");
  bad +=
      "\nPhysical Counters and BER Info\n------------------------------\n"
      "Link Down Counter                  : 3 \n"
      "Effective Physical Errors          : 17 \n";
  Report b = judged({{"m.txt", bad}});
  ASSERT_NE(find(b, "topo.port_down"), nullptr) << testing::PrintToString(codes(b));
  EXPECT_EQ(find(b, "topo.port_degraded"), nullptr);  // not up: not said as slow
  const Finding* rec = find(b, "link.mlxlink_issue");
  ASSERT_NE(rec, nullptr) << testing::PrintToString(codes(b));
  EXPECT_NE(rec->message.find("\"Bad signal integrity\""), std::string::npos) << rec->message;
  const Finding* err = find(b, "counters.link_errors");
  ASSERT_NE(err, nullptr) << testing::PrintToString(codes(b));
  EXPECT_EQ(err->severity, Severity::kError);
  EXPECT_NE(err->message.find("17 effective physical errors"), std::string::npos) << err->message;
  EXPECT_NE(err->message.find("and 3 link down events"), std::string::npos) << err->message;
}

// NCCL's RAS client's JSON (ncclras -f json, 2.28.7 on): a missing rank considered dead, a
// rank whose AllReduce count is below the others', a rank whose status holds an error (read
// by NCCL's meanings); a field of the wrong type is a damaged file, said, not read.
TEST(TriagePasted, NcclRasJsonReadAsItsTextIs) {
  const std::string rank = R"({"rank": R, "host": "10.0.0.H", "pid": P, "cuda_dev": 0, "nvml_dev": 0,
      "status": {"init_state": 0, "async_error": E, "finalize_called": false, "destroy_flag": false, "abort_flag": false},
      "collective_counts": {"Broadcast": 0, "AllReduce": C}})";
  auto one = [&](int r, int pid, int error, int count) {
    std::string s = rank;
    s.replace(s.find("R,"), 1, std::to_string(r));
    s.replace(s.find(".H\""), 2, "." + std::to_string(r));
    s.replace(s.find("P,"), 1, std::to_string(pid));
    s.replace(s.find("E,"), 1, std::to_string(error));
    s.replace(s.find("C}"), 1, std::to_string(count));
    return s;
  };
  const std::string doc =
      "{\n  \"nccl_version\": \"2.29.1\",\n  \"communicators\": [{\"hash\": \"0xae94\", \"size\": 4,\n"
      "  \"ranks\": [" +
      one(0, 100, 0, 7) + ",\n" + one(1, 101, 0, 7) + ",\n" + one(2, 102, 6, 6) +
      "],\n  \"missing_ranks\": [{\"rank\": 3, \"host\": \"10.0.0.3\", \"pid\": 103, \"cuda_dev\": 3,\n"
      "    \"status\": {\"unresponsive\": true, \"considered_dead\": true}}]}]\n}\n";
  Report r = judged({{"ras.json", doc}});
  const Finding* lost = find(r, "nccl.ras_process_lost");
  ASSERT_NE(lost, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(lost->message.find("dead (unreachable over RAS for 60 s): rank 3 (process 103 on node 10.0.0.3 managing "
                               "GPU 3)"),
            std::string::npos)
      << lost->message;
  const Finding* behind = find(r, "nccl.ras_ranks_behind");
  ASSERT_NE(behind, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(behind->subject, "rank 2");
  EXPECT_NE(behind->message.find("AllReduce launched up to operation 6 only, the others up to 7"), std::string::npos)
      << behind->message;
  EXPECT_NE(find(r, "nccl.peer_lost"), nullptr) << testing::PrintToString(codes(r));  // rank 2's async error 6
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"nccl-ras"});
  std::string bad = doc;
  bad.replace(bad.find("\"rank\": 3"), 9, "\"rank\": \"3\"");
  Report d = judged({{"ras.json", bad}});
  EXPECT_TRUE(d.triage->files.at(0).kinds.empty());
  EXPECT_NE(d.triage->files.at(0).note.find("damaged"), std::string::npos) << d.triage->files.at(0).note;
  EXPECT_EQ(find(d, "nccl.ras_process_lost"), nullptr);
}

// enroot's NVIDIA hook finding nvidia_uvm not loaded is the driver not loaded; the toolkit's
// path error on a host file it mounts is a refusal, said with what the path error means.
TEST(TriagePasted, EnrootHookAndToolkitPathErrors) {
  Report uvm = judged({{"e.txt",
                        " [WARN] Kernel module nvidia_uvm is not loaded. Make sure the NVIDIA device driver is "
                        "installed and loaded\n"
                        " [ERROR] /usr/local/etc/enroot/hooks.d/98-nvidia.sh exited with return code 1\n"}});
  const Finding* d = find(uvm, "kernel.gpu_driver_not_loaded");
  ASSERT_NE(d, nullptr) << testing::PrintToString(codes(uvm));
  EXPECT_EQ(quoted(*d), std::vector<std::string>{"e.txt:1"});
  Report path = judged({{"p.txt",
                         "nvidia-container-cli: detection error: path error: ///var/run/nvidia-fabricmanager/socket: "
                         "permission denied\n"}});
  const Finding* t = find(path, "container.toolkit_denied");
  ASSERT_NE(t, nullptr) << testing::PrintToString(codes(path));
  EXPECT_NE(t->message.find("not readable by the user it runs as"), std::string::npos) << t->message;
  EXPECT_EQ(t->hint.find("for a path error"), 0u) << t->hint;
}

// Open MPI without CUDA asked for it: its help message, split over two lines, is one error;
// an ompi_info that merely lists its build is nothing.
TEST(TriagePasted, MpiWithoutCudaAskedToCarryGpuBuffers) {
  Report r = judged({{"mpi.txt",
                      "$ OMPI_MCA_opal_cuda_support=true mpirun -n 2 python use_cupy.py\n"
                      "--------------------------------------------------------------------------\n"
                      "The user requested CUDA support with the --mca mpi_cuda_support 1 flag\n"
                      "but the library was not compiled with any support.\n"
                      "--------------------------------------------------------------------------\n"
                      "[h1:29458] *** Process received signal ***\n"
                      "[h1:29458] Signal: Segmentation fault (11)\n"}});
  const Finding* f = find(r, "mpi.not_cuda_aware");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"mpi.txt:3"});
  EXPECT_NE(f->hint.find("mpi_built_with_cuda_support"), std::string::npos) << f->hint;
  Report info =
      judged({{"info.txt", "                 MCA mpool: hugepage (MCA v2.1.0, API v3.0.0, Component v4.1.4)\n"}});
  EXPECT_EQ(find(info, "mpi.not_cuda_aware"), nullptr);
}

// vLLM's custom all-reduce failing in CUDA IPC: an error; with PyTorch's expandable_segments
// on in the same paste, that setting is named as the likeliest cause and quoted.
TEST(TriagePasted, CustomAllreduceFailingInCudaIpc) {
  Report plain = judged({{"w.log",
                          "(VllmWorker rank=1 pid=22) Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:"
                          "143 'invalid resource handle'\n"}});
  const Finding* p = find(plain, "framework.custom_allreduce_ipc");
  ASSERT_NE(p, nullptr) << testing::PrintToString(codes(plain));
  EXPECT_EQ(p->message.find("expandable_segments is on"), std::string::npos) << p->message;
  Report vmm = judged({{"w.log",
                        "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
                        "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'\n"}});
  const Finding* v = find(vmm, "framework.custom_allreduce_ipc");
  ASSERT_NE(v, nullptr) << testing::PrintToString(codes(vmm));
  EXPECT_NE(v->message.find("expandable_segments is on in these files (w.log:1)"), std::string::npos) << v->message;
  EXPECT_EQ(quoted(*v), (std::vector<std::string>{"w.log:2", "w.log:1"}));
  EXPECT_NE(v->hint.find("--disable-custom-all-reduce"), std::string::npos);
  // The setting alone is no fault.
  Report setting = judged({{"env.txt", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"}});
  EXPECT_EQ(find(setting, "framework.custom_allreduce_ipc"), nullptr);
}

// The search's fallback and the bug it leads to in NCCL 2.25-2.26, pasted bare: one finding,
// the bug, quoting both; the fallback is not a cause of its own.
TEST(TriagePasted, TheFallbackThatLedToAKnownBugIsTheBugs) {
  Report r = judged({{"t.md",
                      "graph/search.cc:1135 NCCL WARN Could not find a path for pattern 1, falling back to simple "
                      "order\n\ngraph/topo.h:230 NCCL WARN Could not find NET with id 0\n"}});
  const Finding* bug = find(r, "nccl.known_bug");
  ASSERT_NE(bug, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*bug), (std::vector<std::string>{"t.md:1", "t.md:3"}));
  EXPECT_NE(bug->hint.find("2.27"), std::string::npos) << bug->hint;
  EXPECT_EQ(find(r, "nccl.topology_fallback"), nullptr);
}

// Another known bug by its own wording: aws-ofi-nccl's tuner refusing the NCCL_PROTO that the
// plugin itself set (aws-ofi-nccl#982); the finding says that bug, not NCCL 2.25's.
TEST(TriagePasted, EachKnownBugIsSaidInItsOwnWords) {
  Report r = judged({{"t.md",
                      "n1:5:6 [6] ncclResult_t nccl_ofi_tuner_init_v1(size_t, size_t, ncclDebugLogger_t):270 NCCL "
                      "WARN NET/OFI The tuner plugin can not be loaded when explicitly choosing an algorithm or "
                      "protocol with NCCL_ALGO/NCCL_PROTO\n"
                      "RuntimeError: NCCL Error 4: invalid argument (run with NCCL_DEBUG=WARN for details)\n"}});
  const Finding* bug = find(r, "nccl.known_bug");
  ASSERT_NE(bug, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(bug->message.find("aws-ofi-nccl#982"), std::string::npos) << bug->message;
  EXPECT_EQ(bug->message.find("NVIDIA/nccl#1748"), std::string::npos) << bug->message;
  EXPECT_NE(bug->hint.find("2.21"), std::string::npos) << bug->hint;
}

// A program's own libfabric registration of GPU memory, refused: read as the OFI plugin's
// refusal, counted as the program's line (not NCCL's), and not listed among the lines not read;
// so is any line a reader kept (Open MPI's CUDA support).
TEST(TriagePasted, AProgramsLibfabricRegistrationRefused) {
  Report r = judged({{"mc.log",
                      "efa_context.cpp  fi_mr_regattr failed for GPU memory 0x726d08000000 (device 3): Operation "
                      "not supported\n"
                      "The user requested CUDA support, but Open MPI was not compiled with any support\n"}});
  const Finding* f = find(r, "nccl.ofi_register_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->message.rfind("1 program error line: ", 0), 0u) << f->message;
  EXPECT_NE(f->message.find("no current CUDA context"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"mc.log:1"}));
  ASSERT_NE(find(r, "mpi.not_cuda_aware"), nullptr) << testing::PrintToString(codes(r));
  ASSERT_TRUE(r.triage.has_value());
  EXPECT_EQ(r.triage->files.at(0).lines_not_read, 0) << testing::PrintToString(r.triage->files.at(0).not_read_examples);
  // NCCL's own line of the same call is NCCL's, read once.
  Report nccl = judged({{"n.log", "n1:5:6 [0] NCCL WARN NET/OFI fi_mr_regattr failed: Operation not supported\n"}});
  const Finding* g = find(nccl, "nccl.ofi_register_failed");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(nccl));
  EXPECT_EQ(g->message.rfind("1 NCCL error line: ", 0), 0u) << g->message;
}

// ibv_devinfo -v's GID tables of two hosts, each under its label: one lists RoCE v1 and v2
// entries of each address, the other one entry, so index 1 is link-local on one and IPv4 on
// the other (openucx/ucx#7785's listing). Tables alike, or a device's tables without a host's
// label, say nothing.
TEST(TriagePasted, GidTablesWhoseIndexMeansDifferentAddresses) {
  const std::string mu01 =
      "mu01:\n"
      "GID[  0]:\t\tfe80:0000:0000:0000:ee0d:9aff:fe01:3671\n"
      "GID[  1]:\t\tfe80:0000:0000:0000:ee0d:9aff:fe01:3671\n"
      "GID[  2]:\t\t0000:0000:0000:0000:0000:ffff:0c0c:0c64\n"
      "GID[  3]:\t\t0000:0000:0000:0000:0000:ffff:0c0c:0c64\n";
  Report r = judged({{"gids.txt", mu01 + "cu01:\n"
                                         "GID[  0]:\t\tfe80:0000:0000:0000:ee0d:9aff:fe01:3431, RoCE v2\n"
                                         "GID[  1]:\t\t0000:0000:0000:0000:0000:ffff:0c0c:0c01, RoCE v2\n"}});
  const Finding* f = find(r, "topo.roce_gid_index_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->message.find("index 1: IPv4 on cu01, link-local on mu01"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"gids.txt:8", "gids.txt:3"}));
  const std::string alike = mu01 + "cu02:\n" +
                            "GID[  0]:\t\tfe80:0000:0000:0000:ee0d:9aff:fe01:1111\n"
                            "GID[  1]:\t\tfe80:0000:0000:0000:ee0d:9aff:fe01:1111\n"
                            "GID[  2]:\t\t0000:0000:0000:0000:0000:ffff:0c0c:0c02\n";
  EXPECT_EQ(find(judged({{"a.txt", alike}}), "topo.roce_gid_index_mismatch"), nullptr);
  const std::string devices =
      "mlx5_0:\nGID[  1]:\t\tfe80:0000:0000:0000:ee0d:9aff:fe01:3671\n"
      "mlx5_1:\nGID[  1]:\t\t0000:0000:0000:0000:0000:ffff:0c0c:0c01\n";
  EXPECT_EQ(find(judged({{"d.txt", devices}}), "topo.roce_gid_index_mismatch"), nullptr);
}

// mlx5's own words for its transceiver modules and its health (events.c, health.c), with
// dmesg's stamp or journalctl's prefix: an error module is an error naming what it said; an
// unplugged cable a warning; a plugged one nothing.
TEST(TriagePasted, Mlx5ModuleEventsAndHealth) {
  Report hot = judged({{"dmesg.txt",
                        "[  812.100] mlx5_core 0000:5c:00.0: Port module event[error]: module 0, Cable error, High "
                        "Temperature\n"
                        "[  812.300] mlx5_core 0000:5c:00.0 enp92s0np0: Link down\n"}});
  const Finding* m = find(hot, "kernel.nic_module");
  ASSERT_NE(m, nullptr) << testing::PrintToString(codes(hot));
  EXPECT_EQ(m->severity, Severity::kError);
  EXPECT_NE(m->message.find("module 0, Cable error, High Temperature"), std::string::npos) << m->message;
  EXPECT_EQ(quoted(*m), std::vector<std::string>{"dmesg.txt:1"});
  Report unplugged = judged({{"j.txt",
                              "Nov 27 10:00:01 gpu7 kernel: mlx5_core 0000:63:00.1: Port module event: module "
                              "1, Cable unplugged\n"}});
  const Finding* u = find(unplugged, "kernel.nic_module");
  ASSERT_NE(u, nullptr) << testing::PrintToString(codes(unplugged));
  EXPECT_EQ(u->severity, Severity::kWarning);
  Report plugged =
      judged({{"k.txt", "[    8.95] mlx5_core 0000:63:00.1: Port module event: module 1, Cable plugged\n"}});
  EXPECT_EQ(find(plugged, "kernel.nic_module"), nullptr) << testing::PrintToString(codes(plugged));
  for (const char* line :
       {"[ 3.1] mlx5_core 0000:01:00.0: mlx5_pcie_event:299:(pid 165): Detected insufficient power on the PCIe slot "
        "(27W).",
        "[ 9.2] mlx5_core 0000:d2:00.0: poll_health:174:(pid 0): device's health compromised - reached miss count",
        "[ 9.3] mlx5_core 0000:d2:00.0: print_health_info:424:(pid 0): synd 0x8: unrecoverable hardware error",
        "2026-10-03T05:58:06-0400 h kernel: mlx5_core 0000:61:00.0: print_health_info:520:(pid 0): synd 0x10: High "
        "temperature",
        "[78206.864928] mlx5_core 0001:00:00.0: mlx5_health_try_recover:313:(pid 3174): health recovery flow aborted, "
        "PCI reads still not working",
        "[   85.87] mlx5_core 0004:01:00.1: mlx5_pci_err_detected Device state = 2 pci_status: 0. Exit, result = 3, "
        "need reset",
        "[ 912.4] mlx5_core 0000:3b:00.0: mlx5_fw_fatal_reporter_err_work:1983:(pid 123): Driver is in error state. "
        "Unloading"}) {
    Report r = judged({{"h.txt", std::string(line) + "\n"}});
    const Finding* h = find(r, "kernel.nic_health");
    ASSERT_NE(h, nullptr) << line << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(h->severity, Severity::kError);
  }
}

// Only NCCL's socket wordings are socket failures: a line that says "connect" about NVLink
// or NICs is not; a framework's invalid usage after the warning naming its cause is that
// cause's, not a finding of its own.
TEST(TriagePasted, SocketCodesNeedSocketWordsAndInvalidUsageFollowsItsCause) {
  Report nv = judged({{"w.log",
                       "n1:5:5 [0] graph/paths.cc:320 NCCL WARN P2P is disabled between NVLINK connected GPUs 1 "
                       "and 0.\n"
                       "n1:5:5 [0] transport/net_ib/connect.cc:987 NCCL WARN NET/IB : Attempted to connect "
                       "incompatible devices: [0]mlx5_0:1/IB and [0]mlx5_4:1/RoCE.\n"
                       "n1:5:5 [0] bootstrap.cc:1184 NCCL WARN Unexpected connections are not empty\n"}});
  EXPECT_EQ(find(nv, "nccl.socket_connect"), nullptr) << testing::PrintToString(codes(nv));
  EXPECT_NE(find(nv, "nccl.p2p_disabled_nvlink"), nullptr) << testing::PrintToString(codes(nv));
  const Finding* rest = find(nv, "nccl.warn");
  ASSERT_NE(rest, nullptr) << testing::PrintToString(codes(nv));
  EXPECT_EQ(quoted(*rest), std::vector<std::string>{"w.log:3"});
  for (const char* line : {"n1:5:6 [0] misc/socket.cc:596 NCCL WARN socketStartConnect: connect to 10.0.0.2<43211> "
                           "failed : Connection refused",
                           "n1:5:6 [0] misc/socket.cc:622 NCCL WARN socketPollConnect to 10.0.0.2<43211> failed "
                           "with error No route to host",
                           "n1:5:6 [0] include/socket.h:400 NCCL WARN Net : Connect to 10.0.0.2<43211> failed : "
                           "Connection timed out"}) {
    Report r = judged({{"s.log", std::string(line) + "\n"}});
    EXPECT_NE(find(r, "nccl.socket_connect"), nullptr) << line << ": " << testing::PrintToString(codes(r));
  }
  Report acc = judged({{"a.log",
                        "n1:5:6 [0] misc/socket.cc:538 NCCL WARN socketFinalizeAccept from 10.0.0.3<5000>: "
                        "wrong type 3 != 4\n"}});
  EXPECT_NE(find(acc, "nccl.socket_accept"), nullptr) << testing::PrintToString(codes(acc));
  Report dup =
      judged({{"w.log",
               "n1:5:5 [1] init.cc:904 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1b000\n"
               "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, invalid usage (run with NCCL_DEBUG=WARN for "
               "details), NCCL version 2.21.5\n"}});
  const Finding* d = find(dup, "nccl.duplicate_gpu");
  ASSERT_NE(d, nullptr) << testing::PrintToString(codes(dup));
  EXPECT_EQ(quoted(*d), (std::vector<std::string>{"w.log:1", "w.log:2"}));
  EXPECT_EQ(find(dup, "nccl.invalid_usage"), nullptr) << testing::PrintToString(codes(dup));
}

// /dev/shm: shm_open refused is the mount's mode, and the segment error after it is its
// consequence (not a full /dev/shm); a SIGBUS whose backtrace names NCCL is /dev/shm too
// small, one without NCCL in it is nothing of NCCL's; UCX's retries exceeded are the same
// completion as NCCL's status=12.
TEST(TriagePasted, SharedMemoryRefusedFullOrBusErrorAndUcxRetries) {
  Report r = judged({{"w.log",
                      "node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied\n"
                      "node08:27106:27302 [0] NCCL INFO include/shm.h:41 -> 2\n"
                      "node08:27106:27302 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
                      "nccl-shm-recv-b7948f403864987a-0-3-0 (size 4460544)\n"}});
  const Finding* perm = find(r, "nccl.shm_permission");
  ASSERT_NE(perm, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*perm), (std::vector<std::string>{"w.log:1", "w.log:3"}));
  EXPECT_EQ(find(r, "nccl.shm_exhausted"), nullptr) << testing::PrintToString(codes(r));

  const std::string sigbus =
      "[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical address)\n"
      "==== backtrace (tid:   3095) ====\n"
      " 0 0x0000000000043090 killpg()  ???:0\n";
  Report bus = judged({{"crash.txt", sigbus + " 2 0x000000000007587d ncclGroupEnd()  ???:0\n"}});
  const Finding* shm = find(bus, "nccl.shm_exhausted");
  ASSERT_NE(shm, nullptr) << testing::PrintToString(codes(bus));
  EXPECT_EQ(quoted(*shm), std::vector<std::string>{"crash.txt:1"});
  EXPECT_EQ(bus.triage->files[0].kinds, std::vector<std::string>{"framework-log"});
  Report other = judged({{"crash.txt", sigbus + " 2 0x000000000007587d memcpy()  ???:0\n"}});
  EXPECT_TRUE(other.findings.empty()) << testing::PrintToString(codes(other));

  Report ucx = judged({{"ucx.txt",
                        "[compute001:31180:0:31180] ib_mlx5_log.c:143  Transport retry count exceeded on mlx5_0:1/RoCE "
                        "(synd 0x15 vend 0x81 hw_synd 0/0)\n"}});
  EXPECT_NE(find(ucx, "nccl.ib_retry_exceeded"), nullptr) << testing::PrintToString(codes(ucx));
}

// PyTorch's watchdog: the rank whose last enqueued NCCL work is below the others' never
// reached the collective they time out in, and the timeout names it; equal numbers name
// no one.
TEST(TriagePasted, TimeoutNamesTheRankThatNeverReachedTheCollective) {
  auto rank_lines = [](int rank, int enqueued) {
    return fmt::format(
        "[rank{0}]:[E ProcessGroupNCCL.cpp:563] [Rank {0}] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600027 "
        "milliseconds before timing out.\n"
        "[rank{0}]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank {0}] Timeout at NCCL work: 5, last enqueued NCCL work: "
        "{1}, last completed NCCL work: 4.\n",
        rank, enqueued);
  };
  Report r = judged({{"job.log", rank_lines(0, 5) + rank_lines(1, 4) + rank_lines(2, 5)}});
  const Finding* f = find(r, "nccl.timeout");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->subject, "rank 1");
  EXPECT_EQ(f->evidence.at("stalled_ranks"), nlohmann::ordered_json::array({1}));
  EXPECT_NE(f->message.find("rank 1 enqueued NCCL work up to 4 only, the others up to 5"), std::string::npos)
      << f->message;
  EXPECT_EQ(quoted(*f).front(), "job.log:4");

  Report same = judged({{"job.log", rank_lines(0, 5) + rank_lines(1, 5)}});
  const Finding* g = find(same, "nccl.timeout");
  ASSERT_NE(g, nullptr);
  EXPECT_FALSE(g->evidence.contains("stalled_ranks"));
  EXPECT_EQ(g->subject, "rank 0");
}

// The HCA driver asking for newer firmware: an error beside an RDMA tool that lists no
// device (ibstatus, ibv_devinfo: in another file, one line without a timestamp), naming
// both; information where nothing says the ports are missing.
TEST(TriagePasted, HcaFirmwareWhereNoRdmaDeviceCameUp) {
  const std::string driver =
      "mlx4_en 0000:0d:00.0: LSO not supported, please upgrade to later FW version to enable LSO\n"
      "[  939.319023] mlx4_en 0000:0d:00.0: UDP RSS is not supported on this device\n";
  Report r = judged({{"dmesg.txt", driver},
                     {"ibstatus.txt",
                      "[root@node045 ~]# ibstatus\n"
                      "Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)\n"}});
  const Finding* f = find(r, "kernel.hca_firmware");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"ibstatus.txt:2", "dmesg.txt:1"}));
  ASSERT_EQ(r.triage->files.size(), 2u);
  EXPECT_EQ(r.triage->files[1].kinds, std::vector<std::string>{"rdma-info"});
  EXPECT_TRUE(r.triage->files[1].note.empty()) << r.triage->files[1].note;

  Report alone = judged({{"dmesg.txt", driver}});
  const Finding* info = find(alone, "kernel.hca_firmware");
  ASSERT_NE(info, nullptr) << testing::PrintToString(codes(alone));
  EXPECT_EQ(info->severity, Severity::kInfo);
  // "No IB devices found" alone (a machine without RDMA) is no finding.
  Report none = judged({{"devinfo.txt", "No IB devices found\n"}});
  EXPECT_EQ(find(none, "kernel.hca_firmware"), nullptr);
  EXPECT_TRUE(std::none_of(none.findings.begin(), none.findings.end(), [](const Finding& x) {
    return x.severity >= Severity::kWarning;
  })) << testing::PrintToString(codes(none));
}

// NCCL's socket interfaces: a prefixed NET/Socket line naming container bridges, and the
// same list broken into one entry per line under its head; bond0 and ib0 alone are fine.
TEST(TriagePasted, SocketsOverInterfacesThatReachNoOtherHost) {
  Report r = judged({{"a.log",
                      "h1:7:7 [0] NCCL INFO Bootstrap : Using [0]bond0:10.0.0.1<0>\n"
                      "h1:7:9 [0] NCCL INFO NET/Socket : Using [0]bond0:10.0.0.1<0> [1]br-05ab815fa14e:172.19.0.1<0> "
                      "[2]veth6163fba:fe80::b878:6cff:fe52:abe2%veth6163fba<0>\n"}});
  const Finding* f = find(r, "nccl.socket_ifaces_unroutable");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->hosts, std::vector<std::string>{"h1"});
  EXPECT_EQ(f->evidence.at("interfaces"), (nlohmann::json{"br-05ab815fa14e", "veth6163fba"}));
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"a.log:2"});
  Report broken = judged({{"b.txt",
                           "INFO NET/Socket : Using\n"
                           "[0]bond0:192.168.1.161<0>\n"
                           "[1]docker0:172.17.0.1<0>\n"
                           "[2]br-d5d80d7dbbad:172.21.0.1<0>\n"}});
  const Finding* g = find(broken, "nccl.socket_ifaces_unroutable");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(broken));
  EXPECT_EQ(g->subject, "NET/Socket");
  EXPECT_EQ(g->evidence.at("interfaces"), (nlohmann::json{"br-d5d80d7dbbad", "docker0"}));
  // Copied from a web page's source: the same list HTML-escaped.
  Report web = judged({{"w.txt", "h2:7:9 [0] NCCL INFO NET/Socket : Using [0]docker0:172.17.0.1&lt;0&gt;\n"}});
  const Finding* w = find(web, "nccl.socket_ifaces_unroutable");
  ASSERT_NE(w, nullptr) << testing::PrintToString(codes(web));
  EXPECT_EQ(w->evidence.at("interfaces"), (nlohmann::json{"docker0"}));
  // Numeric references, decimal and hex (Python's html.escape writes &#x27;), and &nbsp;.
  Report num = judged({{"n.txt", "h2:7:9&nbsp;[0] NCCL INFO NET/Socket : Using [0]docker0:172.17.0.1&#60;0&#x3e;\n"}});
  const Finding* n = find(num, "nccl.socket_ifaces_unroutable");
  ASSERT_NE(n, nullptr) << testing::PrintToString(codes(num));
  EXPECT_EQ(n->evidence.at("interfaces"), (nlohmann::json{"docker0"}));
  Report fine =
      judged({{"c.log", "h1:7:9 [0] NCCL INFO NET/Socket : Using [0]bond0:10.0.0.1<0> [1]ib0:10.1.0.1<0>\n"}});
  EXPECT_EQ(find(fine, "nccl.socket_ifaces_unroutable"), nullptr) << testing::PrintToString(codes(fine));
}

// A connection that failed to an address no other host reaches: NCCL's, to the loopback;
// Open MPI's TCP transport's, to docker0's default address; UCX's, to the loopback. One to a
// routable address is only a failed connection.
TEST(TriagePasted, ConnectsToTheLoopbackOrADockerBridge) {
  Report r = judged({{"a.log",
                      "h1:5:9 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 127.0.0.1<45069> "
                      "failed : Software caused connection abort\n"
                      "[n1][[38971,1],2][btl_tcp_endpoint.c:796:mca_btl_tcp_endpoint_complete_connect] connect() to "
                      "172.17.0.1 failed: Connection refused (111)\n"
                      "[1619044902.015564] [host:33810:0]           sock.c:261  UCX  ERROR connect(fd=23, "
                      "dest_addr=127.0.0.1:47793) failed: Connection refused\n"}});
  std::set<std::string> subjects;
  for (const Finding& f : r.findings) {
    if (f.code == "nccl.socket_ifaces_unroutable") subjects.insert(f.subject);
  }
  EXPECT_EQ(subjects, (std::set<std::string>{"NCCL's sockets", "Open MPI's TCP transport", "UCX's TCP transport"}))
      << testing::PrintToString(codes(r));
  Report routable = judged({{"b.log",
                             "h1:5:9 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.7<45069> "
                             "failed : Connection refused\n"}});
  EXPECT_EQ(find(routable, "nccl.socket_ifaces_unroutable"), nullptr) << testing::PrintToString(codes(routable));
  EXPECT_NE(find(routable, "nccl.socket_connect"), nullptr) << testing::PrintToString(codes(routable));
  // Gloo's pair to the loopback it fell back to, its address wrapped onto the next line as
  // pasted (aws-do-eks#50's shape), with the warning that says why.
  Report gloo = judged({{"g.log",
                         "[rank8] Warning: Unable to resolve hostname to a (local) address. Using the loopback\n"
                         "        address as fallback. Manually set the network interface with GLOO_SOCKET_IFNAME\n"
                         "[rank8] Gloo connectFullMesh failed ... timed out connecting: SO_ERROR: Connection refused,\n"
                         "        remote=[127.0.0.1]:14215\n"}});
  const Finding* g = find(gloo, "nccl.socket_ifaces_unroutable");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(gloo));
  EXPECT_EQ(g->subject, "Gloo's sockets");
  EXPECT_EQ(quoted(*g), (std::vector<std::string>{"g.log:3", "g.log:2"}));
  EXPECT_NE(g->hint.find("GLOO_SOCKET_IFNAME"), std::string::npos) << g->hint;
  Report gloo_routable =
      judged({{"g.log", "Gloo connectFullMesh failed ... SO_ERROR: Connection refused, remote=[10.0.0.7]:14215\n"}});
  EXPECT_EQ(find(gloo_routable, "nccl.socket_ifaces_unroutable"), nullptr)
      << testing::PrintToString(codes(gloo_routable));
}

// Fabric Manager in journalctl's form: no NVSwitch (a warning: fatal on an NVSwitch
// system, nothing on a bridged pair), and a version that is not the driver's (an error).
TEST(TriagePasted, FabricManagerLines) {
  Report r = judged(
      {{"fm.txt",
        "Nov 15 14:15:47 gpu1 systemd[1]: Starting NVIDIA fabric manager service...\n"
        "Nov 15 14:15:47 gpu1 nv-fabricmanager[4177]: request to query NVSwitch device information from NVSwitch "
        "driver failed with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]\n"
        "Nov 15 14:16:02 gpu2 nv-fabricmanager[811]: fabric manager NVIDIA GPU driver interface version 550.54.15 "
        "don't match with driver version 550.90.07. Please update with matching NVIDIA driver package.\n"}});
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"fabric-manager-log"});
  const Finding* none = find(r, "nvlink.fm_no_nvswitch");
  ASSERT_NE(none, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(none->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*none), std::vector<std::string>{"fm.txt:2"});
  const Finding* version = find(r, "nvlink.fm_version_mismatch");
  ASSERT_NE(version, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(version->severity, Severity::kError);
  EXPECT_EQ(quoted(*version), std::vector<std::string>{"fm.txt:3"});
}

// nvidia-smi nvlink -s: a GPU with links inactive beside active ones is named; a listing
// with every link inactive (PCIe cards without bridges) and one with all up are not.
// Two hosts' listings pasted one after the other are told apart by the GPU index restarting.
TEST(TriagePasted, NvlinkStatusInactiveLinks) {
  Report r = judged({{"nvlink.txt",
                      "$ nvidia-smi nvlink -s\n"
                      "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-aaaa)\n"
                      "\t Link 0: 25 GB/s\n\t Link 1: 25 GB/s\n\t Link 2: 25 GB/s\n"
                      "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-bbbb)\n"
                      "\t Link 0: 25 GB/s\n\t Link 1: <inactive>\n\t Link 2: <inactive>\n"
                      "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-cccc)\n"
                      "\t Link 0: <inactive>\n\t Link 1: <inactive>\n\t Link 2: <inactive>\n"
                      "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-dddd)\n"
                      "\t Link 0: 25 GB/s\n\t Link 1: 25 GB/s\n\t Link 2: 25 GB/s\n"}});
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"nvidia-smi-nvlink"});
  std::vector<const Finding*> found;
  for (const Finding& f : r.findings) {
    if (f.code == "nvlink.link_inactive") found.push_back(&f);
  }
  ASSERT_EQ(found.size(), 2u) << testing::PrintToString(codes(r));
  EXPECT_EQ(found[0]->severity, Severity::kWarning);
  EXPECT_EQ(found[0]->subject, "NVLink of GPU 1 (nvlink.txt)");
  EXPECT_EQ(quoted(*found[0]), (std::vector<std::string>{"nvlink.txt:6", "nvlink.txt:8", "nvlink.txt:9"}));
  EXPECT_NE(found[1]->message.find("GPU 0: links 0, 1, 2 inactive of 3"), std::string::npos) << found[1]->message;
  Report pcie = judged({{"p.txt",
                         "GPU 0: NVIDIA L40S (UUID: GPU-1)\n\t Link 0: <inactive>\n"
                         "GPU 1: NVIDIA L40S (UUID: GPU-2)\n\t Link 0: <inactive>\n"}});
  EXPECT_EQ(find(pcie, "nvlink.link_inactive"), nullptr) << testing::PrintToString(codes(pcie));
  // nvidia-smi's "all links are inActive" for one GPU: a fault on a baseboard GPU (SXM,
  // B200) even alone, or beside GPUs whose links are up; nothing on a PCIe card alone.
  Report alone = judged({{"a.txt",
                          "GPU 5: NVIDIA H100 80GB HBM3 (UUID: GPU-5)\n"
                          "NVML: Unable to retrieve NVLink information as all links are inActive\n"}});
  const Finding* a = find(alone, "nvlink.link_inactive");
  ASSERT_NE(a, nullptr) << testing::PrintToString(codes(alone));
  EXPECT_EQ(quoted(*a), (std::vector<std::string>{"a.txt:1", "a.txt:2"}));
  EXPECT_NE(a->message.find("GPU 5: all its links inactive"), std::string::npos) << a->message;
  Report beside = judged({{"b.txt",
                           "GPU 0: NVIDIA RTX A6000 (UUID: GPU-0)\n\t Link 0: 14.062 GB/s\n"
                           "GPU 1: NVIDIA RTX A6000 (UUID: GPU-1)\n"
                           "Unable to retrieve NVLink information as all links are inActive\n"}});
  EXPECT_NE(find(beside, "nvlink.link_inactive"), nullptr) << testing::PrintToString(codes(beside));
  // Bridges join PCIe cards in pairs: a third card with no link beside a bridged pair is
  // the odd one out (information); two such cards could be a pair whose bridge failed.
  const std::string pair =
      "GPU 0: NVIDIA RTX A6000 (UUID: GPU-0)\n\t Link 0: 14.062 GB/s\n"
      "GPU 1: NVIDIA RTX A6000 (UUID: GPU-1)\n\t Link 0: 14.062 GB/s\n"
      "GPU 2: NVIDIA RTX A6000 (UUID: GPU-2)\n"
      "NVML: Unable to retrieve NVLink information as all links are inActive\n";
  Report odd = judged({{"o.txt", pair}});
  const Finding* o = find(odd, "nvlink.link_inactive");
  ASSERT_NE(o, nullptr) << testing::PrintToString(codes(odd));
  EXPECT_EQ(o->severity, Severity::kInfo);
  EXPECT_NE(o->message.find("no partner"), std::string::npos) << o->message;
  Report two = judged({{"t.txt", pair + "GPU 3: NVIDIA RTX A6000 (UUID: GPU-3)\n"
                                        "NVML: Unable to retrieve NVLink information as all links are inActive\n"}});
  o = find(two, "nvlink.link_inactive");
  ASSERT_NE(o, nullptr) << testing::PrintToString(codes(two));
  EXPECT_EQ(o->severity, Severity::kWarning);
  Report card = judged({{"c.txt",
                         "GPU 0: NVIDIA H100 PCIe (UUID: GPU-0)\n"
                         "NVML: Unable to retrieve NVLink information as all links are inActive\n"}});
  EXPECT_EQ(find(card, "nvlink.link_inactive"), nullptr) << testing::PrintToString(codes(card));
}

// nvidia-smi -q: a memory repair pending under Remapped Rows (or Retired Pages) is a GPU that
// needs a reset; a remapping failure is one to replace; "Pending : No" is nothing.
TEST(TriagePasted, GpuMemoryRepairPendingInNvidiaSmiQuery) {
  Report r = judged({{"q.txt",
                      "GPU 00000000:CB:00.0\n    Remapped Rows\n        Correctable Error                 : 0\n"
                      "        Uncorrectable Error               : 2\n        Pending                           : Yes\n"
                      "        Remapping Failure Occurred        : No\n    Temperature\n        Pending : Yes\n"}});
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"nvidia-smi-query"});
  const Finding* f = find(r, "kernel.gpu_reset_required");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"q.txt:5"});
  Report gone = judged({{"f.txt",
                         "    Remapped Rows\n        Pending                           : No\n"
                         "        Remapping Failure Occurred        : Yes\n"}});
  const Finding* g = find(gone, "kernel.gpu_reset_required");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(gone));
  EXPECT_NE(g->message.find("spare memory rows ran out"), std::string::npos) << g->message;
  Report fine = judged({{"ok.txt",
                         "    Remapped Rows\n        Pending                           : No\n"
                         "        Remapping Failure Occurred        : No\n"}});
  EXPECT_EQ(find(fine, "kernel.gpu_reset_required"), nullptr) << testing::PrintToString(codes(fine));
}

// CUDA's uncorrectable ECC error, bare or in NCCL's "Cuda failure": a GPU to reset.
TEST(TriagePasted, CudaUncorrectableEcc) {
  Report r = judged({{"app.log", "RuntimeError: CUDA error: uncorrectable ECC error encountered\n"},
                     {"nccl.log",
                      "gpu7:88:88 [3] enqueue.cc:1401 NCCL WARN Cuda failure 214 'uncorrectable ECC error "
                      "encountered'\n"}});
  const Finding* f = find(r, "kernel.gpu_reset_required");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"app.log:1", "nccl.log:1"}));
}

// CUDA's errors that point at the machine, by CUDA's catalogue (cudaGetErrorString and the
// enums of CUDA 13.0): in NCCL's warnings, a framework's traceback, cuda-samples' form and a
// driver-API program's, each its code; the program's own mistakes and an application's out
// of memory are not.
TEST(TriagePasted, CudaErrorsOfTheCatalogueInAnyProgram) {
  const std::pair<const char*, const char*> cases[] = {
      {"n1:5:5 [0] init.cc:1700 NCCL WARN Cuda failure 711 'peer mapping resources exhausted'",
       "nccl.cuda_too_many_peers"},
      {"CUDA error at p2p.cu:20 code=711(cudaErrorTooManyPeers) \"cudaDeviceEnablePeerAccess(1, 0)\"",
       "nccl.cuda_too_many_peers"},
      {"RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution", "nccl.cuda_nvlink_error"},
      {"cuMemcpyPeer failed: CUDA_ERROR_CONTAINED", "nccl.cuda_nvlink_error"},
      {"n1:5:9 [2] enqueue.cc:1400 NCCL WARN Cuda failure 'the launch timed out and was terminated'",
       "nccl.cuda_launch_timeout"},
      {"RuntimeError: CUDA error: device doesn't have valid Grid license", "nccl.cuda_unlicensed"},
      {"torch.AcceleratorError: CUDA error: MPS client failed to connect to the MPS control daemon or the MPS server",
       "nccl.cuda_mps"},
      {"cuInit failed: CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "nccl.cuda_driver_too_old"},
      {"RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.",
       "nccl.cuda_driver_too_old"},
      {"RuntimeError: CUDA error: no CUDA-capable device is detected", "nccl.no_cuda_device"},
      {"torch.AcceleratorError: CUDA error: invalid device ordinal", "nccl.invalid_device"},
      // CUDA's sentences a framework raises with no "CUDA error:" before them.
      {"RuntimeError: CUDA driver version is insufficient for CUDA runtime version", "nccl.cuda_driver_too_old"},
      {"RuntimeError: No CUDA GPUs are available", "nccl.no_cuda_device"},
      // A framework's own words for it, on a line naming CUDA (MindSpore's FAQ).
      {"[ERROR] DEVICE [mindspore/ccsrc/runtime/device/gpu/cuda_driver.cc:245] SetDevice] SetDevice for id:7 failed, "
       "ret[101], invalid device ordinal.",
       "nccl.invalid_device"},
      {"RuntimeError: CUDA error: misaligned address", "nccl.cuda_kernel_fault"},
      {"cudaGetDeviceCount returned 803 -> system has unsupported display driver / cuda driver combination",
       "kernel.driver_mismatch"},
  };
  for (const auto& [line, code] : cases) {
    Report r = judged({{"job.log", std::string("Traceback (most recent call last):\n") + line + "\n"}});
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << line << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError) << line;
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"job.log:2"}) << line;
    EXPECT_EQ(find(r, "nccl.warn"), nullptr) << line;  // read, not left to "other NCCL WARN lines"
  }
  // Not the machine's: an application's out of memory, CUDA's words without CUDA, NCCL's
  // "timed out" kernel watchdog is not a collective's timeout.
  for (const char* line : {"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
                           "RuntimeError: CUDA error: out of memory", "error: invalid device ordinal 3 in config"}) {
    Report r = judged({{"job.log", std::string(line) + "\n"}});
    EXPECT_TRUE(r.findings.empty()) << line << ": " << testing::PrintToString(codes(r));
  }
  Report watchdog = judged(
      {{"n.log", "n1:5:9 [2] enqueue.cc:1400 NCCL WARN Cuda failure 'the launch timed out and was terminated'\n"}});
  EXPECT_EQ(find(watchdog, "nccl.timeout"), nullptr) << testing::PrintToString(codes(watchdog));
  // The same error from NCCL and from the framework above it: one finding quoting both.
  Report both = judged({{"n.log",
                         "n1:5:9 [0] init.cc:1700 NCCL WARN Cuda failure 'peer mapping resources exhausted'\n"
                         "RuntimeError: CUDA error: peer mapping resources exhausted\n"}});
  const Finding* f = find(both, "nccl.cuda_too_many_peers");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(both));
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"n.log:1", "n.log:2"}));
  EXPECT_EQ(std::count_if(both.findings.begin(), both.findings.end(),
                          [](const Finding& x) { return x.code == "nccl.cuda_too_many_peers"; }),
            1);
}

// NCCL 2.28.9's own wordings (bench/nccl_warn_coverage.py lists them) for causes on the
// machine: each its code, and none left to "other NCCL WARN lines" where another signature
// reads it.
// Each line, alone in a file, is read as its code: an error quoting that line, with no bare
// nccl.warn beside it.
void expect_read_as_errors(std::span<const std::pair<const char*, const char*>> cases) {
  for (const auto& [line, code] : cases) {
    Report r = judged({{"n.log", std::string(line) + "\n"}});
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << line << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError) << line;
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"n.log:1"}) << line;
    EXPECT_EQ(find(r, "nccl.warn"), nullptr) << line << ": " << testing::PrintToString(codes(r));
  }
}

TEST(TriagePasted, NcclWarningsOfTheMachineByNcclsOwnWords) {
  const std::pair<const char*, const char*> cases[] = {
      {"n1:5:5 [0] transport/net_ib.cc:715 NCCL WARN NET/IB : Unable to open device mlx5_2", "nccl.ib_device_unopened"},
      {"n1:5:5 [0] misc/socket.cc:298 NCCL WARN Net : error encountered when getting address info : Name or service "
       "not known",
       "nccl.comm_id_unresolved"},
      {"n1:5:5 [0] mnnvl.cc:67 NCCL WARN MNNVL (cliqueSize 72) is available but not working on this system. Check "
       "the IMEX channel configuration (/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this "
       "issue.",
       "nvlink.imex_unavailable"},
      {"n1:5:5 [0] transport/nvls.cc:285 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size "
       "4194304 : CUDA error 1 'invalid argument'.",
       "nvlink.fm_failed"},
      {"n1:5:5 [1] init.cc:896 NCCL WARN Mismatched NCCL version detected : rank 0 version 21903 rank 1 version "
       "21405",
       "nccl.version_mismatch"},
      {"n1:5:5 [0] ras/ras.cc:428 NCCL WARN NCCL version mismatch with remote peer n2 (local: 22809, remote 22703)",
       "nccl.version_mismatch"},
      {"n1:5:5 [0] misc/nvmlwrap.cc:75 NCCL WARN Failed to open libnvidia-ml.so.1", "container.driver_libs_missing"},
      {"NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that the NVIDIA Display "
       "Driver is properly installed and present in your system path.",
       "container.driver_libs_missing"},
  };
  expect_read_as_errors(cases);
  // The version lines themselves, where both are there: one finding, not two.
  Report both = judged({{"n.log",
                         "n1:5:5 [0] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
                         "n2:7:7 [0] NCCL INFO NCCL version 2.14.5+cuda11.8\n"
                         "n1:5:5 [1] init.cc:896 NCCL WARN Mismatched NCCL version detected : rank 0 version 21903 "
                         "rank 1 version 21405\n"}});
  EXPECT_EQ(std::count_if(both.findings.begin(), both.findings.end(),
                          [](const Finding& x) { return x.code == "nccl.version_mismatch"; }),
            1)
      << testing::PrintToString(codes(both));
}

// NCCL's warnings in the words of its older releases (2.4 to 2.23), from its source at each
// release: each read as its cause, not as "another NCCL WARN line".
TEST(TriagePasted, NcclWarningsInOlderReleasesWords) {
  const std::pair<const char*, const char*> cases[] = {
      {"n1:5:5 [0] NCCL WARN Net : No interface found in the same subnet as remote address 10.10.1.5<45123>",
       "nccl.socket_ifname_no_match"},
      {"n1:5:5 [0] NCCL WARN Error: failed to create shared memory file /dev/shm/nccl-Xy12, error No space left on "
       "device (28)",
       "nccl.shm_exhausted"},
      {"n1:5:5 [0] NCCL WARN NET/IB : mlx5_0:1 Got async error event: port error", "nccl.ib_port_error"},
      {"n1:5:5 [0] NCCL WARN NET/IB : Can't connect net devices with different link_layer. i=0 remMeta.ndevs=1 "
       "link_layer=1 rem_link_layer=2",
       "nccl.ib_incompatible_devices"},
      {"n1:5:5 [0] NCCL WARN NET/IB : Local mergedDev=mlx5_0+mlx5_1 has a different number of devices=2 as "
       "remoteDev=mlx5_0 nRemDevs=1",
       "nccl.ib_list_mismatch"},
      {"n1:5:5 [0] NCCL WARN Failed to load CUDA missing symbol cuGetProcAddress", "nccl.cuda_driver_too_old"},
      {"n1:5:5 [0] NCCL WARN MNNVL (cliqueSize 4) is available but not supported on this system. Check the IMEX "
       "configuration.",
       "nvlink.imex_unavailable"},
      {"n1:5:5 [0] NCCL WARN Error: network IB not found.", "nccl.no_ib_device"},
      {"n1:5:5 [0] NCCL WARN Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='') : libcuda.so: cannot open "
       "shared object file: No such file or directory",
       "container.driver_libs_missing"},
  };
  expect_read_as_errors(cases);
  // INFO lines: NCCL went on, slower. NVLS given up where NCCL chose it itself; GPUs under
  // one PCIe switch without peer access; GPUDirect RDMA off on every HCA (2.4's words) or on
  // every GPU-NIC path a host printed.
  const std::pair<const char*, const char*> slower[] = {
      {"n1:5:5 [0] NCCL INFO Failed to bind NVLink SHARP (NVLS) Multicast memory of size 1610612736 : CUDA error "
       "801 'operation not supported'. Proceeding without NVLS support.",
       "nvlink.fm_failed"},
      {"n1:5:5 [0] NCCL INFO P2P is disabled between connected GPUs 1 and 0. You can repress this message with "
       "NCCL_IGNORE_DISABLED_P2P=1.",
       "topo.p2p_unsupported"},
      {"n1:5:5 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 0[0] / HCA 0 'mlx5_0' (no module or not "
       "supported by GPU)",
       "nccl.gdr_off"},
      {"n1:5:5 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 2 / HCA 0 (distance 5 > 4)", "nccl.gdr_off"},
  };
  for (const auto& [line, code] : slower) {
    Report r = judged({{"n.log", std::string(line) + "\n"}});
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << line << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kWarning) << line;
  }
  // A far pair is normal where another of the host's pairs is near: NCCL prints every pair.
  Report near =
      judged({{"n.log",
               "n1:5:5 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 2 / HCA 0 (distance 5 > 4)\n"
               "n1:5:5 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 2 / HCA 1 (distance 2 <= 4), read 1\n"}});
  EXPECT_EQ(find(near, "nccl.gdr_off"), nullptr) << testing::PrintToString(codes(near));
}

// PyTorch's own sentences: its processes out of /dev/shm (DataLoader workers), and two CUDA
// errors it words without "CUDA error"; the container toolkit's for a driver too old and one
// missing.
TEST(TriagePasted, PytorchSharedMemoryAndDriverSentences) {
  const std::pair<const char*, const char*> cases[] = {
      {"ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
       "nccl.shm_exhausted"},
      {"RuntimeError: DataLoader worker (pid 9943) is killed by signal: Bus error. It is possible that dataloader's "
       "workers are out of shared memory. Please try to raise your shared memory limit.",
       "nccl.shm_exhausted"},
      {"RuntimeError: unable to write to file </torch_9931_3149260800_0>: No space left on device (28)",
       "nccl.shm_exhausted"},
      {"OSError: [Errno 28] No space left on device: '/dev/shm/psm_1234'", "nccl.shm_exhausted"},
      {"RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
       "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx",
       "nccl.cuda_driver_too_old"},
      {"RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!", "nccl.no_cuda_device"},
      // The container toolkit's words, before the container starts.
      {"docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: starting container "
       "process caused: process_linux.go:545: container init caused: Running hook #0:: error running hook: exit "
       "status 1, stdout: , stderr: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.0, "
       "please update your driver to a newer version, or use an earlier cuda container: unknown.",
       "nccl.cuda_driver_too_old"},
      {"nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared "
       "object file: no such file or directory: unknown.",
       "container.driver_libs_missing"},
  };
  for (const auto& [line, code] : cases) {
    Report r = judged({{"train.log", std::string(line) + "\n"}});
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << line << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError) << line;
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"train.log:1"}) << line;
  }
  // NCCL's own line about the same /dev/shm comes first: one finding, NCCL's.
  Report both = judged({{"train.log",
                         "n1:5:5 [0] NCCL WARN Error while creating shared memory segment /dev/shm/nccl-J3kAxv (size "
                         "9637888)\n"
                         "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
                         "shared memory (shm).\n"}});
  EXPECT_EQ(std::count_if(both.findings.begin(), both.findings.end(),
                          [](const Finding& x) { return x.code == "nccl.shm_exhausted"; }),
            1)
      << testing::PrintToString(codes(both));
  // A disk full elsewhere is not /dev/shm's.
  Report disk = judged({{"train.log", "OSError: [Errno 28] No space left on device: '/data/ckpt/step_100.pt'\n"}});
  EXPECT_EQ(find(disk, "nccl.shm_exhausted"), nullptr) << testing::PrintToString(codes(disk));
}

// Locked memory refused in libfabric's and aws-ofi-nccl's words and a verbs program's, and
// libibverbs' own warning of the limit.
TEST(TriagePasted, RdmaResourcesRefusedForLockedMemoryInAnyProgram) {
  for (const char* line :
       {"ip-10-0-0-1:1234:1300 [0] NCCL WARN NET/OFI Couldn't open CQ. RC: -12, ERROR: Cannot allocate memory",
        "libfabric:1234:1690000000::efa:cq:efa_cq_open():368<warn> Unable to create extended CQ: Cannot allocate "
        "memory",
        "libfabric:1234:1690000000::efa:ep_ctrl:efa_base_ep_create_qp():120<warn> ibv_create_qp failed. errno: 12",
        "ibv_create_cq failed: Cannot allocate memory"}) {
    Report r = judged({{"job.log", std::string(line) + "\n"}});
    const Finding* f = find(r, "nccl.ib_memlock");
    ASSERT_NE(f, nullptr) << line << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError) << line;
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"job.log:1"}) << line;
  }
  // NCCL's and a libfabric line together: one finding.
  Report both = judged({{"job.log",
                         "n1:5:5 [0] NCCL WARN Call to ibv_create_cq failed with error Cannot allocate memory\n"
                         "ibv_create_cq failed: Cannot allocate memory\n"}});
  EXPECT_EQ(std::count_if(both.findings.begin(), both.findings.end(),
                          [](const Finding& x) { return x.code == "nccl.ib_memlock"; }),
            1)
      << testing::PrintToString(codes(both));
  Report lim = judged({{"job.log",
                        "libibverbs: Warning: RLIMIT_MEMLOCK is 65536 bytes.\n"
                        "    This will severely limit memory registrations.\n"}});
  const Finding* low = find(lim, "limits.memlock_low");
  ASSERT_NE(low, nullptr) << testing::PrintToString(codes(lim));
  EXPECT_NE(low->message.find("64 KiB"), std::string::npos) << low->message;
  // Intel MPI's DAPL provider says so without the value.
  Report dapl = judged({{"job.log",
                         "[0] DAPL startup: RLIMIT_MEMLOCK too small\n"
                         "[1] DAPL startup: RLIMIT_MEMLOCK too small\n"}});
  const Finding* d = find(dapl, "limits.memlock_low");
  ASSERT_NE(d, nullptr) << testing::PrintToString(codes(dapl));
  EXPECT_NE(d->message.find("too small, by its own words"), std::string::npos) << d->message;
  EXPECT_EQ(quoted(*d), (std::vector<std::string>{"job.log:1", "job.log:2"}));
  // A dma-buf registration is GPU memory, which the limit does not count.
  Report dmabuf = judged({{"job.log", "ibv_reg_dmabuf_mr failed: Cannot allocate memory\n"}});
  EXPECT_EQ(find(dmabuf, "nccl.ib_memlock"), nullptr) << testing::PrintToString(codes(dmabuf));
}

// A NIC driver's own judgement of its slot (ixgbe, i40e), with the link it printed before.
TEST(TriagePasted, NicDriverSaysItsPcieLinkIsNotEnough) {
  Report ixgbe = judged({{"dmesg.txt",
                          "[    5.1] ixgbe 0000:03:00.0: PCI Express bandwidth of 8GT/s available\n"
                          "[    5.1] ixgbe 0000:03:00.0: (Speed:5.0GT/s, Width: x4, Encoding Loss:20%)\n"
                          "[    5.1] ixgbe 0000:03:00.0: This is not sufficient for optimal performance of this card.\n"
                          "[    5.1] ixgbe 0000:03:00.0: For optimal performance, at least 20GT/s of bandwidth is "
                          "required.\n"}});
  const Finding* f = find(ixgbe, "topo.pcie_degraded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(ixgbe));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->message.find("(ixgbe)"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("5 GT/s x4"), std::string::npos) << f->message;
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"dmesg.txt:3"});
  // Without dmesg's timestamps, and i40e's words.
  Report i40e = judged({{"dmesg.txt",
                         "i40e 0000:3b:00.0: PCI-Express: Speed 8.0GT/s Width x4\n"
                         "i40e 0000:3b:00.0: PCI-Express bandwidth available for this device may be insufficient "
                         "for optimal performance.\n"}});
  f = find(i40e, "topo.pcie_degraded");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(i40e));
  EXPECT_NE(f->message.find("8 GT/s x4"), std::string::npos) << f->message;
  // A driver that printed its link and said nothing more: no finding.
  Report fine = judged({{"dmesg.txt", "[    4.1] i40e 0000:3b:00.0: PCI-Express: Speed 8.0GT/s Width x8\n"}});
  EXPECT_EQ(find(fine, "topo.pcie_degraded"), nullptr) << testing::PrintToString(codes(fine));
}

// PyTorch's NCCL errors end with the NCCL version the rank loaded: ranks whose errors name
// different ones ran different NCCLs. Compared among themselves only (NCCL's own version
// lines beside them may be another run's).
TEST(TriagePasted, FrameworkErrorsNamingDifferentNcclVersions) {
  const std::string e =
      "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
      "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version ";
  Report r = judged({{"train.log", "[rank0]: " + e + "2.19.3\n[rank1]: " + e + "2.14.3\n"}});
  const Finding* f = find(r, "nccl.version_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(f->message.find("'2.14.3'"), std::string::npos) << f->message;
  Report same = judged({{"train.log", "[rank0]: " + e + "2.19.3\n[rank1]: " + e + "2.19.3\n"}});
  EXPECT_EQ(find(same, "nccl.version_mismatch"), nullptr) << testing::PrintToString(codes(same));
  Report other_run = judged(
      {{"a.log", "n1:5:5 [0] NCCL INFO NCCL version 2.25.1+cuda12.8\n"}, {"b.log", "[rank0]: " + e + "2.21.5\n"}});
  EXPECT_EQ(find(other_run, "nccl.version_mismatch"), nullptr) << testing::PrintToString(codes(other_run));
}

// The host's memory failing: EDAC's uncorrected errors, the firmware's fatal memory record,
// the kernel retiring a poisoned page (errors); corrected ones alone (information).
TEST(TriagePasted, HostMemoryErrorsInTheKernelLog) {
  for (const char* log :
       {"[  100.1] EDAC MC0: 1 UE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x1234 "
        "offset:0x0 grain:32)\n",
        "EDAC amd64: MC0 UE (uncorrectable) error\n",
        "[  100.3] Memory failure: 0x12345: recovery action for dirty LRU page: Recovered\n",
        "[  100.3] {1}[Hardware Error]: Hardware error from APEI Generic Hardware Error Source: 1\n"
        "[  100.4] {1}[Hardware Error]: event severity: fatal\n"
        "[  100.5] {1}[Hardware Error]:  Error 0, type: fatal\n"
        "[  100.6] {1}[Hardware Error]:   section_type: memory error\n"}) {
    Report r = judged({{"dmesg.txt", log}});
    const Finding* f = find(r, "kernel.host_memory_error");
    ASSERT_NE(f, nullptr) << log << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError) << log;
  }
  Report ce = judged({{"dmesg.txt",
                       "[  100.1] EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 "
                       "slot:0 page:0x1234 offset:0x0 grain:32 syndrome:0x0)\n"}});
  const Finding* f = find(ce, "kernel.host_memory_error");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(ce));
  EXPECT_EQ(f->severity, Severity::kInfo);
  for (const char* quiet : {"[    2.1] EDAC MC: Ver: 3.0.0\n",
                            "[    2.2] EDAC MC0: Giving out device to module skx_edac controller Skylake "
                            "Socket#0 IMC#0: DEV 0000:3a:0a.0 (INTERRUPT)\n",
                            "[  100.3] {1}[Hardware Error]: event severity: corrected\n"
                            "[  100.4] {1}[Hardware Error]:   section_type: PCIe error\n"}) {
    Report r = judged({{"dmesg.txt", quiet}});
    EXPECT_EQ(find(r, "kernel.host_memory_error"), nullptr) << quiet << testing::PrintToString(codes(r));
  }
}

// NVSHMEM's warnings (NCCL's format with its own name) and its bootstrap's errors (NCCL's
// socket code, printed as "FILE:FUNCTION:LINE: message"), read as NCCL's.
TEST(TriagePasted, NvshmemWarningsAndBootstrapErrors) {
  topo::NcclLogLine l;
  ASSERT_TRUE(
      topo::split_nccl_line("node1:123:123 [0] bootstrap_uid.cpp:160 NVSHMEM WARN No socket interface found", l));
  EXPECT_EQ(l.host, "node1");
  EXPECT_EQ(l.level, "WARN");
  EXPECT_EQ(l.msg, "No socket interface found");
  ASSERT_TRUE(topo::split_nccl_line(
      "/build/nvshmem/src/modules/bootstrap/uid/bootstrap_uid.cpp:bootstrap_uid_init:148: No usable listening "
      "interface found",
      l));
  EXPECT_EQ(l.level, "WARN");
  EXPECT_EQ(l.msg, "No usable listening interface found");
  EXPECT_FALSE(topo::split_nccl_line("src/app/train_uid.cpp:main:12: started", l));
  for (const char* line :
       {"node1:123:123 [0] bootstrap_uid.cpp:160 NVSHMEM WARN No socket interface found",
        "/build/nvshmem/src/modules/bootstrap/uid/bootstrap_uid.cpp:bootstrap_uid_init:160: No socket interface "
        "found"}) {
    Report r = judged({{"job.log", std::string(line) + "\n"}});
    ASSERT_NE(find(r, "nccl.socket_ifname_no_match"), nullptr) << line << testing::PrintToString(codes(r));
  }
}

// NIC drivers and the container toolkit: a NIC's firmware file missing (network drivers only),
// a Broadcom NIC's firmware crashed (Linux's and ESXi's words), the toolkit refused a
// privileged step.
TEST(TriagePasted, NicFirmwareAndTheContainerToolkitRefused) {
  Report bnx2x = judged({{"dmesg.txt",
                          "[    5.1] bnx2x 0000:02:00.1: Direct firmware load for bnx2x/bnx2x-e2-7.13.21.0.fw failed "
                          "with error -2\n"}});
  const Finding* f = find(bnx2x, "kernel.nic_firmware_missing");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(bnx2x));
  EXPECT_EQ(f->severity, Severity::kError);
  Report ice = judged({{"dmesg.txt",
                        "[    5.1] ice 0000:17:00.0: The DDP package file was not found or could not be read. "
                        "Entering Safe Mode\n"}});
  f = find(ice, "kernel.nic_firmware_missing");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(ice));
  EXPECT_EQ(f->severity, Severity::kWarning);
  Report gpu = judged({{"dmesg.txt",
                        "[    5.1] i915 0000:00:02.0: Direct firmware load for i915/tgl_dmc_ver2_12.bin failed with "
                        "error -2\n"}});
  EXPECT_EQ(find(gpu, "kernel.nic_firmware_missing"), nullptr) << testing::PrintToString(codes(gpu));
  for (const char* line :
       {"[  120.1] bnxt_en 0000:41:00.0 ens3f0np0: Firmware fatal reset event received",
        "2025-01-01T10:00:00.123Z Wa(180) vmkwarning: cpu12:2097856)WARNING: bnxtnet: hwrm_get_version:1234: [vmnic2 : "
        "0x450000000000] VER_GET failed- FW_STATUS_REG: 0x89021"}) {
    Report r = judged({{"log.txt", std::string(line) + "\n"}});
    f = find(r, "kernel.nic_health");
    ASSERT_NE(f, nullptr) << line << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
  }
  Report denied = judged({{"enroot.txt",
                           "nvidia-container-cli: permission error: capability change failed: operation not "
                           "permitted\n[ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1\n"}});
  f = find(denied, "container.toolkit_denied");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(denied));
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"enroot.txt:1"});
  // The engine with no NVIDIA runtime registered, in Docker's, containerd's and the kubelet's
  // words; a runtime of another name missing is not it.
  for (const char* line :
       {"docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].",
        "docker: Error response from daemon: unknown or invalid runtime name: nvidia.",
        "Warning  FailedCreatePodSandBox  3s  kubelet  Failed to create pod sandbox: rpc error: code = Unknown desc = "
        "failed to get sandbox runtime: no runtime for \"nvidia\" is configured",
        "Warning  FailedCreatePodSandBox  kubelet  RuntimeClass \"nvidia\" not found"}) {
    Report r = judged({{"engine.txt", std::string(line) + "\n"}});
    f = find(r, "container.toolkit_missing");
    ASSERT_NE(f, nullptr) << line << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"engine.txt:1"});
  }
  Report other =
      judged({{"engine.txt", "docker: Error response from daemon: unknown or invalid runtime name: runsc.\n"}});
  EXPECT_EQ(find(other, "container.toolkit_missing"), nullptr);
  // An image without the shell its runtime starts, in enroot's and runc's words.
  for (const char* line :
       {"enroot-switchroot: failed to execute: /bin/sh: No such file or directory",
        "OCI runtime exec failed: exec failed: unable to start container process: exec: \"/bin/bash\": stat /bin/bash: "
        "no such file or directory: unknown"}) {
    Report r = judged({{"run.txt", std::string(line) + "\n"}});
    f = find(r, "container.image_no_shell");
    ASSERT_NE(f, nullptr) << line << testing::PrintToString(codes(r));
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"run.txt:1"});
  }
  // An image written to a full filesystem: mksquashfs under pyxis, Docker's and containerd's unpacking.
  for (const char* line :
       {"slurmstepd: error: pyxis:     Write failed because No space left on device",
        "docker: failed to register layer: Error processing tar file(exit status 1): write "
        "/usr/local/cuda-12.4/lib64/libcublasLt.so.12: no space left on device.",
        "Failed to pull image \"nvcr.io/nvidia/pytorch:24.05-py3\": failed to pull and unpack image: failed to "
        "extract layer sha256:0a1b: write /var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots/"
        "51/fs/usr/lib/x.so: no space left on device: unknown"}) {
    Report r = judged({{"pull.txt", std::string(line) + "\n"}});
    f = find(r, "container.image_storage_full");
    ASSERT_NE(f, nullptr) << line << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"pull.txt:1"});
  }
  // A program's own full disk (a checkpoint, /dev/shm) is not the image's.
  for (const char* line :
       {"OSError: [Errno 28] No space left on device: '/ckpt/step_100/model.pt'",
        "RuntimeError: unable to write to file </torch_9931_3149260800_0>: No space left on device (28)"}) {
    Report r = judged({{"run.txt", std::string(line) + "\n"}});
    EXPECT_EQ(find(r, "container.image_storage_full"), nullptr) << line;
  }
}

// A kernel module's build failing, by modpost, DKMS and MLNX_OFED's installer; a module built
// is nothing.
TEST(TriagePasted, KernelModuleBuildFailures) {
  const Finding* f = nullptr;
  for (const char* text :
       {"  MODPOST /usr/src/gdrdrv-2.3/Module.symvers\n"
        "ERROR: modpost: GPL-incompatible module gdrdrv.ko uses GPL-only symbol 'cc_mkdec'\n",
        "Building module:\ncleaning build area...\nmake -j16 KERNELRELEASE=6.5.0-14-generic...(bad exit status: 2)\n"
        "Error! Bad return status for module build on kernel: 6.5.0-14-generic (x86_64)\n",
        // MLNX_OFED's installer on its kernel package
        "Installing mlnx-ofed-kernel-modules-4.5...\n\nError: mlnx-ofed-kernel-modules installation failed!\n"}) {
    Report r = judged({{"build.txt", text}});
    f = find(r, "kernel.module_build_failed");
    ASSERT_NE(f, nullptr) << text << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
  }
  EXPECT_NE(find(judged({{"build.txt",
                          "ERROR: modpost: GPL-incompatible module gdrdrv.ko uses GPL-only symbol 'cc_mkdec'\n"}}),
                 "kernel.module_build_failed")
                ->message.find("gdrdrv.ko"),
            std::string::npos);
  EXPECT_EQ(find(judged({{"build.txt", "  LD [M]  /usr/src/gdrdrv-2.4/gdrdrv.ko\nDKMS: install completed.\n"}}),
                 "kernel.module_build_failed"),
            nullptr);
}

// libibverbs without a user-space driver for the kernel's devices; locked-memory limits in
// each listing's form, and unlimited or large ones left alone.
// The shared RDMA device plugin's refusal of an exclusive-mode node, from its log with
// Go's timestamps or as one line from a pod's status.
TEST(TriagePasted, RdmaSharedPluginRefusesExclusiveNetns) {
  Report r = judged({{"plugin.log",
                      "2023/09/08 17:43:19 periodic update interval: +300\n"
                      "2023/09/08 17:43:19 Exiting.. can not change : incorrect RDMA subsystem network namespace\n"}});
  const Finding* f = find(r, "container.rdma_netns_exclusive");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"plugin.log:2"});
  Report other = judged({{"plugin.log", "2023/09/08 17:43:19 too old kernel to get RDMA subsystem\n"}});
  EXPECT_EQ(find(other, "container.rdma_netns_exclusive"), nullptr) << testing::PrintToString(codes(other));
}

TEST(TriagePasted, RdmaProvidersAndLockedMemoryLimits) {
  Report none = judged({{"rdma.txt",
                         "$ ibv_devinfo\n"
                         "libibverbs: Warning: no userspace device-specific driver found for "
                         "/sys/class/infiniband_verbs/uverbs0\n"
                         "No IB devices found\n"}});
  const Finding* p = find(none, "topo.rdma_provider_missing");
  ASSERT_NE(p, nullptr) << testing::PrintToString(codes(none));
  EXPECT_EQ(p->severity, Severity::kError);
  EXPECT_EQ(quoted(*p), (std::vector<std::string>{"rdma.txt:2", "rdma.txt:3"}));
  Report no_config = judged({{"rdma.txt",
                              "  root@scout:~# ibv_devinfo\n  libibverbs: Warning: couldn't open config "
                              "directory '/etc/libibverbs.d'.\n  No IB devices found\n"}});
  const Finding* c = find(no_config, "topo.rdma_provider_missing");
  ASSERT_NE(c, nullptr) << testing::PrintToString(codes(no_config));
  EXPECT_EQ(quoted(*c), (std::vector<std::string>{"rdma.txt:2", "rdma.txt:3"}));
  // A provider libibverbs could not load, then no device: the NICs' provider. Beside a
  // device listed, another hardware's provider missing is nothing.
  const std::string unloaded =
      "libibverbs: Warning: couldn't load driver 'libmlx5-rdmav34.so': libmlx5-rdmav34.so: cannot open shared "
      "object file: No such file or directory\n";
  Report no_lib = judged({{"rdma.txt", unloaded + "No IB devices found\n"}});
  const Finding* l = find(no_lib, "topo.rdma_provider_missing");
  ASSERT_NE(l, nullptr) << testing::PrintToString(codes(no_lib));
  EXPECT_EQ(l->severity, Severity::kError);
  EXPECT_EQ(quoted(*l), (std::vector<std::string>{"rdma.txt:1", "rdma.txt:2"}));
  for (const std::string& quiet :
       {unloaded, unloaded + "hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\t\tport:\t1\n"
                             "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"}) {
    Report r = judged({{"rdma.txt", quiet}});
    EXPECT_EQ(find(r, "topo.rdma_provider_missing"), nullptr) << quiet << testing::PrintToString(codes(r));
  }

  // A ConnectX on the bus and no RDMA device: the RDMA driver stack is not loaded (a
  // warning); where the NIC's driver asks for firmware, kernel.hca_firmware says it instead.
  const std::string bus =
      "# lspci\n"
      "86fc:00:02.0 Network controller: Mellanox Technologies MT27500/MT27520 Family [ConnectX-3/ConnectX-3 Pro "
      "Virtual Function]\n"
      "ibstatus\n"
      "Fatal error:  device '*': sys files not found (/sys/class/infiniband/*/ports)\n";
  Report stack = judged({{"vm.txt", bus}});
  const Finding* s = find(stack, "topo.rdma_provider_missing");
  ASSERT_NE(s, nullptr) << testing::PrintToString(codes(stack));
  EXPECT_EQ(s->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*s), (std::vector<std::string>{"vm.txt:4", "vm.txt:2"}));
  Report fw =
      judged({{"vm.txt", bus + "[  5.1] mlx4_en 0000:0d:00.0: LSO not supported, please upgrade to later FW version to "
                               "enable LSO\n"}});
  EXPECT_EQ(find(fw, "topo.rdma_provider_missing"), nullptr) << testing::PrintToString(codes(fw));
  EXPECT_NE(find(fw, "kernel.hca_firmware"), nullptr) << testing::PrintToString(codes(fw));
  // libibverbs' ENOSYS: the kernel's verbs interface not loaded.
  Report enosys = judged({{"v.txt", "ibv_devinfo\nFailed to get IB devices list: Function not implemented\n"}});
  const Finding* nosys = find(enosys, "topo.rdma_provider_missing");
  ASSERT_NE(nosys, nullptr) << testing::PrintToString(codes(enosys));
  EXPECT_EQ(quoted(*nosys), std::vector<std::string>{"v.txt:2"});
  // DPDK's mlx drivers asking the same.
  Report dpdk = judged({{"d.txt",
                         "EAL: Probe PCI driver: net_mlx4 (15b3:1004) device: 6b7d:00:02.0 (socket 0)\n"
                         "net_mlx4: cannot list devices, is ib_uverbs loaded?\n"}});
  const Finding* asked = find(dpdk, "topo.rdma_provider_missing");
  ASSERT_NE(asked, nullptr) << testing::PrintToString(codes(dpdk));
  EXPECT_EQ(quoted(*asked), std::vector<std::string>{"d.txt:2"});
  EXPECT_NE(asked->message.find("is ib_uverbs loaded?"), std::string::npos) << asked->message;
  Report listed = judged({{"ok.txt",
                           "3b:00.0 Infiniband controller: Mellanox Technologies MT28908 Family [ConnectX-6]\n"
                           "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n"}});
  EXPECT_EQ(find(listed, "topo.rdma_provider_missing"), nullptr) << testing::PrintToString(codes(listed));

  const std::pair<const char*, const char*> low[] = {
      {"# cat /proc/3844/limits | grep locked\nMax locked memory         65536                65536                "
       "bytes\n",
       "64 KiB"},
      {"max locked memory           (kbytes, -l) 8192\n", "8 MiB"},
      {"user@node1:~$ ulimit -l\n64\n", "64 KiB"},
  };
  for (const auto& [text, shown] : low) {
    Report r = judged({{"limits.txt", text}});
    const Finding* f = find(r, "limits.memlock_low");
    ASSERT_NE(f, nullptr) << text << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kWarning);
    EXPECT_NE(f->message.find(shown), std::string::npos) << f->message;
  }
  for (const char* text :
       {"Max locked memory         unlimited            unlimited            bytes\n",
        "max locked memory           (kbytes, -l) unlimited\n", "$ ulimit -l\nunlimited\n",
        "max locked memory           (kbytes, -l) 67108864\n", "ulimit -l is 64 on login nodes\n64\n"}) {
    Report r = judged({{"limits.txt", text}});
    EXPECT_EQ(find(r, "limits.memlock_low"), nullptr) << text << testing::PrintToString(codes(r));
  }
}

// UCX's error lines, by NCCL's meanings where UCX says the same: verbs calls refused with
// ENOMEM (its memlock hint read as a limit), its mlx5 completion errors, its asynchronous
// events; a WARN with no meaning of its own, and a dma-buf registration (GPU memory, which
// RLIMIT_MEMLOCK does not count), are not those.
TEST(TriagePasted, UcxErrorLines) {
  const std::pair<const char*, const char*> cases[] = {
      {"[1696.1] [node1:123:0]  ib_md.c:293  UCX  ERROR ibv_reg_mr(address=0x7f00, length=4096, access=0xf) failed: "
       "Cannot allocate memory",
       "nccl.ib_memlock"},
      {"[1696.1] [node1:123:0]  ib_iface.c:800  UCX  ERROR ibv_create_cq(cqe=4096) failed: Cannot allocate memory",
       "nccl.ib_memlock"},
      {"UCX  ERROR mlx5_0: mlx5dv_devx_umem_reg(size=131072 access=0x0) failed: Cannot allocate memory",
       "nccl.ib_memlock"},
      {"[1696.2] [node1:123:0] ib_mlx5_log.c:177 UCX  ERROR Local protection error on mlx5_0:1/IB (synd 0x4 vend "
       "0x33 hw_synd 0/0)",
       "nccl.ib_local_protection"},
      {"[1696.2] [node1:123:0] ib_mlx5_log.c:177 UCX  ERROR Remote access error on mlx5_2:1/RoCE (synd 0x13 vend "
       "0x88 hw_synd 0/0)",
       "nccl.ib_completion_error"},
      {"[1696.2] [node1:123:0] ib_mlx5_log.c:177 UCX  ERROR Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 "
       "vend 0x81 hw_synd 0/0)",
       "nccl.ib_retry_exceeded"},
      {"[1696.3] [node1:123:0]  ib_device.c:468  UCX  WARN  IB Async event on mlx5_0: port error on port 1",
       "nccl.ib_port_error"},
  };
  // An HCA driver's own word for the same completion (Solaris' mcxnex, hermon).
  Report hca = judged({{"messages.txt",
                        "WARNING: mcxnex0: CQE ERR: cqe fffff61bcf02f280 QPN 4000f7 indx 14 status "
                        "0x15  vendor syndrome 81\nWARNING: mcxnex0: CQE transport retry counter "
                        "exceeded\n"}});
  const Finding* retry = find(hca, "nccl.ib_retry_exceeded");
  ASSERT_NE(retry, nullptr) << testing::PrintToString(codes(hca));
  EXPECT_EQ(quoted(*retry), std::vector<std::string>{"messages.txt:2"});
  for (const auto& [line, code] : cases) {
    Report r = judged({{"ucx.log", std::string(line) + "\n"}});
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << line << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError) << line;
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"ucx.log:1"}) << line;
    const auto& kinds = r.triage->files.at(0).kinds;
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), "ucx-log"), kinds.end()) << line;
  }
  // UCX's hint after the refusal is the process's limit.
  Report hint = judged({{"ucx.log",
                         "[1696.1] [node1:123:0]  ib_md.c:293  UCX  ERROR ibv_reg_mr(address=0x7f00, length=4096, "
                         "access=0xf) failed: Cannot allocate memory : Please set max locked memory (ulimit -l) to "
                         "'unlimited' (current: 8192 kbytes)\n"}});
  const Finding* low = find(hint, "limits.memlock_low");
  ASSERT_NE(low, nullptr) << testing::PrintToString(codes(hint));
  EXPECT_NE(low->message.find("8 MiB"), std::string::npos) << low->message;
  for (const char* quiet :
       {"[1696.4] [node1:123:0]  parser.c:2045 UCX  WARN  unused environment variable: UCX_IB_FOO\n",
        "[1696.4] [node1:123:0]  ib_md.c:900 UCX  WARN  IB: ibv_fork_init() was disabled or failed, yet a fork() has "
        "been issued.\n",
        "n1:5:7 [0] misc/ibvwrap.cc:183 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Cannot allocate "
        "memory\n"}) {
    Report r = judged({{"ucx.log", quiet}});
    EXPECT_EQ(find(r, "nccl.ib_memlock"), nullptr) << quiet << testing::PrintToString(codes(r));
    if (std::string_view(quiet).find("UCX") != std::string_view::npos) {
      EXPECT_TRUE(r.findings.empty()) << quiet << testing::PrintToString(codes(r));
    }
  }
}

// NCCL on sockets over an IPoIB interface: InfiniBand is there, so the fallback is a fault,
// and NCCL's "Failed to open libibverbs.so[.1]" its cause; on a host with no sign of RDMA
// the same lines are information only.
TEST(TriagePasted, SocketsOverIpoibAndNoVerbsLibrary) {
  const std::string no_verbs = "NCCL INFO Failed to open libibverbs.so[.1]\n";
  for (const char* iface : {"ib0:10.0.0.1<0>", "ibp65s0:10.0.0.1<0>", "ib0.8001:10.0.0.1<0>"}) {
    Report r = judged({{"n.log", no_verbs + "NCCL INFO NET/Socket : Using [0]" + iface + "\n"}});
    const Finding* lib = find(r, "topo.rdma_provider_missing");
    ASSERT_NE(lib, nullptr) << iface << testing::PrintToString(codes(r));
    EXPECT_EQ(lib->severity, Severity::kError);
    EXPECT_EQ(quoted(*lib), std::vector<std::string>{"n.log:1"});
    const Finding* sock = find(r, "nccl.socket_fallback");
    ASSERT_NE(sock, nullptr) << iface;
    EXPECT_EQ(sock->severity, Severity::kError);
    EXPECT_NE(sock->message.find("IPoIB"), std::string::npos) << sock->message;
  }
  Report eth = judged({{"n.log", no_verbs + "NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"}});
  EXPECT_EQ(find(eth, "topo.rdma_provider_missing"), nullptr) << testing::PrintToString(codes(eth));
  const Finding* sock = find(eth, "nccl.socket_fallback");
  ASSERT_NE(sock, nullptr);
  EXPECT_EQ(sock->severity, Severity::kInfo);
  Report ibverbs_only = judged({{"n.log", "NCCL INFO NET/Socket : Using [0]ibverbs0:10.0.0.1<0>\n"}});
  ASSERT_NE(find(ibverbs_only, "nccl.socket_fallback"), nullptr);
  EXPECT_EQ(find(ibverbs_only, "nccl.socket_fallback")->severity, Severity::kInfo);
}

// Sockets by the job's own NCCL_IB_DISABLE=1 on a host with InfiniBand: a warning, saying so; a
// job whose ranks are all on one host: information, the network carrying nothing; over the
// network without that setting, an error.
TEST(TriagePasted, SocketsByIbDisableAndOnOneHost) {
  const std::string ipoib = "h1:1:1 [0] NCCL INFO NET/Socket : Using [0]ib0:10.0.0.1<0>\n";
  const std::string net = "h1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n";
  Report disabled =
      judged({{"n.log", "h1:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n" + ipoib + net}});
  const Finding* sock = find(disabled, "nccl.socket_fallback");
  ASSERT_NE(sock, nullptr) << testing::PrintToString(codes(disabled));
  EXPECT_EQ(sock->severity, Severity::kWarning);
  EXPECT_NE(sock->message.find("NCCL_IB_DISABLE=1"), std::string::npos) << sock->message;
  for (const std::string& local :
       {ipoib + "h1:1:2 [0] NCCL INFO comm 0x5 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE\n"
                "h1:2:3 [1] NCCL INFO comm 0x6 rank 1 nranks 2 cudaDev 1 busId 1c000 - Init COMPLETE\n",
        ipoib + "h1:1:1 [0] NCCL INFO comm 0x5 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n"}) {
    Report r = judged({{"n.log", local}});
    sock = find(r, "nccl.socket_fallback");
    ASSERT_NE(sock, nullptr) << local << testing::PrintToString(codes(r));
    EXPECT_EQ(sock->severity, Severity::kInfo) << local;
    EXPECT_NE(sock->message.find("every rank of the job is on one host"), std::string::npos) << sock->message;
  }
  // One rank of two in the files: the other may be on another host.
  Report half = judged(
      {{"n.log", ipoib + "h1:1:2 [0] NCCL INFO comm 0x5 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init COMPLETE\n"}});
  ASSERT_NE(find(half, "nccl.socket_fallback"), nullptr);
  EXPECT_EQ(find(half, "nccl.socket_fallback")->severity, Severity::kError);
  Report over_net = judged({{"n.log", ipoib + net}});
  sock = find(over_net, "nccl.socket_fallback");
  ASSERT_NE(sock, nullptr) << testing::PrintToString(codes(over_net));
  EXPECT_EQ(sock->severity, Severity::kError);
}

// RoCE queue pairs on a link-local GID: forced by NCCL_IB_GID_INDEX, or chosen by an NCCL
// that picks routable GIDs itself; NCCL before 2.21 (GID 0 by default) and IB ports (whose
// GID 0 is always fe80:: with the port GUID) are left alone.
TEST(TriagePasted, RoceLinkLocalGid) {
  const std::string roce_228 =
      "n1:88:159 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1047 mtu 5 GID 0 (80FE/1A8A41FEFF21A75E) "
      "fifoRkey=0x15e6c5 fifoLkey=0x15e6c5\n";
  Report forced =
      judged({{"n.log", "n1:88:159 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 0.\n" + roce_228}});
  const Finding* f = find(forced, "nccl.roce_gid_link_local");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(forced));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"n.log:1", "n.log:2"}));
  EXPECT_NE(f->message.find("forced to 0"), std::string::npos) << f->message;

  Report chosen = judged({{"n.log", "n1:88:88 [0] NCCL INFO NCCL version 2.23.4+cuda12.6\n" + roce_228}});
  ASSERT_NE(find(chosen, "nccl.roce_gid_link_local"), nullptr) << testing::PrintToString(codes(chosen));

  // NCCL 2.18's form, for IB and RoCE alike: a MAC-derived interface id is RoCE.
  const std::string old_roce =
      "n1:5:9 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 812 mtu 3 GID 1 (80FE/5EA721FFFE418A1A)\n";
  const std::string old_ib = "n1:5:9 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 812 mtu 5 GID 0 (80FE/72FED4009F0359B8)\n";
  const std::string gid1 = "n1:5:9 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 1.\n";
  ASSERT_NE(find(judged({{"n.log", gid1 + "n1:5:9 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 812 mtu 3 GID 1 "
                                          "(80FE/1A8A41FEFF21A75E)\n"}}),
                 "nccl.roce_gid_link_local"),
            nullptr);
  for (const std::string& quiet :
       {old_roce,                                                          // NCCL's default GID 0 era, not forced
        gid1 + old_ib,                                                     // IB's GID: the port GUID
        "n1:5:5 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n" + roce_228,  // before auto-selection
        gid1 + "n1:5:9 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 9 mtu 5 GID 3 (0/1F0A0A0AFFFF0000) "
               "fifoRkey=0x1 fifoLkey=0x1\n"}) {  // a RoCE v2 IPv4 GID
    Report r = judged({{"n.log", quiet}});
    EXPECT_EQ(find(r, "nccl.roce_gid_link_local"), nullptr) << quiet << testing::PrintToString(codes(r));
  }
}

// libfabric's EFA completion statuses in both catalogues' wordings, as aws-ofi-nccl's WARN
// and libfabric's own warning print them: a peer gone, a peer never reached.
TEST(TriagePasted, EfaCompletionStatuses) {
  const std::string ofi =
      "n1:199:263 [2] process_err_completion:1562 NCCL WARN NET/OFI Request 0x7f08 completed "
      "with error. RC: ";
  const std::pair<std::string, const char*> cases[] = {
      {ofi + "5. Error: Invalid receiver queue pair number (QPN) My EFA addr: fi_addr_efa://[fe80::30]:0:657",
       "nccl.peer_lost"},
      {ofi + "9. Error: Bad queue pair (QP) number (QP does not exist or is in error state)", "nccl.peer_lost"},
      {ofi + "13. Error: Unresponsive remote (was previously responsive)", "nccl.peer_lost"},
      {ofi + "15. Error: Unreachable remote - never received a response", "nccl.ofi_unreachable"},
      {ofi + "13. Error: Unresponsive receiver (connection never established or unknown)", "nccl.ofi_unreachable"},
      {"libfabric:4211:1712345678::efa:cq:efa_rdm_pke_handle_tx_error():543<warn> Unreachable remote - never "
       "received a response (peer 3)",
       "nccl.ofi_unreachable"},
  };
  for (const auto& [line, code] : cases) {
    Report r = judged({{"n.log", line + "\n"}});
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << line << ": " << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError) << line;
    EXPECT_EQ(find(r, "nccl.warn"), nullptr) << line << ": " << testing::PrintToString(codes(r));
  }
  // libfabric's other warnings are no finding of their own.
  Report quiet = judged({{"n.log",
                          "libfabric:4211:1712345678::efa:core:efa_device_init():120<warn> Unable to "
                          "query device attributes\n"}});
  EXPECT_TRUE(quiet.findings.empty()) << testing::PrintToString(codes(quiet));
}

// MUNGE's errors as PMIx, Slurm and munge's tools print them: its daemon unreachable, or a
// credential refused, with why (keys, clocks); its ordinary lines are none.
TEST(TriagePasted, MungeErrors) {
  for (const char* line :
       {"[node1:00085] psec: munge failed to create credential: Socket communication error",
        "slurmstepd: error: Munge encode failed: Failed to access \"/run/munge/munge.socket.2\": No such file or "
        "directory (Did you start munged?)",
        "unmunge: Error: Failed to connect to \"/var/run/munge/munge.socket.2\": Connection refused"}) {
    Report r = judged({{"slurm.log", std::string(line) + "\n"}});
    const Finding* f = find(r, "launcher.munge_unavailable");
    ASSERT_NE(f, nullptr) << line << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"slurm.log:1"});
    EXPECT_EQ(find(r, "launcher.munge_rejected"), nullptr) << line;
  }
  // PMIx's help for its MUNGE security component it could not open; another framework's
  // component missing is not MUNGE's.
  Report psec = judged({{"pmix.log",
                         "A requested component was not found, or was unable to be opened.\n\nHost:      pgp0202\n"
                         "Framework: psec\nComponent: munge\n"}});
  const Finding* p = find(psec, "launcher.munge_unavailable");
  ASSERT_NE(p, nullptr) << testing::PrintToString(codes(psec));
  EXPECT_EQ(quoted(*p), std::vector<std::string>{"pmix.log:5"});
  Report other = judged({{"pmix.log", "Framework: pcompress\nComponent: munge\n"}});
  EXPECT_EQ(find(other, "launcher.munge_unavailable"), nullptr) << testing::PrintToString(codes(other));
  const std::pair<const char*, const char*> refused[] = {
      {"slurmctld: error: Munge decode failed: Expired credential", "clocks differ"},
      {"slurmd: error: Munge decode failed: Rewound credential", "clocks differ"},
      {"[node2:00091] psec: munge failed to decode credential: Invalid credential", "munge.key differ"},
  };
  for (const auto& [line, why] : refused) {
    Report r = judged({{"slurm.log", std::string(line) + "\n"}});
    const Finding* f = find(r, "launcher.munge_rejected");
    ASSERT_NE(f, nullptr) << line << testing::PrintToString(codes(r));
    EXPECT_NE(f->message.find(why), std::string::npos) << f->message;
  }
  for (const char* quiet : {"[node1:00085] psec: munge init\n", "[node1:00085] psec: munge credential valid\n",
                            "Invalid credential in the lounge\n"}) {
    Report r = judged({{"slurm.log", quiet}});
    EXPECT_TRUE(r.findings.empty()) << quiet << testing::PrintToString(codes(r));
  }
}

// Slurm's daemons of different releases: a credential slurmd cannot verify, a protocol version
// a daemon does not speak; a port scanner's bytes (a version no release has) are not one.
TEST(TriagePasted, SlurmVersionMismatch) {
  const std::pair<const char*, const char*> mismatched[] = {
      {"[2022-09-10T17:40:58.753] debug:  Checking credential with 528 bytes of sig data\n"
       "[2022-09-10T17:40:58.753] error: Credential signature check: Credential data mismatch\n",
       "Credential data mismatch"},
      {"[2025-07-29T15:41:34.492] error: slurm_unpack_received_msg: [[n1.example.org]:34214] Invalid Protocol "
       "Version 10752 from uid=0: No error\n"
       "[2025-07-29T15:41:34.492] error: slurm_unpack_received_msg: [[n1.example.org]:34214] Incompatible versions "
       "of client and server code\n",
       "protocol version"},
      {"sinfo: error: slurm_receive_msg: Incompatible versions of client and server code\n", "protocol version"},
  };
  for (const auto& [text, why] : mismatched) {
    Report r = judged({{"slurmd.log", text}});
    const Finding* f = find(r, "launcher.slurm_version_mismatch");
    ASSERT_NE(f, nullptr) << text << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_NE(f->message.find(why), std::string::npos) << f->message;
    EXPECT_EQ(find(r, "launcher.munge_rejected"), nullptr) << text;
  }
  // A scanner probing srun's port: its bytes read as protocol version 65363, and the lines
  // around it are noise in a training log, not a Slurm release apart.
  Report scanner = judged({{"train.log",
                            "Learning iteration 927/4000\n"
                            "srun: error: unpack_header: protocol_version 65363 not supported\n"
                            "srun: error: destroy_forward: no init\n"
                            "srun: error: slurm_unpack_received_msg: [198.51.100.7:13610] Incompatible versions of "
                            "client and server code\n"}});
  EXPECT_EQ(find(scanner, "launcher.slurm_version_mismatch"), nullptr) << testing::PrintToString(codes(scanner));
  for (const char* quiet : {"slurmd: protocol_version 10752\n", "Checking credential with 528 bytes of sig data\n",
                            "error: Credential signature check: Credential expired\n"}) {
    Report r = judged({{"slurmd.log", quiet}});
    EXPECT_EQ(find(r, "launcher.slurm_version_mismatch"), nullptr) << quiet << testing::PrintToString(codes(r));
  }
}

// Slurm's job credential expired on the node: the clocks apart; MUNGE's own "Expired credential"
// stays MUNGE's.
TEST(TriagePasted, SlurmJobCredentialExpired) {
  Report r = judged({{"srun.txt",
                      "$ qlogin\n"
                      "srun: error: Task launch for 1466614.0 failed on node compute-0-1: Job credential expired\n"
                      "srun: error: Application launch failed: Job credential expired\n"
                      "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"}});
  const Finding* f = find(r, "launcher.clock_skew");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"srun.txt:2", "srun.txt:3"}));
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"launcher-log"});
  Report munge = judged({{"slurm.log", "slurmctld: error: Munge decode failed: Expired credential\n"}});
  EXPECT_EQ(find(munge, "launcher.clock_skew"), nullptr) << testing::PrintToString(codes(munge));
  EXPECT_NE(find(munge, "launcher.munge_rejected"), nullptr) << testing::PrintToString(codes(munge));
}

// Slurm's GPU resources refused, in each of the three places Slurm says so: slurmd's gres.conf
// (in journalctl's form), the node's drain reason, a job's request; a GRES mentioned in passing
// is not one.
TEST(TriagePasted, SlurmGresConfigurationRefused) {
  Report conf = judged({{"slurmd.txt",
                         "Feb 20 18:59:13 node2 slurmd[57977]: fatal: gres.conf duplicate records for gpu\n"
                         "AutoDetect=nvml\nName=gpu\nName=gpu\n"}});
  const Finding* f = find(conf, "launcher.slurm_gres_config");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(conf));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"slurmd.txt:1"});
  EXPECT_NE(f->message.find("slurmd refused the node's gres.conf"), std::string::npos) << f->message;
  EXPECT_EQ(f->message.find("drains"), std::string::npos) << f->message;
  EXPECT_EQ(conf.triage->files.at(0).kinds, std::vector<std::string>{"launcher-log"});

  Report drained =
      judged({{"sinfo.txt",
               "$ sinfo -R\n"
               "REASON               USER      TIMESTAMP           NODELIST\n"
               "gres/gpu count repor slurm     2024-03-01T10:00:00 gpu07\n"
               "$ scontrol show node gpu07 | grep Reason\n"
               "   Reason=gres/gpu count reported lower than configured (0 < 8) [slurm@2024-03-01T10:00:00]\n"},
              {"slurmctld.log",
               "[2024-03-01T10:00:00.123] error: _slurm_rpc_node_registration node=gpu07: Invalid "
               "argument\n"
               "[2024-03-01T10:00:00.123] error: gpu:a100 count too low (4 < 8)\n"}});
  f = find(drained, "launcher.slurm_gres_config");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(drained));
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"sinfo.txt:5", "slurmctld.log:2"}));
  EXPECT_NE(f->message.find("fewer GPUs than slurm.conf"), std::string::npos) << f->message;
  EXPECT_NE(f->hint.find("nvidia-smi -L"), std::string::npos) << f->hint;

  // The controller refusing gres.conf's CPU affinity (DeepOps's CPUs= lists, deepops#1195).
  Report cores = judged({{"slurmctld.log",
                          "[2022-06-10T09:46:22.044] error: _node_config_validate: gres/gpu: invalid GRES core "
                          "specification (48-63,176-191) on node node01\n"}});
  f = find(cores, "launcher.slurm_gres_config");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(cores));
  EXPECT_NE(f->message.find("CPU affinity"), std::string::npos) << f->message;
  EXPECT_NE(f->hint.find("Cores="), std::string::npos) << f->hint;

  Report job = judged({{"sbatch.txt",
                        "sbatch: error: Batch job submission failed: Invalid generic resource (gres) "
                        "specification\n"}});
  f = find(job, "launcher.slurm_gres_config");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(job));
  EXPECT_NE(f->message.find("no node of the partition has"), std::string::npos) << f->message;

  for (const char* quiet : {"GresTypes=gpu\nNodeName=gpu[01-04] Gres=gpu:8\n", "AutoDetect=nvml\n",
                            "slurmd: gres/gpu: _normalize_sys_gres_types: Using gres.conf records\n",
                            "slurmctld: error: count too low (retries left 3)\n"}) {
    Report r = judged({{"slurm.txt", quiet}});
    EXPECT_EQ(find(r, "launcher.slurm_gres_config"), nullptr) << quiet << testing::PrintToString(codes(r));
  }
}

// An attach to a /dev/shm segment of no name is ranks disagreeing on cuMem host memory
// (nccl#2190), not /dev/shm full.
TEST(TriagePasted, ShmSegmentWithoutANameIsNotShmFull) {
  Report r = judged({{"nccl.log",
                      "[2026-05-22 10:26:17] h1:13740:13740 [7] misc/shmutils.cc:132 NCCL WARN Error while attaching "
                      "to shared memory segment /dev/shm/nccl- (size 0), error: No such file or directory (2)\n"
                      "h1:13736:13736 [3] NCCL INFO CUMEM imported shareable host buffer from proxyRank 2 size 4096\n"
                      "h1:13739:13739 [6] NCCL INFO MMAP imported shareable host buffer /dev/shm/nccl-I9oUed size "
                      "13832192\n"}});
  const Finding* f = find(r, "nccl.known_bug");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(f->hint.find("NCCL_CUMEM_HOST_ENABLE=0"), std::string::npos) << f->hint;
  EXPECT_EQ(find(r, "nccl.shm_exhausted"), nullptr) << testing::PrintToString(codes(r));
}

// ibstat's port pasted without its CA line ("..." elisions around it): a port Down is still a
// dead port, of a device the paste does not name; a "Port 1:" with no State after it is none.
TEST(TriagePasted, IbstatPortWithoutItsDevice) {
  Report r = judged({{"ibstat.txt",
                      "...\nPort 1:\n                State: Down\n                Physical state: "
                      "Polling\n...\n"}});
  const Finding* f = find(r, "topo.port_down");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(f->message.find("(CA not pasted) port 1"), std::string::npos) << f->message;
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"rdma-info"});
  Report other = judged({{"notes.txt", "Port 1:\nconnected to leaf 3\nPhysical state: LinkUp\n"}});
  EXPECT_EQ(find(other, "topo.port_down"), nullptr) << testing::PrintToString(codes(other));
}

// c10d's server socket error with its tail wrapped onto lines of its own (as pasted): the
// EADDRINUSE is the port taken.
TEST(TriagePasted, RendezvousPortInUseWrapped) {
  Report r = judged({{"ci.txt",
                      "torch.distributed.DistNetworkError: The server socket has failed to listen on any\n"
                      "local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE,\n"
                      "message: address already in use\n"}});
  const Finding* f = find(r, "rendezvous.port_in_use");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"ci.txt:2"});
}

// UCX's verbs errors in two shapes: a completion error whose log header the paste lost (the
// source file names UCX), read by its status; address handles refused on the RDMA ports UCX
// chose, read as the wrong devices in use.
TEST(TriagePasted, UcxCompletionAndAddressHandleErrors) {
  Report prot = judged({{"osu.txt",
                         "# Size      Bandwidth (MB/s)\n"
                         "mlx5:  got completion with error:\n"
                         "rc_verbs_iface.c:67   send completion with error: local protection error\n"}});
  const Finding* f = find(prot, "nccl.ib_local_protection");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(prot));
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"osu.txt:3"});
  Report ah = judged(
      {{"mpi.txt",
        "[1641998540.196336] [h1:31658:0]       ib_device.c:1319 UCX  ERROR   ibv_create_ah(dlid=49152 sl=0 port=1 "
        "src_path_bits=0 dgid=::ffff:172.17.22.101 sgid_index=1 traffic_class=106) on rocep33s0f1 failed: Invalid "
        "argument\n"}});
  f = find(ah, "topo.hca_filter");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(ah));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->hint.find("UCX_NET_DEVICES"), std::string::npos) << f->hint;
  // A source file's name and the words without a status are nothing.
  Report quiet = judged({{"x.txt", "ud_iface.c:48 iface ready\nsend completion with error: (none)\n"}});
  EXPECT_EQ(find(quiet, "nccl.ib_local_protection"), nullptr) << testing::PrintToString(codes(quiet));
}

// The CUDA samples' "(error code TEXT)!": cudaGetErrorString's text alone names the error, with
// its own row's meaning (804: forward compatibility on a GPU without it, not 35's); a sentence
// with "error code" and no CUDA text is nothing.
TEST(TriagePasted, CudaSamplesErrorCodeSentence) {
  Report r = judged({{"validator.log",
                      "[Vector addition of 50000 elements]\n"
                      "Failed to allocate device vector A (error code forward compatibility was "
                      "attempted on non supported HW)!\n"}});
  const Finding* f = find(r, "nccl.cuda_driver_too_old");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"validator.log:2"});
  EXPECT_NE(f->message.find("forward-compatibility libraries"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("CUDA error 804"), std::string::npos) << f->message;
  Report other = judged({{"app.log", "Failed to open the socket (error code 111)!\n"}});
  EXPECT_TRUE(other.findings.empty()) << testing::PrintToString(codes(other));
}

// Open MPI's box for a registration limit below the memory: the host and both sizes, a
// warning (the job continues); Open MPI's locked-memory box is another finding's.
TEST(TriagePasted, OpenMpiRegistrableMemoryCapped) {
  Report r = judged({{"mpi.txt",
                      "--------------------------------------------------------------------------\n"
                      "WARNING: It appears that your OpenFabrics subsystem is configured to only\n"
                      "allow registering part of your physical memory.  This can cause MPI jobs to\n"
                      "run with erratic performance, hang, and/or crash.\n"
                      "\n"
                      "  Local host:              node02\n"
                      "  Registerable memory:     32768 MiB\n"
                      "  Total memory:            65476 MiB\n"
                      "\n"
                      "Your MPI job will continue, but may be behave poorly and/or hang.\n"
                      "--------------------------------------------------------------------------\n"}});
  const Finding* f = find(r, "kernel.rdma_registration_capped");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->subject, "node02");
  EXPECT_NE(f->message.find("(32768 MiB of 65476 MiB on node02)"), std::string::npos) << f->message;
  EXPECT_NE(f->hint.find("log_num_mtt"), std::string::npos) << f->hint;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"mpi.txt:2", "mpi.txt:6", "mpi.txt:7", "mpi.txt:8"}));
  // The box's other lines far from its sentence are not its own.
  Report far = judged({{"x.txt", "  Total memory:            65476 MiB\n"}});
  EXPECT_EQ(find(far, "kernel.rdma_registration_capped"), nullptr) << testing::PrintToString(codes(far));
}

// NVIDIA's NIC driver container stopped by storage modules over RDMA: the shell entrypoint's
// line (also wrapped as pasted) and the Go entrypoint's error.
TEST(TriagePasted, NicDriverContainerStoppedByStorageModules) {
  for (const char* text :
       {"Storage modules are loaded for current driver, terminating\nprior driver reload failure due to "
        "UNLOAD_STORAGE_MODULES\nnot set to \"true\"\n",
        "2026-09-09T15:56:48.082Z ERROR entrypoint/entrypoint.go:308 kernel modules check failed {\"error\": "
        "\"storage modules are loaded for current driver,terminating prior driver reload failure due to "
        "UNLOAD_STORAGE_MODULES not set to \\\"true\\\"\"}\n"}) {
    Report r = judged({{"mofed.log", text}});
    const Finding* f = find(r, "container.nic_driver_storage_modules");
    ASSERT_NE(f, nullptr) << text << testing::PrintToString(codes(r));
    EXPECT_NE(f->hint.find("UNLOAD_STORAGE_MODULES=true"), std::string::npos) << f->hint;
  }
  Report set = judged({{"values.yaml", "      - name: UNLOAD_STORAGE_MODULES\n        value: \"true\"\n"}});
  EXPECT_EQ(find(set, "container.nic_driver_storage_modules"), nullptr) << testing::PrintToString(codes(set));
}

// NVIDIA's GPU driver container unable to unload the modules it would replace: one error for
// its retries, taken as a container's log; the unload that worked is nothing.
TEST(TriagePasted, GpuDriverContainerFindsTheDriverInUse) {
  Report r = judged({{"driver.log",
                      "Stopping NVIDIA persistence daemon...\nUnloading NVIDIA driver kernel modules...\n"
                      "Could not unload NVIDIA driver kernel modules, driver is in use\n"
                      "Unloading NVIDIA driver kernel modules...\n"
                      "Could not unload NVIDIA driver kernel modules, driver is in use\n"}});
  const Finding* f = find(r, "container.gpu_driver_in_use");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"driver.log:3", "driver.log:5"}));
  EXPECT_NE(f->hint.find("driver.enabled=false"), std::string::npos) << f->hint;
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"container-log"});
  Report ok = judged({{"driver.log",
                       "Unloading NVIDIA driver kernel modules...\nInstalling NVIDIA driver kernel "
                       "modules...\n"}});
  EXPECT_TRUE(ok.findings.empty()) << testing::PrintToString(codes(ok));
  // nvidia-installer's own words for the same, and for its other refusals: the module refused
  // at load (not loaded), no kernel source tree (no module built).
  const std::pair<const char*, const char*> installer[] = {
      {"ERROR: An NVIDIA kernel module 'nvidia-drm' appears to already be loaded in your kernel.  This may be because "
       "it is in use (for example, by an X server, a CUDA program, or the NVIDIA Persistence Daemon)",
       "container.gpu_driver_in_use"},
      {"ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when this kernel module "
       "was built against the wrong or improperly configured kernel sources",
       "kernel.gpu_driver_not_loaded"},
      {"ERROR: Unable to find the kernel source tree for the currently running kernel.  Please make sure you have "
       "installed the kernel source files for your kernel",
       "kernel.module_build_failed"},
  };
  for (const auto& [line, code] : installer) {
    Report i = judged({{"installer.log", std::string(line) + "\n"}});
    const Finding* g = find(i, code);
    ASSERT_NE(g, nullptr) << line << testing::PrintToString(codes(i));
    EXPECT_EQ(g->severity, Severity::kError) << line;
  }
  // The MIG manager unable to destroy an instance a client holds.
  Report mig = judged({{"mig-manager.log",
                        "Updating MIG config: map[2g.10gb:3]\n"
                        "Error clearing MigConfig: error destroying Compute instance for profile '(0, 0)': In use by "
                        "another client\n"
                        "Error clearing MIG config on GPU 0, erroneous devices may persist\n"}});
  const Finding* m = find(mig, "container.gpu_driver_in_use");
  ASSERT_NE(m, nullptr) << testing::PrintToString(codes(mig));
  EXPECT_EQ(quoted(*m), std::vector<std::string>{"mig-manager.log:2"});
  EXPECT_NE(m->hint.find("drain the node"), std::string::npos) << m->hint;
}

// NVLS's multicast bind refused with "out of memory": the multicast resources used up, not
// the GPU's memory nor a fabric that is down; read also after a framework's error.
TEST(TriagePasted, NvlsMulticastOutOfMemoryIsExhaustion) {
  const std::string bind =
      "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 2 'out of memory'.";
  for (const std::string& text :
       {"n1:5:5 [0] transport/nvls.cc:180 NCCL WARN " + bind + "\n",
        "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.cpp:93, unhandled cuda error, NCCL version "
        "2.29.7\nncclUnhandledCudaError: Call to CUDA function failed.\n" +
            bind + "\n"}) {
    Report r = judged({{"nvls.log", text}});
    const Finding* f = find(r, "nvlink.nvls_exhausted");
    ASSERT_NE(f, nullptr) << text << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_NE(f->hint.find("NCCL_NVLS_ENABLE=0"), std::string::npos) << f->hint;
    EXPECT_EQ(find(r, "nccl.cuda_oom"), nullptr) << testing::PrintToString(codes(r));
    EXPECT_EQ(find(r, "nvlink.fm_failed"), nullptr) << testing::PrintToString(codes(r));
  }
}

// enroot's NVIDIA hook failing under pyxis: one error with nvidia-container-cli's words as its
// why and a hint by them; a permission error the toolkit's own reader names stays its.
TEST(TriagePasted, EnrootHookFailureUnderPyxis) {
  const std::string tail =
      "slurmstepd: error: pyxis:   [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1\n"
      "slurmstepd: error: pyxis: couldn't start container\n";
  Report r = judged({{"srun.txt",
                      "slurmstepd: error: pyxis:     nvidia-container-cli: ldcache error: process "
                      "/usr/sbin/ldconfig.real failed with error code: 1\n" +
                          tail}});
  const Finding* f = find(r, "container.runtime_hook_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("98-nvidia.sh"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("ldcache error"), std::string::npos) << f->message;
  EXPECT_NE(f->hint.find("/proc"), std::string::npos) << f->hint;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"srun.txt:1", "srun.txt:2"}));
  Report denied = judged({{"srun.txt",
                           "slurmstepd: error: pyxis:   nvidia-container-cli: permission error: capability change "
                           "failed: operation not permitted\n" +
                               tail}});
  EXPECT_EQ(find(denied, "container.runtime_hook_failed"), nullptr) << testing::PrintToString(codes(denied));
  EXPECT_NE(find(denied, "container.toolkit_denied"), nullptr) << testing::PrintToString(codes(denied));
}

// Open MPI's PMIx client failing at start: under srun, Slurm's PMI plugin is named; without
// srun in the files, a program started without its mpirun.
TEST(TriagePasted, OpenMpiPmixClientFailsUnderSrun) {
  const std::string opal = "[gpu01:01394] OPAL ERROR: Error in file pmix3x_client.c at line 112\n";
  Report r = judged({{"job.txt", "login01$ srun -n2 ./hello\n" + opal}});
  const Finding* f = find(r, "mpi.pmix_client_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("srun"), std::string::npos) << f->message;
  EXPECT_NE(f->hint.find("--mpi=pmix"), std::string::npos) << f->hint;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"job.txt:2"}));
  Report alone = judged({{"job.txt", opal}});
  const Finding* g = find(alone, "mpi.pmix_client_failed");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(alone));
  EXPECT_NE(g->message.find("without mpirun"), std::string::npos) << g->message;
}

// Open MPI's launch failing, in its help boxes' words: the daemons not started, with the cause
// ssh or the remote shell printed before the box; a peer unreachable over TCP, with the box's
// hosts; a connection that reached the wrong process.
TEST(TriagePasted, OpenMpiLaunchBoxesNameTheirCause) {
  const std::string box =
      "--------------------------------------------------------------------------\n"
      "ORTE was unable to reliably start one or more daemons.\n"
      "This usually is caused by:\n\n"
      "* not finding the required libraries and/or binaries on\n"
      "  one or more nodes. Please check your PATH and LD_LIBRARY_PATH\n";
  Report orted =
      judged({{"run.txt", "$ mpirun -np 4 --hostfile hosts ./a.out\nbash: orted: command not found\n" + box}});
  const Finding* f = find(orted, "mpi.daemon_start_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(orted));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->message.find("command not found"), std::string::npos) << f->message;
  EXPECT_NE(f->hint.find("--prefix"), std::string::npos) << f->hint;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"run.txt:2", "run.txt:4"}));
  Report ssh = judged({{"run.txt", "ssh: Could not resolve hostname n0198: Name or service not known\n" + box}});
  f = find(ssh, "mpi.daemon_start_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(ssh));
  EXPECT_NE(f->message.find("resolve"), std::string::npos) << f->message;
  // ssh's words without the daemons' box are not Open MPI's launch.
  Report bare = judged({{"run.txt", "ssh: Could not resolve hostname n0198: Name or service not known\n"}});
  EXPECT_EQ(find(bare, "mpi.daemon_start_failed"), nullptr) << testing::PrintToString(codes(bare));

  Report oob = judged({{"oob.txt",
                        "------------------------------------------------------------\n"
                        "A process or daemon was unable to complete a TCP connection\n"
                        "to another process:\n"
                        "  Local host:    fehg-node-0\n"
                        "  Remote host:   10.104.5.40\n"
                        "This is usually caused by a firewall on the remote host. Please\n"}});
  f = find(oob, "mpi.oob_unreachable");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(oob));
  EXPECT_EQ(f->hosts, (std::vector<std::string>{"10.104.5.40", "fehg-node-0"}));
  // ORTE's routed layer with no path to a daemon is the same connection missing.
  Report routed = judged({{"run.txt",
                           "ORTE does not know how to route a message to the specified daemon\n"
                           "located on the indicated node:\n"}});
  EXPECT_NE(find(routed, "mpi.oob_unreachable"), nullptr) << testing::PrintToString(codes(routed));
  // After the daemons' own failure it is that failure's echo: no daemon there to route to.
  Report echo = judged({{"run.txt", box + "ORTE does not know how to route a message to the specified daemon\n"}});
  EXPECT_NE(find(echo, "mpi.daemon_start_failed"), nullptr) << testing::PrintToString(codes(echo));
  EXPECT_EQ(find(echo, "mpi.oob_unreachable"), nullptr) << testing::PrintToString(codes(echo));
  EXPECT_NE(f->hint.find("oob_tcp_if_include"), std::string::npos) << f->hint;
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"oob.txt:2", "oob.txt:4", "oob.txt:5"}));

  Report peer = judged({{"btl.txt",
                         "[node1][[12345,1],0][btl_tcp_endpoint.c:626:mca_btl_tcp_endpoint_recv_connect_ack] "
                         "received unexpected process identifier [[12345,1],3]\n"}});
  f = find(peer, "mpi.tcp_wrong_peer");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(peer));
  EXPECT_NE(f->hint.find("btl_tcp_if_include"), std::string::npos) << f->hint;
}

// The frameworks' own checks of a collective's shapes, PyTorch's monitored barrier and Gloo's
// lost peer; Open MPI's TCP BTL unable to connect and its default-prefix warning; SELinux's
// denial of the nvidia-docker wrapper; Slurm's GPU affinity off the sockets it knows.
TEST(TriagePasted, FrameworkChecksAndStackWarningsInTheirOwnWords) {
  const std::pair<const char*, const char*> cases[] = {
      {"RuntimeError: Error when verifying shape tensors for collective ALLREDUCE on rank 0. This likely indicates "
       "that input shapes into the collective are mismatched across ranks. Got shapes:  10",
       "nccl.collective_mismatch"},
      {"Cannot apply desired operation due to shape mismatches. All shapes across devices must be valid.",
       "nccl.collective_mismatch"},
      {"RuntimeError: Rank 1 failed to pass monitoredBarrier in 2000 ms", "nccl.timeout"},
      {"[gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.2]:8594", "nccl.peer_lost"},
      {"[node1][[4211,1],0][btl_tcp_endpoint.c:572:mca_btl_tcp_endpoint_complete_connect] connect() failed with "
       "errno=113",
       "mpi.oob_unreachable"},
      {"WARNING: There are more than one active ports on host 'node1', but the\ndefault subnet GID prefix was "
       "detected on more than one of these ports.",
       "fabric.default_subnet_prefix"},
      {"SELinux is preventing /usr/bin/bash from entrypoint access on the file /usr/bin/docker.",
       "container.toolkit_denied"},
      {"error: _check_core_range_matches_sock: gres/gpu GRES autodetected core affinity 0-7 on node node0 doesn't "
       "match socket boundaries. (Socket 0 is cores 0-1)",
       "launcher.slurm_gres_config"},
  };
  for (const auto& [text, code] : cases) {
    Report r = judged({{"x.txt", std::string(text) + "\n"}});
    EXPECT_NE(find(r, code), nullptr) << text << ": " << testing::PrintToString(codes(r));
  }
  // PyTorch's wait for rank 0's ncclUniqueId in the c10d store: its timeout is rank 0 that never
  // got there (a meaning of its own, over the watchdog's), the store's host gone a peer lost.
  const std::string wait =
      "RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value "
      "store by key '0', but store->get('0') got error: ";
  Report timeout = judged({{"x.txt", wait + "Socket Timeout\n"}});
  const Finding* t = find(timeout, "nccl.timeout");
  ASSERT_NE(t, nullptr) << testing::PrintToString(codes(timeout));
  EXPECT_NE(t->message.find("rank 0 never reached"), std::string::npos) << t->message;
  Report reset = judged({{"x.txt", wait + "Connection reset by peer\n"}});
  const Finding* lost = find(reset, "nccl.peer_lost");
  ASSERT_NE(lost, nullptr) << testing::PrintToString(codes(reset));
  EXPECT_NE(lost->message.find("c10d store's host"), std::string::npos) << lost->message;
  Report selinux = judged({{"x.txt",
                            "SELinux is preventing /usr/bin/bash from entrypoint access on the file "
                            "/usr/bin/docker.\n"}});
  const Finding* f = find(selinux, "container.toolkit_denied");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->hint.find("--runtime=nvidia"), std::string::npos) << f->hint;
  Report gres = judged({{"x.txt", std::string(cases[7].first) + "\n"}});
  f = find(gres, "launcher.slurm_gres_config");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("socket boundaries"), std::string::npos) << f->message;
  // SELinux's denials of anything else are not the toolkit's.
  Report other =
      judged({{"x.txt", "SELinux is preventing /usr/sbin/httpd from read access on the file index.html.\n"}});
  EXPECT_EQ(find(other, "container.toolkit_denied"), nullptr) << testing::PrintToString(codes(other));
}

// An Xid quoted without the driver's "NVRM: " and with its bus id masked is still the Xid; NVSwitch's
// SXid is not a GPU's. The InfiniBand SR-IOV CNI's "GUID is not valid" is a VF without GUIDs.
TEST(TriagePasted, BareXidLinesAndTheSriovCnisInvalidGuid) {
  Report r = judged({{"notes.txt",
                      "      Xid (PCI:0000:??:00): 119 - Timeout waiting for RPC from GSP!\n"
                      "      Xid (PCI:0000:??:00): 79  - GPU has fallen off the bus\n"}});
  std::vector<std::string> xids;
  for (const Finding& f : r.findings) {
    if (f.code == "kernel.gpu_xid") xids.push_back(f.message.substr(0, f.message.find(' ', 8)));
  }
  std::sort(xids.begin(), xids.end());
  EXPECT_EQ(xids, (std::vector<std::string>{"GPU Xid 119", "GPU Xid 79"})) << testing::PrintToString(codes(r));
  Report sxid = judged({{"s.txt", "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress\n"}});
  EXPECT_EQ(find(sxid, "kernel.gpu_xid"), nullptr) << testing::PrintToString(codes(sxid));
  Report vf =
      judged({{"events.txt",
               "  Warning  FailedCreatePodSandBox  16s  kubelet  Failed to create pod sandbox: ... error adding "
               "container to network \"ibp192s0\": infiniBand SRI-OV CNI failed to configure VF \"VF "
               "ibp192s0v10 GUID is not valid\"\n"}});
  const Finding* f = find(vf, "topo.ib_zero_guid");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(vf));
  EXPECT_NE(f->message.find("ibp192s0v10"), std::string::npos) << f->message;
}

// HPE Slingshot's cxi driver finding a NIC's address wrong for its switch port, with dmesg's stamp
// and under cxi_healthcheck's "*** Warning: ".
TEST(TriagePasted, SlingshotNicAddressMismatch) {
  Report r = judged({{"dmesg.txt",
                      "*** Warning: [260188.266586] cxi_core 0000:c0:00.0: cxi2[hsn2]: C_EC_UNCOR_NS: C_IXE error: "
                      "port_dfa_mismatch (37) (was first error at 1705904239:768794936).\n"
                      "ACTION: A node reboot may be required for this uncorrectable error\n"
                      "[  12.5] cxi_core 0001:96:00.0: cxi4[hsn4]: C_EC_UNCOR_NS: port_dfa_mismatch: 1.\n"}});
  const Finding* f = find(r, "fabric.cxi_address_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"dmesg.txt:1", "dmesg.txt:3"}));
  EXPECT_NE(f->hint.find("AMA"), std::string::npos) << f->hint;
}

// ORTE's daemons unable to read each other's messages: Open MPI or its hwloc of two versions.
TEST(TriagePasted, OrteUnpackPastEndOfBufferIsARuntimeMismatch) {
  Report r = judged({{"run.txt",
                      "[future5:12508] [[25215,0],1] ORTE_ERROR_LOG: Data unpack would read past end of buffer in "
                      "file grpcomm_direct.c at line 355\n"}});
  const Finding* f = find(r, "mpi.runtime_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->hint.find("hwloc"), std::string::npos) << f->hint;
}

// PCI address space the kernel could not give: a device's own BAR is a warning naming the
// device, in the kernel's old and 6.x wordings; bridge windows alone are information.
TEST(TriagePasted, PciBarsWithoutAddressSpace) {
  Report r = judged({{"dmesg.txt",
                      "[   23.869384] pci 0000:51:00.0: BAR 15: no space for [mem size 0x04000000 64bit pref]\n"
                      "[   23.869395] pci 0000:53:00.0: BAR 0: no space for [mem size 0x02000000 64bit pref]\n"
                      "[   23.869398] pci 0000:53:00.0: BAR 0: failed to assign [mem 0x8fffc000000-0x8fffdffffff "
                      "64bit pref]\n"
                      "[    1.234567] pci 0000:17:00.0: BAR 1 [mem size 0x4000000000 64bit pref]: can't assign; no "
                      "space\n"}});
  const Finding* f = find(r, "kernel.pci_bar_unassigned");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->message.find("0000:53:00.0, 0000:17:00.0"), std::string::npos) << f->message;
  EXPECT_NE(f->hint.find("Above 4G"), std::string::npos) << f->hint;
  Report bridges = judged({{"dmesg.txt",
                            "[   23.869384] pci 0000:51:00.0: BAR 15: no space for [mem size 0x04000000 64bit pref]\n"
                            "[   23.869386] pci 0000:51:00.0: BAR 15: failed to assign [mem size 0x04000000 64bit "
                            "pref]\n"}});
  f = find(bridges, "kernel.pci_bar_unassigned");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(bridges));
  EXPECT_EQ(f->severity, Severity::kInfo);
}

// Programs' words for a library or resource that cannot work: Horovod's NCCL 1 error for a
// float, Cray MPICH asked for GPU support without its GTL, srun's gres error wrapped.
TEST(TriagePasted, LibraryAndResourceErrorsOfProgramsAndLaunchers) {
  Report r = judged({{"hvd.txt", "UnknownError (see above for traceback): ncclAllReduce failed: invalid data type\n"}});
  const Finding* f = find(r, "framework.nccl_library_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->hint.find("conda remove nccl"), std::string::npos) << f->hint;
  Report cray = judged({{"job.txt",
                         "MPICH ERROR [Rank 0] [job id 410301.1] [nid005414] - Abort(-1) (rank 0 in comm 0): "
                         "MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked\n"}});
  EXPECT_NE(find(cray, "mpi.not_cuda_aware"), nullptr) << testing::PrintToString(codes(cray));
  Report gres = judged({{"srun.txt",
                         "    srun: error: Unable to create step for job 4203072: Invalid generic \n"
                         "                  resource (gres) specification\n"}});
  f = find(gres, "launcher.slurm_gres_config");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(gres));
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"srun.txt:1", "srun.txt:2"}));
}

// UCC's shared-memory layer under the MPI's collectives: one error naming the MPI, not NCCL.
TEST(TriagePasted, UccSharedMemoryFailureIsTheMpisNotNccls) {
  Report r = judged({{"mpi.log",
                      "[1723337199.099229] [ai-worker03:1382 :0] tl_shm_team.c:617 TL_SHM ERROR Child failed to "
                      "attach to shmseg, errno: Invalid argument\n"
                      "[1723337199.100165] [ai-worker03:1382 :0] tl_shm_team.c:548 TL_SHM ERROR shmdt failed\n"}});
  const Finding* f = find(r, "mpi.ucc_shm_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"mpi.log:1", "mpi.log:2"}));
  EXPECT_NE(f->hint.find("coll_ucc_enable 0"), std::string::npos) << f->hint;
  EXPECT_EQ(r.findings.size(), 1u) << testing::PrintToString(codes(r));
}

// Mooncake's transfer engine finding no RoCE GID it can use (kvcache-ai/Mooncake#1593's shape):
// the GID table, not the NIC; its later lines (no RNIC left) add nothing of their own.
TEST(TriagePasted, NoUsableRoceGidIsTheGidTable) {
  Report r = judged({{"mooncake.log",
                      "W0302 09:15:07.980530     7 rdma_context.cpp:581] No suitable GID found on mlx5_bond_1/\n"
                      "E0302 09:15:07.980787     7 rdma_context.cpp:81] Failed to open device mlx5_bond_1 on port  "
                      "with GID -1\n"
                      "E0302 09:15:07.980793     7 rdma_transport.cpp:662] RdmaTransport: No available RNIC\n"}});
  const Finding* f = find(r, "topo.roce_gid_unusable");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"mooncake.log:1"});
  EXPECT_NE(f->hint.find("MC_GID_INDEX"), std::string::npos) << f->hint;
}

// RDMA user space and the kernel's driver that do not go together, in libibverbs' words and in
// a DEVX call's (openucx/ucx#6906's paste).
TEST(TriagePasted, RdmaUserSpaceAndKernelAbiMismatch) {
  for (const char* line : {"libibverbs: Warning: Driver mlx5 does not support the kernel ABI of 1 (supports 4 to 4)",
                           "mlx5dv_devx_create_event_channel() failed: Protocol not supported"}) {
    Report r = judged({{"rdma.log", std::string(line) + "\n"}});
    const Finding* f = find(r, "kernel.rdma_abi_mismatch");
    ASSERT_NE(f, nullptr) << line << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"rdma.log:1"});
  }
}

// An OCI runtime's failed hook, with its stderr on the lines after; the toolkit's legacy hook
// with nvidia-container-cli's words is left to their readers.
TEST(TriagePasted, ContainerRuntimeHookFailed) {
  Report r = judged({{"pod.txt",
                      "createContainer hook #6: exit status 1, stderr:\nfailed to create application profiles "
                      "directory:\nmkdirat etc/nvidia/nvidia-application-profiles-rc.d: read-only file system\n"}});
  const Finding* f = find(r, "container.runtime_hook_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"pod.txt:1", "pod.txt:2", "pod.txt:3"}));
  EXPECT_NE(f->message.find("createContainer hook #6"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("read-only mount"), std::string::npos) << f->message;
  Report one = judged({{"events.txt",
                        "Error: failed to create containerd task: failed to create shim task: OCI runtime create "
                        "failed: runc create failed: unable to start container process: error during container init: "
                        "error running createContainer hook #1: exit status 1, stdout: , stderr: time=\"2025-01-01\" "
                        "level=error msg=\"failed to create link\"\n"}});
  const Finding* g = find(one, "container.runtime_hook_failed");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(one));
  EXPECT_EQ(g->message.find("read-only"), std::string::npos) << g->message;
  Report legacy = judged({{"docker.txt",
                           "docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: "
                           "starting container process caused: process_linux.go:545: container init caused: Running "
                           "hook #0:: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as "
                           "'legacy'\nnvidia-container-cli: initialization error: nvml error: driver not loaded: "
                           "unknown.\n"}});
  EXPECT_EQ(find(legacy, "container.runtime_hook_failed"), nullptr) << testing::PrintToString(codes(legacy));
  Report comment = judged({{"notes.md", "# the prestart hook #0 is the toolkit's\n"}});
  EXPECT_TRUE(comment.findings.empty()) << testing::PrintToString(codes(comment));
}

// The IOMMU refusing a device's DMA (Intel's and AMD's wordings, with dmesg's stamp or
// without), and its default domain translating; passthrough and group lines are nothing.
TEST(TriagePasted, IommuFaultsAndTranslation) {
  const std::pair<const char*, const char*> faults[] = {
      {"[  123.456] DMAR: [DMA Read NO_PASID] Request device [3b:00.0] fault addr 0x7f000 [fault reason 0x06] PTE "
       "Read access is not set",
       "3b:00.0"},
      {"DMAR: [DMA Write] Request device [86:00.0] PASID ffffffff fault addr 3ffff000 [fault reason 05] PTE Write "
       "access is not set",
       "86:00.0"},
      {"AMD-Vi: Event logged [IO_PAGE_FAULT device=c1:00.0 domain=0x000e address=0x00000000fd000 flags=0x0020]",
       "c1:00.0"},
      {"[Sun Jan 11 09:52:01 2026] mlx5_core 0000:c1:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000e "
       "address=0xfd000 flags=0x0020]",
       "0000:c1:00.0"},
      // Interrupt remapping refusing a device's interrupt (kernel bugzilla 214219).
      {"[   13.577852] DMAR: [INTR-REMAP] Request device [0x00:0x00.5] fault index 0xa00 [fault reason 0x25] Blocked "
       "a compatibility format interrupt request",
       "0x00:0x00.5"},
      // The BIOS's reserved regions the memory map does not reserve.
      {"DMAR: [Firmware Bug]: No firmware reserved region can cover this RMRR [0x00000000bb800000-0x00000000bbffffff]",
       "RMRR"},
  };
  for (const auto& [line, device] : faults) {
    Report r = judged({{"dmesg.txt", std::string(line) + "\n"}});
    const Finding* f = find(r, "kernel.iommu_fault");
    ASSERT_NE(f, nullptr) << line << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_NE(f->message.find(device), std::string::npos) << f->message;
    EXPECT_EQ(quoted(*f), std::vector<std::string>{"dmesg.txt:1"});
  }
  Report translated = judged({{"dmesg.txt", "[    1.2] iommu: Default domain type: Translated\n"}});
  const Finding* t = find(translated, "kernel.iommu_translated");
  ASSERT_NE(t, nullptr) << testing::PrintToString(codes(translated));
  EXPECT_EQ(t->severity, Severity::kWarning);
  // The kernel's command line turning the IOMMU on without passthrough says the same.
  Report cmdline =
      judged({{"dmesg.txt", "[    0.0] Command line: BOOT_IMAGE=/vmlinuz-6.8.0 root=/dev/sda1 ro intel_iommu=on\n"}});
  t = find(cmdline, "kernel.iommu_translated");
  ASSERT_NE(t, nullptr) << testing::PrintToString(codes(cmdline));
  EXPECT_NE(t->message.find("without iommu=pt"), std::string::npos) << t->message;
  // RCCL's own warning that the command line lacks iommu=pt, with its prefix or bare; read here,
  // not as one more NCCL warning.
  for (const char* line :
       {"g1:111:111 [0] /opt/rccl/src/init.cc:213 NCCL WARN Missing \"iommu=pt\" from kernel command line which can "
        "lead to system instablity or hang!",
        "NCCL WARN Missing \"iommu=pt\" from kernel command line which can lead to system instablity or hang!"}) {
    Report rccl = judged({{"rccl.log", std::string(line) + "\n"}});
    t = find(rccl, "kernel.iommu_translated");
    ASSERT_NE(t, nullptr) << line << testing::PrintToString(codes(rccl));
    EXPECT_EQ(t->severity, Severity::kWarning);
    EXPECT_NE(t->message.find("RCCL found no iommu=pt"), std::string::npos) << t->message;
    EXPECT_EQ(find(rccl, "nccl.warn"), nullptr) << testing::PrintToString(codes(rccl));
  }
  for (const char* quiet :
       {"[    1.2] iommu: Default domain type: Passthrough (set via kernel command line)\n",
        "[   10.6] mlx5_core 0004:01:00.0: Adding to iommu group 29\n", "[    0.9] DMAR: IOMMU enabled\n",
        "[    0.0] Command line: BOOT_IMAGE=/vmlinuz-6.8.0 ro intel_iommu=on iommu=pt\n",
        "[    0.0] Command line: BOOT_IMAGE=/vmlinuz-6.8.0 ro amd_iommu=on\n"
        "[    0.9] iommu: Default domain type: Passthrough (set via kernel command line)\n"}) {
    Report r = judged({{"dmesg.txt", quiet}});
    EXPECT_TRUE(r.findings.empty() ||
                (find(r, "kernel.iommu_fault") == nullptr && find(r, "kernel.iommu_translated") == nullptr))
        << quiet << testing::PrintToString(codes(r));
  }
}

// PyTorch's c10d store failing before NCCL starts, by PyTorch's own wordings: the store
// unreachable (why, by errno), its port taken, its host unresolved, ranks that never came.
// The warnings it records per address tried are no failure alone.
// Cray MPICH's GPU transport failing CUDA IPC between the ranks of a node: Slurm gave each
// its own GPU (Perlmutter's --gpu-bind); the transport's other debug lines are none.
TEST(TriagePasted, CrayGtlIpcWithGpusSplitPerTask) {
  Report r =
      judged({{"job.out",
               "(GTL DEBUG: 1) cuIpcOpenMemHandle: invalid argument, CUDA_ERROR_INVALID_VALUE, line no 272\n"
               "MPICH ERROR [Rank 1] [job id 3246040.0] [Fri Sep 23 17:26:26 2022] [nid001616] - Abort(475555330) "
               "(rank 1 in comm 0): Fatal error in PMPI_Allreduce: Invalid count, error stack:\n"}});
  const Finding* f = find(r, "launcher.visible_devices_split");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->hint.find("--gpu-bind=none"), std::string::npos) << f->hint;
  Report quiet = judged({{"job.out", "(GTL DEBUG: 0) cuIpcGetMemHandle: success\n"}});
  EXPECT_EQ(find(quiet, "launcher.visible_devices_split"), nullptr) << testing::PrintToString(codes(quiet));
}

TEST(TriagePasted, RendezvousStoreFailures) {
  const std::tuple<std::string, const char*, const char*> cases[] = {
      {"torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of "
       "(master-0, 23456). The client socket has failed to connect to 10.0.0.9:23456 (errno: 113 - No route to host).",
       "rendezvous.store_unreachable", "master-0:23456"},
      {"[E socket.cpp:957] [c10d] The client socket has timed out after 900s while trying to connect to (10.0.0.9, "
       "29500).",
       "rendezvous.store_unreachable", "10.0.0.9:29500"},
      {"[W socket.cpp:436] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in "
       "use).\n[E socket.cpp:472] [c10d] The server socket has failed to listen on any local network address.",
       "rendezvous.port_in_use", "Address already in use"},
      {"[W socket.cpp:663] [c10d] The IPv4 network addresses of (node-x, 29500) cannot be retrieved (gai error: -2 - "
       "Name or service not known).\n[E socket.cpp:957] [c10d] The client socket has timed out after 900s while "
       "trying to connect to (node-x, 29500).",
       "rendezvous.master_unresolved", "node-x:29500"},
      {"RuntimeError: Timed out after 1801 seconds waiting for clients. 1/2 clients joined.",
       "rendezvous.clients_missing", "never joined"},
      // The store-based barrier's count of the same (PyTorch before 2.0).
      {"RuntimeError: Timed out initializing process group in store based barrier on rank: 0, for key: "
       "store_based_barrier_key:1 (world_size=2, worker_count=1, timeout=0:30:00)",
       "rendezvous.clients_missing", "never joined"},
      // PyTorch 1.x's wording, under TCPStore in the traceback.
      {"    store = TCPStore(master_addr, master_port, world_size, start_daemon, timeout)\nValueError: host not "
       "found: Name or service not known",
       "rendezvous.master_unresolved", "does not resolve"},
  };
  for (const auto& [text, code, shown] : cases) {
    Report r = judged({{"train.log", text + "\n"}});
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << text << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_NE(f->message.find(shown), std::string::npos) << f->message;
  }
  // Lightning's process group: fewer MEMBER lines than its world size and no registration
  // is a rendezvous still waiting (a warning); every member, or the registration, is none.
  Report waiting = judged({{"slurm.out",
                            "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4\n"
                            "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4\n"}});
  const Finding* w = find(waiting, "rendezvous.clients_missing");
  ASSERT_NE(w, nullptr) << testing::PrintToString(codes(waiting));
  EXPECT_EQ(w->severity, Severity::kWarning);
  EXPECT_NE(w->message.find("2 of 4 processes"), std::string::npos) << w->message;
  std::string all;
  for (int r = 0; r < 4; ++r) {
    all +=
        "Initializing distributed: GLOBAL_RANK: " + std::to_string(r) + ", MEMBER: " + std::to_string(r + 1) + "/4\n";
  }
  for (const std::string& quiet_log :
       {all,
        std::string("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n"
                    "----------------------------------------------------------------------------------------\n"
                    "distributed_backend=nccl\nAll distributed processes registered. Starting with 2 processes\n")}) {
    Report r = judged({{"slurm.out", quiet_log}});
    EXPECT_EQ(find(r, "rendezvous.clients_missing"), nullptr) << quiet_log << testing::PrintToString(codes(r));
  }
  for (const char* quiet : {"[W227 14:33:13.089 socket.cpp:767] [c10d] The client socket cannot be initialized to "
                            "connect to [node-0]:5000 (errno: 97 - Address family not supported by protocol).\n",
                            "[I socket.cpp:787] [c10d] The client socket has connected to [master-0]:29500 on "
                            "[node-1]:40212.\n"}) {
    Report r = judged({{"train.log", quiet}});
    EXPECT_TRUE(r.findings.empty()) << quiet << testing::PrintToString(codes(r));
  }
}

// The NVIDIA driver not loaded, or a GPU it could not start, by nvidia-smi's, modprobe's
// and the driver's own words; the driver's ordinary start is nothing.
TEST(TriagePasted, GpuDriverStart) {
  const std::tuple<const char*, const char*, const char*> cases[] = {
      {"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
       "NVIDIA driver is installed and running.",
       "kernel.gpu_driver_not_loaded", "not loaded"},
      {"modprobe: ERROR: could not insert 'nvidia': Key was rejected by service", "kernel.gpu_driver_not_loaded",
       "Secure Boot"},
      {"[   12.3] NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x26:0x65:1474)", "kernel.gpu_init_failed",
       "RmInitAdapter"},
      {"[    9.1] NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:", "kernel.gpu_init_failed",
       "Above 4G"},
      {"NVRM: installed in this system is not supported by the", "kernel.gpu_init_failed", "does not support"},
      {"[    9.8] NVRM: fallen off the bus and is not responding to commands.", "kernel.gpu_init_failed",
       "fallen off the bus"},
      {"[    3.5] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.", "kernel.gpu_init_failed",
       "OpenRmEnableUnsupportedGpus"},
      // nv.c at module load (kernel-open/nvidia/nv.c).
      {"[    5.1] NVRM: No NVIDIA devices probed.", "kernel.gpu_init_failed", "started no GPU"},
      {"[    5.1] NVRM: No NVIDIA GPU found.", "kernel.gpu_init_failed", "not passed through"},
      {"[    5.2] NVRM: The NVIDIA probe routine failed for 1 device(s).", "kernel.gpu_init_failed",
       "probe routine failed"},
      // PyTorch's lazy CUDA start where libcuda finds no driver.
      {"RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
       "driver from http://www.nvidia.com/Download/index.aspx",
       "kernel.gpu_driver_not_loaded", "not loaded"},
  };
  for (const auto& [line, code, shown] : cases) {
    Report r = judged({{"node.txt", std::string(line) + "\n"}});
    const Finding* f = find(r, code);
    ASSERT_NE(f, nullptr) << line << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, Severity::kError) << line;
    EXPECT_NE(f->message.find(shown), std::string::npos) << f->message;
  }
  // Another driver holding GPUs: alone a warning (a host may give GPUs to VMs on purpose),
  // with no GPU probed at all an error.
  const std::string other_driver =
      "[    4.1] NVRM: The NVIDIA probe routine was not called for 1 device(s).\n"
      "[    4.1] NVRM: This can occur when another driver was loaded and \n"
      "[    4.1] NVRM: obtained ownership of the NVIDIA device(s).\n";
  for (const auto& [text, severity] :
       {std::pair{other_driver, Severity::kWarning},
        std::pair{other_driver + "[    4.1] NVRM: No NVIDIA devices probed.\n", Severity::kError}}) {
    Report r = judged({{"dmesg.txt", text}});
    const Finding* f = find(r, "kernel.gpu_init_failed");
    ASSERT_NE(f, nullptr) << text << testing::PrintToString(codes(r));
    EXPECT_EQ(f->severity, severity) << text;
    EXPECT_NE(f->message.find("vfio-pci"), std::string::npos) << f->message;
  }
  Report none = judged({{"smi.txt", "$ nvidia-smi\nNo devices were found\n"}});
  const Finding* n = find(none, "kernel.gpu_init_failed");
  ASSERT_NE(n, nullptr) << testing::PrintToString(codes(none));
  EXPECT_EQ(n->severity, Severity::kWarning);
  for (const char* quiet : {"[    5.1] nvidia: loading out-of-tree module taints kernel.\n",
                            "[    5.9] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15\n",
                            "lsblk: No devices were found in the list\n"}) {
    Report r = judged({{"node.txt", quiet}});
    EXPECT_EQ(find(r, "kernel.gpu_init_failed"), nullptr) << quiet << testing::PrintToString(codes(r));
    EXPECT_EQ(find(r, "kernel.gpu_driver_not_loaded"), nullptr) << quiet;
  }
}

// nccl-tests built without MPI under mpirun: each process prints its own header, one after
// the other with no table between (the paste cut before any table), as its summaries do.
TEST(TriagePasted, NcclTestsHeadersOfEachProcess) {
  const std::string header =
      "# nThread 1 nGpus 8 minBytes 1073741824 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg "
      "iters: 1 validation: 1 graph: 0\n#\n# Using devices\n";
  Report r = judged({{"out.txt", header + header +
                                     "#  Rank  0 Group  0 Pid    798 on       hw14 device  0 [0x0f] "
                                     "NVIDIA H800\n"}});
  const Finding* f = find(r, "nccl_tests.single_rank");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"out.txt:1", "out.txt:4"}));
  // One header, its table after it: one run.
  Report one = judged({{"out.txt", header +
                                       "#  Rank  0 Group  0 Pid    798 on       hw14 device  0 [0x0f] NVIDIA "
                                       "H800\n           8             2     float     sum      -1    10.1    "
                                       "0.00    0.00      0    10.0    0.00    0.00      0\n" +
                                       header}});
  EXPECT_EQ(find(one, "nccl_tests.single_rank"), nullptr) << testing::PrintToString(codes(one));
}

// A paste that ends mid-line: its last setting cut short ("to S" beside "SYS") is not a
// setting that differs; a value that is really different still is.
TEST(TriagePasted, ASettingCutMidValueIsNotAnotherSetting) {
  const std::string lines =
      "a:1:2 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to SYS\n"
      "a:3:4 [1] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to SYS\n";
  Report cut = judged({{"n.log", lines + "a:5:6 [2] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to S"}});
  EXPECT_EQ(find(cut, "nccl.setting_mismatch"), nullptr) << testing::PrintToString(codes(cut));
  Report differs = judged({{"n.log", lines + "a:5:6 [2] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to PHB\n"}});
  EXPECT_NE(find(differs, "nccl.setting_mismatch"), nullptr) << testing::PrintToString(codes(differs));
}

// libfabric's EFA provider listing no device: no network for NCCL's OFI plugin.
TEST(TriagePasted, LibfabricEfaWithoutDevice) {
  Report r = judged({{"lf.txt",
                      "libfabric:12:1700000000::efa:core:efa_device_list_initialize():300<warn> no device\n"
                      "libfabric:12:1700000000::core:core:fi_getinfo_():1391<warn> fi_getinfo: provider efa "
                      "output empty list\nfi_getinfo: -61 (No data available)\n"}});
  const Finding* f = find(r, "nccl.no_ib_device");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"lf.txt:2", "lf.txt:3"}));
  Report alone = judged({{"x.txt", "fi_getinfo: -61 (No data available)\n"}});
  EXPECT_EQ(find(alone, "nccl.no_ib_device"), nullptr) << testing::PrintToString(codes(alone));
}

// NCCL's NVLS setup failing in CUDA: the NVSwitch fabric's state (Fabric Manager), not NCCL.
TEST(TriagePasted, NvlsCudaFailureIsTheFabricManagersState) {
  Report r = judged({{"n.log",
                      "h9:10:11 [0] transport/nvls.cc:201 NCCL WARN Cuda failure 401 'operation not "
                      "permitted'\nh9:10:11 [0] NCCL INFO transport/nvls.cc:350 -> 1\n"}});
  const Finding* f = find(r, "nvlink.fm_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->hosts, std::vector<std::string>{"h9"});
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"n.log:1"});
  Report other = judged({{"o.log", "h9:10:11 [0] enqueue.cc:10 NCCL WARN Cuda failure 1 'invalid argument'\n"}});
  EXPECT_EQ(find(other, "nvlink.fm_failed"), nullptr) << testing::PrintToString(codes(other));
}

// NVLSM (Fabric Manager's NVLink subnet manager) without the ib_umad module: the reason, said
// as Fabric Manager's failure.
TEST(TriagePasted, NvlsmWithoutIbUmad) {
  Report r = judged({{"fm.log",
                      "Jan 05 10:00:01 node7 nvlsm[2211]: ibwarn: [2211] umad_init: can't read ABI version "
                      "from /sys/class/infiniband_mad/abi_version (No such file or directory): is ib_umad "
                      "module loaded?\n"}});
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"fabric-manager-log"});
  const Finding* f = find(r, "nvlink.fm_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->hint.find("modprobe ib_umad"), std::string::npos) << f->hint;
}

// ibqueryerrors' "port ALL" line (a node's ports summed) is read where the node's ports are
// not listed one by one: a paste of only that line still shows the errors.
TEST(TriagePasted, IbqueryerrorsPortAllAlone) {
  Report r = judged({{"ibq.txt",
                      "Errors for 0x0c42a1030070a8b0 \"leaf-3\"\n   GUID 0x0c42a1030070a8b0 port ALL: "
                      "[SymbolErrorCounter == 512] [LinkDownedCounter == 4] [PortXmitData == 1024 (1K)]\n"}});
  const Finding* f = find(r, "counters.link_errors");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(f->message.find("leaf-3 port ALL SymbolErrorCounter 512"), std::string::npos) << f->message;
  // Beside the ports' own lines, the sum is not counted again.
  Report both = judged({{"b.txt",
                         "Errors for 0x1 \"sw\"\n   GUID 0x1 port 3: [SymbolErrorCounter == 500]\n"
                         "   GUID 0x1 port ALL: [SymbolErrorCounter == 500]\n"}});
  const Finding* g = find(both, "counters.link_errors");
  ASSERT_NE(g, nullptr) << testing::PrintToString(codes(both));
  EXPECT_EQ(g->message.find("port ALL"), std::string::npos) << g->message;
}

// nccl-tests' device list with one rank number printed by two processes: a build without
// MPI=1 under mpirun, also where the paste stops before any table; two runs pasted one after
// the other (a table between them) are not that.
TEST(TriagePasted, NcclTestsRankListedByTwoProcesses) {
  const std::string header =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#\n# Using devices\n";
  Report r = judged({{"t.txt", header + header + "#  Rank  0 Group  0 Pid   3591 on   gpu1 device  0 [0x03] A100\n" +
                                   "#  Rank  0 Group  0 Pid   2451 on   gpu2 device  0 [0x03] A100\n"}});
  const Finding* f = find(r, "nccl_tests.single_rank");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"t.txt:7", "t.txt:8"}));
  const std::string run =
      "#  Rank  0 Group  0 Pid   PID on   gpu1 device  0 [0x03] A100\n"
      "#  Rank  1 Group  0 Pid   PID on   gpu2 device  0 [0x03] A100\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "     1048576        262144     float     sum      -1    100.0   10.49   10.49      0    "
      "100.0   10.49   10.49      0\n";
  std::string two = header + run + header + run;
  two.replace(two.find("PID"), 3, "11");
  two.replace(two.find("PID"), 3, "12");
  two.replace(two.find("PID"), 3, "21");
  two.replace(two.find("PID"), 3, "22");
  Report runs = judged({{"two.txt", two}});
  EXPECT_EQ(find(runs, "nccl_tests.single_rank"), nullptr) << testing::PrintToString(codes(runs));
}

// NCCL_IB_HCA=roce names no device: a prefix on purpose, quiet; NCCL_IB_HCA=mlx5_1 names a
// device and also takes mlx5_10, which NCCL lists: a warning.
TEST(TriagePasted, HcaFilterPrefixOnPurpose) {
  Report roce = judged({{"roce.log",
                         "h1:1:1 [0] NCCL INFO NCCL_IB_HCA set to roce\n"
                         "h1:1:1 [0] NCCL INFO NET/IB : Using [0]rocep1s0f1:1/RoCE [1]roceP2p1s0f1:1/RoCE "
                         "[RO]; OOB eth0:10.0.0.1<0>\n"}});
  EXPECT_EQ(find(roce, "topo.hca_filter"), nullptr) << testing::PrintToString(codes(roce));
  Report mlx = judged({{"mlx.log",
                        "h1:1:1 [0] NCCL INFO NCCL_IB_HCA set to mlx5_1\n"
                        "h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/IB [1]mlx5_10:1/IB [RO]; OOB "
                        "eth0:10.0.0.1<0>\n"}});
  const Finding* f = find(mlx, "topo.hca_filter");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(mlx));
  EXPECT_NE(f->message.find("mlx5_10"), std::string::npos) << f->message;
}

// NVIDIA's rdma_topo check: FAIL lines (ACS bits, IOMMU groups) an error; its OK lines none.
TEST(TriagePasted, RdmaTopoAcsCheck) {
  Report r = judged({{"rdma_topo.txt",
                      "FAIL ACS for grace_rp 0009:00:00.0 0011101 != xx111x0, 0x1d != 0x1c\n"
                      "FAIL ACS for cx_switch 0009:02:00.0 0011101 != xx110x1, 0x1d != 0x19\n"
                      "FAIL Kernel iommu_group for DMA 0009:03:00.0 and GPU 0009:06:00.0 are not equal\n"}});
  const Finding* f = find(r, "topo.pcie_acs");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f).size(), 3u);
  EXPECT_NE(f->message.find("IOMMU groups"), std::string::npos) << f->message;
  Report ok = judged({{"rdma_topo.txt",
                       "OK ACS for grace_rp 0009:00:00.0 has correct values 0011100 = xx111x0\n"
                       "OK Kernel iommu_group for DMA 0009:03:00.0 and GPU 0009:06:00.0 are equal\n"}});
  EXPECT_TRUE(ok.findings.empty()) << testing::PrintToString(codes(ok));
}

// lspci -vv's ACSCtl: a bridge with a redirection on (SrcValid+, ReqRedir+ or CmpltRedir+)
// is named with its device line; a listing where every port has them off is quiet.
TEST(TriagePasted, PcieAcsRedirecting) {
  Report r =
      judged({{"lspci.txt",
               "0000:16:02.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3\n"
               "\tCapabilities: [148 v1] Access Control Services\n"
               "\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans+\n"
               "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n"
               "0000:16:03.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3\n"
               "\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-\n"}});
  EXPECT_EQ(r.triage->files.at(0).kinds, std::vector<std::string>{"lspci"});
  const Finding* f = find(r, "topo.pcie_acs");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"lspci.txt:4"});
  EXPECT_NE(f->message.find("on 1 of the 2 ports listed (0000:16:02.0)"), std::string::npos) << f->message;
  Report off = judged({{"g.txt",
                        "\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl-\n"
                        "\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl-\n"}});
  EXPECT_EQ(find(off, "topo.pcie_acs"), nullptr) << testing::PrintToString(codes(off));
}

// RDMA devices with GUID zero, in the three tools' shapes, each named once with its device;
// GUIDs that are not zero, and 16 zeros outside an ibv_devices listing, are nothing.
TEST(TriagePasted, RdmaDevicesWithZeroGuid) {
  Report r = judged({{"devs.txt",
                      "$ ibv_devices\n    device          \t   node GUID\n    ------          \t----------------\n"
                      "    mlx5_0          \t0c42a10300d1e6f0\n    mlx5_4          \t0000000000000000\n"},
                     {"ibstat.txt",
                      "CA 'mlx5_5'\n\tCA type: MT4126\n\tNode GUID: 0x0000000000000000\n\tPort 1:\n"
                      "\t\tState: Down\n\t\tPort GUID: 0x0000000000000000\n"},
                     {"devinfo.txt",
                      "hca_id:\tmlx5_6\n\ttransport:\t\t\tInfiniBand (0)\n"
                      "\tnode_guid:\t\t\t0000:0000:0000:0000\n"}});
  const Finding* f = find(r, "topo.ib_zero_guid");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->evidence.at("devices"), (nlohmann::json{"mlx5_4", "mlx5_5", "mlx5_6"}));
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"devs.txt:5", "ibstat.txt:3", "ibstat.txt:6", "devinfo.txt:3"}));
  Report quiet = judged({{"x.txt", "RAX: 0000000000000000\nmlx5_0 0c42a10300d1e6f0\n"}});
  EXPECT_EQ(find(quiet, "topo.ib_zero_guid"), nullptr) << testing::PrintToString(codes(quiet));
}

// PyTorch's NCCL error carries NCCL's last warning on the line after "Last error:": that
// line is the cause, read as NCCL's own; far from an NCCL error, "Last error:" is nothing.
TEST(TriagePasted, LastErrorContinuationOfAFrameworkError) {
  Report r = judged({{"train.log",
                      "[rank3]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:2010, "
                      "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.23.4\n"
                      "[rank3]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed "
                      "or device error.\n"
                      "[rank3]: Last error:\n"
                      "[rank3]: Error while creating shared memory segment /dev/shm/nccl-Ab12Cd (size 4194304)\n"}});
  const Finding* f = find(r, "nccl.shm_exhausted");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  // The "unhandled system error" three lines above is its consequence, quoted with it.
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"train.log:1", "train.log:4"}));
  EXPECT_EQ(find(r, "nccl.system_error"), nullptr) << testing::PrintToString(codes(r));
  Report same = judged({{"b.log",
                         "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.cpp:80, invalid usage, NCCL "
                         "version 2.21.5\nLast error:\n\nBootstrap : no socket interface found\n"}});
  EXPECT_NE(find(same, "nccl.socket_ifname_no_match"), nullptr) << testing::PrintToString(codes(same));
  Report far = judged({{"c.log",
                        "NCCL error in: x.cpp:1, unhandled system error\na\nb\nc\nd\nLast error:\n"
                        "Error while creating shared memory segment /dev/shm/x (size 1)\n"}});
  EXPECT_EQ(find(far, "nccl.shm_exhausted"), nullptr) << testing::PrintToString(codes(far));
  // Run together into one line, as a web page shows it (srun's labels inline): the warning
  // after "Last error:" is NCCL's own, and the system error its consequence.
  Report one = judged({{"d.log",
                        "10: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1331, unhandled "
                        "system error, NCCL version 2.18.5 10: Last error: 10: socketStartConnect: Connect to "
                        "10.0.0.7<45069> failed : Connection refused\n"}});
  const Finding* c = find(one, "nccl.socket_connect");
  ASSERT_NE(c, nullptr) << testing::PrintToString(codes(one));
  EXPECT_EQ(find(one, "nccl.system_error"), nullptr) << testing::PrintToString(codes(one));
  // Older frameworks' wording, NCCL's code with its string: a system error alone is that.
  Report code = judged({{"e.log", "RuntimeError: NCCL Error 2: unhandled system error\n"}});
  EXPECT_NE(find(code, "nccl.system_error"), nullptr) << testing::PrintToString(codes(code));
}

// systemctl status of the service, and systemd's journal lines, when it did not start:
// the service's state, a warning, unless its reason is in the files (then that finding).
TEST(TriagePasted, FabricManagerServiceFailed) {
  Report r = judged({{"status.txt",
                      "# systemctl status nvidia-fabricmanager --no-pager\n"
                      "x nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
                      "   Loaded: loaded (/usr/lib/systemd/system/nvidia-fabricmanager.service; enabled)\n"
                      "   Active: failed (Result: exit-code) since Tue 2025-03-04 09:12:01 UTC; 1min ago\n"
                      "  Process: 2211 ExecStart=/usr/bin/nv-fabricmanager (code=exited, status=1/FAILURE)\n"
                      "Active: failed (a line of something else, far below)\n"}});
  const Finding* f = find(r, "nvlink.fm_failed");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"status.txt:4", "status.txt:5"}));
  Report journal = judged({{"j.txt",
                            "Mar 04 09:12:01 gpu7 systemd[1]: nvidia-fabricmanager.service: Failed with result "
                            "'exit-code'.\nMar 04 09:12:01 gpu7 systemd[1]: Failed to start NVIDIA fabric manager "
                            "service.\n"}});
  ASSERT_NE(find(journal, "nvlink.fm_failed"), nullptr) << testing::PrintToString(codes(journal));
  // Running: nothing.
  Report running = judged({{"ok.txt",
                            "* nvidia-fabricmanager.service - NVIDIA fabric manager service\n"
                            "   Active: active (running) since Tue 2025-03-04 09:12:01 UTC; 2 days ago\n"}});
  EXPECT_EQ(find(running, "nvlink.fm_failed"), nullptr) << testing::PrintToString(codes(running));
  // Its reason in the files: the version finding says it; the failure is not said twice.
  Report both = judged({{"j.txt",
                         "Mar 04 09:12:01 gpu7 nv-fabricmanager[2211]: fabric manager NVIDIA GPU driver interface "
                         "version 550.54.15 don't match with driver version 550.90.07.\n"
                         "Mar 04 09:12:01 gpu7 systemd[1]: Failed to start NVIDIA fabric manager service.\n"}});
  EXPECT_NE(find(both, "nvlink.fm_version_mismatch"), nullptr);
  EXPECT_EQ(find(both, "nvlink.fm_failed"), nullptr);
}

// nccl-tests summaries one after another, no table between: each process ran its own
// test. Two runs each with its table are two runs, not that.
TEST(TriagePasted, SummariesWithNoTableBetween) {
  Report r = judged({{"out.txt",
                      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 3.94145 \n#\n"
                      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 3.94156 \n"}});
  const Finding* f = find(r, "nccl_tests.single_rank");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(quoted(*f), (std::vector<std::string>{"out.txt:1", "out.txt:4"}));
  std::ifstream in(kDir + "/nccl-tests/nccl-tests-256_H200x8-2node-baremetal-CX7-400G_all_reduce_perf.txt");
  std::stringstream run;
  run << in.rdbuf();
  ASSERT_FALSE(run.str().empty());
  Report two = judged({{"two-runs.txt", run.str() + run.str()}});
  EXPECT_EQ(find(two, "nccl_tests.single_rank"), nullptr) << testing::PrintToString(codes(two));
}

// A port that is not up: on a ticket, a warning unless the files show it unused.
// ibdev2netdev's "(Down)" of an IPoIB interface is not the port's state; a card's second
// port down beside its first one up is its uncabled spare; an Ethernet port beside an
// InfiniBand fabric is another layer's.
TEST(TriagePasted, PortsNotUpUnlessShownUnused) {
  Report r = judged({{"ibstat.txt",
                      "CA 'mlx5_1'\n\tCA type: MT4123\n\tPort 1:\n\t\tState: Initializing\n"
                      "\t\tPhysical state: LinkUp\n\t\tRate: 200\n\t\tLink layer: InfiniBand\n"}});
  const Finding* init = find(r, "topo.port_down");
  ASSERT_NE(init, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(init->severity, Severity::kWarning);
  EXPECT_EQ(init->evidence.at("state"), "INIT");
  Report ipoib = judged({{"i.txt",
                          "mlx5_0 port 1 ==> ibp26s0 (Down)\n"
                          "mlx5_1 port 1 ==> enp27s0f0np0 (Up)\n"
                          "mlx5_2 port 1 ==> enp27s0f1np1 (Down)\n"}});
  int down = 0;
  for (const Finding& f : ipoib.findings) {
    if (f.code != "topo.port_down") continue;
    ++down;
    EXPECT_EQ(f.severity, Severity::kInfo) << f.message;
    EXPECT_EQ(f.evidence.at("nic"), "mlx5_2") << f.message;
  }
  EXPECT_EQ(down, 1) << testing::PrintToString(codes(ipoib));  // the spare only, not the IPoIB port
  // Devices with two ports each (mlx4, ibv_devinfo's "port: 2"): port 2 down beside port 1
  // up on every one of them is a cabling plan (information); on one device only, where its
  // peer's port 2 is up, a fault (a warning).
  const auto devinfo = [](std::string_view dev, std::string_view second) {
    return fmt::format(
        "hca_id:\t{}\n\tphys_port_cnt:\t2\n\t\tport:\t1\n\t\t\tstate:\t\tPORT_ACTIVE (4)\n"
        "\t\tport:\t2\n\t\t\tstate:\t\t{}\n",
        dev, second);
  };
  Report plan = judged({{"d.txt", devinfo("mlx4_0", "PORT_DOWN (1)") + devinfo("mlx4_1", "PORT_DOWN (1)")}});
  int spares = 0;
  for (const Finding& f : plan.findings) {
    if (f.code != "topo.port_down") continue;
    ++spares;
    EXPECT_EQ(f.severity, Severity::kInfo) << f.message;
  }
  EXPECT_EQ(spares, 2) << testing::PrintToString(codes(plan));
  Report one = judged({{"d.txt", devinfo("mlx4_0", "PORT_DOWN (1)") + devinfo("mlx4_1", "PORT_ACTIVE (4)")}});
  const Finding* alone = find(one, "topo.port_down");
  ASSERT_NE(alone, nullptr) << testing::PrintToString(codes(one));
  EXPECT_EQ(alone->severity, Severity::kWarning);
  EXPECT_EQ(alone->evidence.at("nic"), "mlx4_0");
  // An Ethernet port down on a host whose InfiniBand ports are up is not the fabric's
  // (information); where every port is Ethernet, the port down may be one a rank uses.
  const auto ca = [](std::string_view dev, std::string_view state, std::string_view layer) {
    return fmt::format("CA '{}'\n\tCA type: MT4129\n\tPort 1:\n\t\tState: {}\n\t\tLink layer: {}\n", dev, state, layer);
  };
  Report beside = judged({{"ibstat.txt", ca("mlx5_0", "Active", "InfiniBand") + ca("mlx5_1", "Active", "Ethernet") +
                                             ca("mlx5_2", "Down", "Ethernet")}});
  const Finding* eth = find(beside, "topo.port_down");
  ASSERT_NE(eth, nullptr) << testing::PrintToString(codes(beside));
  EXPECT_EQ(eth->severity, Severity::kInfo);
  Report roce = judged({{"ibstat.txt", ca("mlx5_0", "Active", "Ethernet") + ca("mlx5_1", "Down", "Ethernet")}});
  const Finding* used = find(roce, "topo.port_down");
  ASSERT_NE(used, nullptr) << testing::PrintToString(codes(roce));
  EXPECT_EQ(used->severity, Severity::kWarning);
}

// Four GPUs of a host on NET/IB/0 with the host's own "Using" line missing: the other
// host's list of four NICs stands for it, and the finding says so.
TEST(TriagePasted, ASharedNicWithoutTheHostsUsingLine) {
  std::string log =
      "b:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB ib0\n";
  for (int d = 0; d < 4; ++d) {
    log +=
        fmt::format("a:1{}:1{} [{}] NCCL INFO Channel 00/0 : {} -> {} [send] via NET/IB/0/GDRDMA\n", d, d, d, d, d + 4);
  }
  Report r = judged({{"n.log", log}});
  const Finding* f = find(r, "nccl.shared_nic");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->hosts, std::vector<std::string>{"a"});
  EXPECT_TRUE(f->evidence.at("nics_assumed_from_other_hosts").get<bool>());
  EXPECT_NE(f->message.find("as the other hosts list"), std::string::npos) << f->message;
}

// An nccl-tests table whose binary is not named: its columns say all-reduce (an operator,
// no root, busbw above algbw), so it goes on to be judged against the NICs.
TEST(TriagePasted, TheCollectiveFromATablesColumns) {
  std::ifstream in(kDir + "/nccl-tests/nccl-tests-256_H200x8-2node-baremetal-CX7-400G_all_reduce_perf.txt");
  std::string text, line;
  while (std::getline(in, line)) {
    if (line.find("_perf") == std::string::npos) text += line + "\n";  // no line names the binary
  }
  ASSERT_FALSE(text.empty());
  Report r = judged({{"table.txt", text}});
  std::string missing;
  for (const std::string& m : r.verdict.missing) missing += m + "\n";
  EXPECT_EQ(missing.find("binary named"), std::string::npos) << missing;
  EXPECT_NE(missing.find("no NIC rates"), std::string::npos) << missing;
}

// ibv_devinfo -v from two nodes, no prompt naming them: told apart by the device listed
// again; port 1 and port 2 are each on a different subnet on the two hosts.
TEST(TriagePasted, PortsOnDifferentSubnetsAcrossHosts) {
  auto listing = [](const char* p1, const char* p2) {
    return fmt::format(
        "$ ibv_devinfo -v\nhca_id: mlx5_0\n\tnode_guid: 0008:f104:0396:62b4\n\t\tport:\t1\n"
        "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tGID[  0]:\t\t{}:0008:f104:0396:62b5\n\t\tport:\t2\n"
        "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tGID[  0]:\t\t{}:0008:f104:0396:62b6\n",
        p1, p2);
  };
  Report r = judged({{"two.txt", listing("fe80:0000:0000:0001", "fe80:0000:0000:0000") +
                                     listing("fe80:0000:0000:0000", "fe80:0000:0000:0001")}});
  std::set<std::string> subjects;
  for (const Finding& f : r.findings) {
    if (f.code == "topo.subnet_prefix_mismatch") subjects.insert(f.subject);
  }
  EXPECT_EQ(subjects, (std::set<std::string>{"mlx5_0 port 1", "mlx5_0 port 2"})) << testing::PrintToString(codes(r));
  // One host's listing of two devices is one host.
  Report one = judged({{"one.txt", listing("fe80:0000:0000:0000", "fe80:0000:0000:0000") +
                                       "hca_id: mlx5_1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"}});
  EXPECT_EQ(one.topology ? one.topology->hosts.size() : 0u, 1u);
  EXPECT_EQ(find(one, "topo.subnet_prefix_mismatch"), nullptr);
}

// ibv_devinfo of two RoCE hosts, one at MTU 1024 (an interface left at 1500), the other at
// 4096: a warning naming both. Two devices of one host at different MTUs are not.
TEST(TriagePasted, RdmaPortsAtDifferentMtusAcrossHosts) {
  auto listing = [](const char* host, int mtu) {
    return fmt::format(
        "[root@{} ~]# ibv_devinfo\nhca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\t\tport:\t1\n"
        "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t{} ({})\n"
        "\t\t\tlink_layer:\t\tEthernet\n",
        host, mtu, mtu == 4096 ? 5 : 3);
  };
  Report r = judged({{"devinfo.txt", listing("gpu1", 4096) + listing("gpu2", 1024)}});
  const Finding* f = find(r, "topo.mtu_mismatch");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->hosts, (std::vector<std::string>{"gpu2", "gpu1"}));
  EXPECT_NE(f->message.find("1024 on gpu2; 4096 on gpu1"), std::string::npos) << f->message;
  Report same = judged({{"same.txt", listing("gpu1", 4096) + listing("gpu2", 4096)}});
  EXPECT_EQ(find(same, "topo.mtu_mismatch"), nullptr) << testing::PrintToString(codes(same));
  Report one =
      judged({{"one.txt", listing("gpu1", 4096) + "hca_id:\tmlx5_1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
                                                  "\t\t\tactive_mtu:\t\t1024 (3)\n\t\t\tlink_layer:\t\tEthernet\n"}});
  EXPECT_EQ(find(one, "topo.mtu_mismatch"), nullptr) << testing::PrintToString(codes(one));
}

TEST(TriageSignatures, RealCounterDumps) {
  Report r = triage_of(
      {"ib-counters/osc-EDR-switch-ib-i4l1s01_perfquery-x_port1-xmitdiscards-xmitwait-linkdowned.out",
       "ib-counters/notes-zh-rdma-tools_mlx5_bond_0-RoCE-hw_counters-show_counters-heavy-ECN-CNP.EXCERPT.txt"});
  const Finding* errors = find(r, "counters.link_errors");
  ASSERT_NE(errors, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(errors->message.find("LinkDownedCounter"), std::string::npos) << errors->message;
  const Finding* cong = find(r, "counters.congestion");
  ASSERT_NE(cong, nullptr);
  EXPECT_NE(cong->message.find("np_cnp_sent"), std::string::npos) << cong->message;
  EXPECT_NE(cong->message.find("PortXmitWait"), std::string::npos) << cong->message;
}

// ibqueryerrors names each port under its node ("port ALL" repeats them: not counted
// twice); a sysfs listing names the device and port by its path.
TEST(TriageSignatures, IbqueryerrorsAndSysfsListingsNameTheirPorts) {
  Report r = triage_of({"triage/written_ibqueryerrors_fabric-symbol-errors-pegged.txt",
                        "triage/written_sysfs-counters_grep-H_mlx5_1-port1.txt"});
  const Finding* errors = find(r, "counters.link_errors");
  ASSERT_NE(errors, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(errors->message.find("MF0;leaf-07:MQM9700/U1 port 17 LinkErrorRecoveryCounter 12"), std::string::npos)
      << errors->message;
  EXPECT_NE(errors->message.find("gpu-c14 mlx5_3 port 1 LinkDownedCounter 3"), std::string::npos) << errors->message;
  EXPECT_NE(errors->message.find("mlx5_1 port 1 symbol_error 1377"), std::string::npos) << errors->message;
  EXPECT_EQ(errors->severity, Severity::kError);  // 4821 receive errors
  EXPECT_EQ(errors->message.find("port ALL"), std::string::npos);
  const Finding* pegged = find(r, "counters.saturated");
  ASSERT_NE(pegged, nullptr);
  EXPECT_NE(pegged->message.find("port 17 SymbolErrorCounter 65535"), std::string::npos) << pegged->message;
  const Finding* cong = find(r, "counters.congestion");
  ASSERT_NE(cong, nullptr);
  EXPECT_NE(cong->message.find("port 31 PortXmitWait 7340032"), std::string::npos) << cong->message;
  EXPECT_EQ(quoted(*pegged), std::vector<std::string>{"written_ibqueryerrors_fabric-symbol-errors-pegged.txt:3"});
}

TEST(TriageSignatures, ACounterAtItsMaximumIsSaturatedNotACount) {
  Report r = judged(
      {{"perfquery.txt",
        "# Port counters: Lid 12 port 1 (CapMask: 0x5A00)\nPortSelect:......................1\n"
        "SymbolErrorCounter:..............65535\nLinkErrorRecoveryCounter:........255\nLinkDownedCounter:............."
        "..0\n"
        "PortRcvErrors:...................0\nPortXmitData:....................4294967295\n"}});
  const Finding* f = find(r, "counters.saturated");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(f->message.find("SymbolErrorCounter 65535"), std::string::npos) << f->message;
  EXPECT_EQ(find(r, "counters.link_errors"), nullptr);  // a pegged value is not a count
}

TEST(TriageInconclusive, OneRankOfEightWithoutItsNicListIsNotAPass) {
  Report r = triage_of({"triage/written_one-rank-of-eight.log"});
  EXPECT_EQ(name(r.verdict.result), "inconclusive");
  ASSERT_EQ(r.verdict.missing.size(), 2u) << testing::PrintToString(r.verdict.missing);
  EXPECT_NE(r.verdict.missing[0].find("1 of 8 ranks"), std::string::npos);
  EXPECT_EQ(r.verdict.missing[1], "host gpu-c03: no `NET/IB : Using` line: cannot tell which NIC NET/IB/3 is");
}

TEST(TriageInconclusive, AnErrorStillFails) {
  Report r = triage_of({"triage/written_one-rank-of-eight.log", "triage/written_dmesg-xid79-aer-linkflap-oom.txt"});
  EXPECT_EQ(name(r.verdict.result), "fail");
  EXPECT_FALSE(r.verdict.missing.empty());
}

TEST(TriageFiles, DirectoriesAreReadRecursivelyInNameOrder) {
  auto files = list_files({kDir + "/triage"});
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(std::is_sorted(files->begin(), files->end()));
  EXPECT_GE(files->size(), 8u);
  auto missing = list_files({kDir + "/no-such-dir"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no-such-dir"), std::string::npos);
}

// A file streamed in chunks that cut lines (as a log of gigabytes is read) gives what it
// gives read whole: kinds, lines, facts and findings.
TEST(TriageFiles, StreamedInChunksAsReadWhole) {
  for (const std::string rel :
       {"nccl-logs/slurmv4-tpgds-aihub0008_H100x8-2node-16rank-RoCE_NCCL-2.27.5_8rail-nonidentity-HCA-list.log",
        "triage/written_gdr-partial_srun-prefix.log", "triage/written_dmesg-xid79-aer-linkflap-oom.txt",
        "triage/written_all_reduce_perf_wrong-at-two-sizes.txt",
        "ib-counters/osc-EDR-switch-ib-i4l1s01_perfquery-x_port1-xmitdiscards-xmitwait-linkdowned.out",
        "triage/written_binary-core-excerpt.bin"}) {
    Facts whole, streamed;
    gather(kDir + "/" + rel, text_of(rel), whole);
    ASSERT_TRUE(gather_file(kDir + "/" + rel, streamed, nullptr, StreamLimits{0, 1000}).ok()) << rel;
    ASSERT_EQ(whole.files.size(), 1u);
    ASSERT_EQ(streamed.files.size(), 1u);
    EXPECT_EQ(streamed.files[0].kinds, whole.files[0].kinds) << rel;
    EXPECT_EQ(streamed.files[0].lines, whole.files[0].lines) << rel;
    EXPECT_EQ(streamed.files[0].bytes, whole.files[0].bytes) << rel;
    EXPECT_EQ(streamed.nccl.size(), whole.nccl.size()) << rel;
    EXPECT_EQ(streamed.kernel.size(), whole.kernel.size()) << rel;
    EXPECT_EQ(streamed.counters.size(), whole.counters.size()) << rel;
    EXPECT_EQ(streamed.tables.size(), whole.tables.size()) << rel;
    Report a, b;
    judge(std::move(whole), a);
    judge(std::move(streamed), b);
    EXPECT_EQ(codes(a), codes(b)) << rel;
  }
}

// A line repeated by another communicator (same process, device and message) is kept once.
TEST(TriageFiles, RepeatedLinesAreKeptOnce) {
  const std::string rel = "triage/written_gdr-partial_srun-prefix.log";
  const std::string text = text_of(rel);
  Facts once, thrice;
  gather("a.log", text, once);
  gather("a.log", text + text + text, thrice);
  EXPECT_EQ(thrice.nccl.size(), once.nccl.size());
  EXPECT_EQ(thrice.files[0].lines, 3 * once.files[0].lines);
}

// The signature table lists every code a triage finding carries (topo's own aside), and the
// triage table of docs/triage.md documents each of them.
TEST(TriageFiles, EveryCodeIsInTheSignatureTableAndTheTriageDoc) {
  std::set<std::string> listed;
  for (const Signature& s : signatures()) {
    EXPECT_FALSE(s.what.empty());
    for (std::string_view c : s.codes) EXPECT_TRUE(listed.insert(std::string(c)).second) << c << " listed twice";
  }
  std::ifstream in(FABSCOPE_TRIAGE_DOC);
  ASSERT_TRUE(in) << FABSCOPE_TRIAGE_DOC;
  std::stringstream doc;
  doc << in.rdbuf();
  for (const std::string& c : listed) EXPECT_NE(doc.str().find("`" + c + "`"), std::string::npos) << c;
  auto files = list_files({kDir + "/triage", kDir + "/nccl-logs", kDir + "/ib-counters", kDir + "/nccl-tests"});
  ASSERT_TRUE(files.ok());
  // A table that names no hosts is judged against the slowest host of all the files: the
  // one-GPU VMs' logs (fabscope-g*, a 10 Gb/s socket NIC) stay out of this one pile.
  std::erase_if(*files, [](const std::string& f) { return f.find("/nccl-logs/fabscope-g") != std::string::npos; });
  Report r;
  ASSERT_TRUE(triage_paths(*files, r).ok());
  std::set<std::string> produced;
  for (const Finding& f : r.findings) {
    if (!f.code.starts_with("topo.")) produced.insert(f.code);
  }
  // Every code of the table comes out of a fixture file, except those tested on inline logs
  // above (the tickets' corpus has real ones of each but counters.roce_no_flow_control:
  // ctest triage_corpus).
  const std::set<std::string> inline_only = {
      "nccl.socket_fallback", "nccl.shm_permission", "kernel.hca_firmware", "counters.roce_no_flow_control",
      "nccl.gdr_off", "nccl.shared_nic", "kernel.gpu_reset_required", "topo.pcie_degraded", "nvlink.fm_no_nvswitch",
      "nvlink.fm_version_mismatch", "nvlink.fm_failed", "nvlink.link_inactive", "nccl.ib_local_protection",
      "nccl.ib_completion_error", "nccl.socket_ifaces_unroutable", "nccl.socket_ifname_no_match", "topo.pcie_acs",
      "topo.ib_zero_guid", "topo.p2p_unsupported", "kernel.driver_mismatch", "kernel.gpudirect_pin_failed",
      "nccl.topo_file_invalid", "nccl.pci_sysfs_missing", "nccl.message_truncated", "nccl.cuda_oom",
      "nccl.cuda_driver_too_old", "nccl.invalid_device", "topo.roce_gid_empty", "nccl.duplicate_gpu",
      "nccl.invalid_usage", "nccl.cuda_kernel_fault", "nccl.cuda_ecc", "nccl.no_cuda_device", "nccl.gpu_unavailable",
      "nccl.no_kernel_image", "nccl.p2p_disabled_nvlink", "nccl.ib_memlock", "nccl.ib_port_error",
      "nccl.ib_fatal_event", "nccl.ib_incompatible_devices", "kernel.nic_module", "kernel.nic_health",
      "nccl.ib_qp_access_error", "nccl.ofi_register_failed", "topo.roce_gid_sparse", "container.gpu_access_lost",
      "nccl.cuda_too_many_peers", "nccl.cuda_nvlink_error", "nccl.cuda_launch_timeout", "nccl.cuda_unlicensed",
      "nccl.cuda_mps", "nccl.ib_device_unopened", "nccl.comm_id_unresolved", "nvlink.imex_unavailable",
      "container.driver_libs_missing", "topo.rdma_provider_missing", "limits.memlock_low", "nccl.roce_gid_link_local",
      "nccl.ofi_unreachable", "launcher.munge_unavailable", "launcher.munge_rejected", "kernel.iommu_fault",
      "kernel.iommu_translated", "rendezvous.store_unreachable", "rendezvous.port_in_use",
      "rendezvous.master_unresolved", "rendezvous.clients_missing", "kernel.gpu_driver_not_loaded",
      "kernel.gpu_init_failed", "container.rdma_netns_exclusive", "dcgm.diag_failed", "fabric.link_degraded",
      "fabric.link_not_active", "nccl.collective_mismatch", "container.driver_files_in_image", "nccl.topology_fallback",
      "kernel.gpu_slowdown", "nccl.net_plugin_load_failed", "nvlink.nvswitch_error", "limits.ptrace_denied",
      "kernel.host_memory_error", "kernel.nic_firmware_missing", "container.toolkit_denied",
      "container.toolkit_missing", "container.image_no_shell", "container.image_storage_full",
      "nccl.cumem_host_needs_p2p", "kernel.module_build_failed", "launcher.slurm_version_mismatch",
      "launcher.clock_skew", "container.nic_driver_storage_modules", "container.runtime_hook_failed", "nccl.cuda_error",
      "nccl.known_bug", "nccl.ib_fabric_event", "mpi.not_cuda_aware", "framework.custom_allreduce_ipc",
      "nccl.ras_process_lost", "nccl.ras_ranks_behind", "healthcheck.failed", "link.mlxlink_issue",
      "topo.roce_gid_index_mismatch", "counters.allowance_exceeded", "nccl.host_identity_collision",
      "ucx.port_speed_unknown", "container.gpu_driver_in_use", "mpi.ucc_shm_failed", "nvlink.nvls_exhausted",
      "mpi.pmix_client_failed", "launcher.visible_devices_split", "topo.roce_gid_unusable", "kernel.rdma_abi_mismatch",
      "launcher.slurm_gres_config", "kernel.rdma_registration_capped", "mpi.daemon_start_failed", "mpi.oob_unreachable",
      "mpi.tcp_wrong_peer", "ucx.transport_open_failed", "kernel.pci_bar_unassigned", "mpi.runtime_mismatch",
      "fabric.default_subnet_prefix", "fabric.cxi_address_mismatch", "framework.nccl_library_mismatch",
      "topo.nic_rdma_disabled", "kernel.module_not_found", "mpi.pml_add_procs_failed",
      "nvlink.fabric_registration_failed", "nvlink.cuda_multicast_unsupported", "framework.nccl_library_missing",
      // on the plugin's own snapshots: test/tools/profile_replay_test.py
      "nccl.link_wait", "run.hang"};
  for (const std::string& c : listed) {
    if (!inline_only.count(c)) {
      EXPECT_TRUE(produced.count(c)) << c << " comes out of no fixture";
    }
  }
  for (const std::string& c : produced) EXPECT_TRUE(listed.count(c)) << c << " is not in the signature table";
}

// A file without a newline, streamed: one line, its first MiB kept; no crash, no growth.
TEST(TriageFiles, AStreamedFileWithoutNewlinesIsOneCutLine) {
  const std::string path = ::testing::TempDir() + "/no-newline.txt";
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string(3 << 20, 'a');
  }
  Facts facts;
  ASSERT_TRUE(gather_file(path, facts, nullptr, StreamLimits{0, 4096}).ok());
  ASSERT_EQ(facts.files.size(), 1u);
  EXPECT_EQ(facts.files[0].lines, 1);
  EXPECT_EQ(facts.files[0].bytes, 3u << 20);
  EXPECT_TRUE(facts.files[0].kinds.empty());
  std::remove(path.c_str());
}

// Issue 37 item 5: every fixture and ticket in the shapes people paste it (NCCL's prefix
// stripped, terminal colours, a Markdown fence, HTML escapes, CRLF, cut in half, its
// blocks in another order). The judgement may weaken, to fewer findings or inconclusive;
// it never crashes and never names a cause the file as written did not.
TEST(TriageDamage, PastedShapesNeverNameAnotherCause) {
  std::vector<std::string> files;
  for (const char* dir : {"triage", "tickets"}) {
    for (const auto& e : std::filesystem::directory_iterator(kDir + "/" + dir)) {
      const std::string n = e.path().filename().string();
      if (n.ends_with(".txt") || n.ends_with(".log")) files.push_back(std::string(dir) + "/" + n);
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 30u);
  for (const std::string& file : files) {
    const std::string text = text_of(file);
    const Report asis = judged({{"f.txt", text}});
    std::set<std::string> causes;
    for (const Finding& f : asis.findings) causes.insert(f.code);
    for (const auto& [shape, make, lossless] : fuzz::paste_shapes()) {
      const Report r = judged({{"f.txt", make(text)}});
      for (const Finding& f : r.findings) {
        if (f.severity == Severity::kInfo) continue;
        // A WARN line cut mid-way is still a warning, read without its meaning: weaker, no other cause.
        // Likewise an IB completion error cut before its status, and a failed verbs call cut
        // before its errno (ibv_reg_mr's "Cannot allocate memory": the locked-memory limit).
        // A framework's system error cut before its "Last error:" too, and its invalid usage cut
        // from the warning that says which check failed; and NCCL's NVLS warning without the
        // source file that says it is NVLS's (the prefix stripped), and CUDA's peer-access error
        // without the source file that says it was NCCL's SHM transport asking, or without the
        // hosts' processes that show each rank seeing a GPU of its own.
        const bool less_specific =
            (f.code == "topo.p2p_unsupported" &&
             (causes.count("nccl.cumem_host_needs_p2p") || causes.count("launcher.visible_devices_split"))) ||
            // A hook that failed, where the file whole says why (its stderr cut off here).
            (f.code == "container.runtime_hook_failed" && !causes.empty()) ||
            ((f.code == "nccl.warn" || f.code == "nccl.system_error" || f.code == "nccl.invalid_usage" ||
              f.code == "nccl.cuda_error") &&
             std::any_of(causes.begin(), causes.end(),
                         [](auto& c) {  // UCX's errors are read by the same meanings, and NCCL's
                                        // refusal of a graph capture is a library's
                           return c.starts_with("nccl.") || c.starts_with("nvlink.") || c.starts_with("ucx.") ||
                                  c == "framework.nccl_library_mismatch";
                         })) ||
            ((f.code == "nccl.ib_completion_error" || f.code == "nccl.ibv_failed") &&
             std::any_of(causes.begin(), causes.end(), [](auto& c) { return c.starts_with("nccl.ib_"); }));
        EXPECT_TRUE(causes.count(f.code) || less_specific)
            << file << " " << shape << ": " << f.code << " (" << f.message << ") where the file as written gives "
            << testing::PrintToString(causes);
      }
    }
  }
}

// nvidia-smi in a container failing with NVML's "Unknown Error": the container lost its GPU
// device nodes (NVIDIA's notice on systemd's cgroup driver).
TEST(TriagePasted, NvmlUnknownErrorInAContainer) {
  Report r =
      judged({{"smi.txt", "root@4f2a9c1d7e3b:/workspace# nvidia-smi\nFailed to initialize NVML: Unknown Error\n"}});
  const Finding* f = find(r, "container.gpu_access_lost");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(quoted(*f), std::vector<std::string>{"smi.txt:2"});
  EXPECT_NE(f->hint.find("create-dev-char-symlinks"), std::string::npos) << f->hint;
}

// show_gids in a pod whose table starts at index 6 (its link-local GIDs listed, nothing at
// 0): a warning naming the RoCE v2 GID of the pod's address. A full table, or one grepped
// for v2 or for an address, is not.
TEST(TriagePasted, ShowGidsTableWithNothingAtIndexZero) {
  const std::string pod =
      "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV\n"
      "mlx5_2  1       6       0000:0000:0000:0000:0000:ffff:0a00:0207 10.0.2.7        v1      net1\n"
      "mlx5_2  1       7       0000:0000:0000:0000:0000:ffff:0a00:0207 10.0.2.7        v2      net1\n"
      "mlx5_2  1       8       fe80:0000:0000:0000:a0b1:c2ff:fed3:e4f5                 v1      net1\n"
      "mlx5_2  1       9       fe80:0000:0000:0000:a0b1:c2ff:fed3:e4f5                 v2      net1\n";
  Report r = judged({{"gids.txt", pod}});
  const Finding* f = find(r, "topo.roce_gid_sparse");
  ASSERT_NE(f, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->subject, "mlx5_2 port 1");
  EXPECT_NE(f->hint.find("NCCL_IB_GID_INDEX=7"), std::string::npos) << f->hint;
  EXPECT_EQ(f->evidence.at("first_index"), 6);
  const std::string full =
      "mlx5_0  1       0       fe80:0000:0000:0000:a0b1:c2ff:fed3:e4f5                 v1      ens1f0\n"
      "mlx5_0  1       1       fe80:0000:0000:0000:a0b1:c2ff:fed3:e4f5                 v2      ens1f0\n"
      "mlx5_0  1       2       0000:0000:0000:0000:0000:ffff:0a00:0207 10.0.2.7        v1      ens1f0\n"
      "mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0a00:0207 10.0.2.7        v2      ens1f0\n";
  EXPECT_EQ(find(judged({{"full.txt", full}}), "topo.roce_gid_sparse"), nullptr);
  const std::string v2_only =
      "mlx5_0  1       1       fe80:0000:0000:0000:a0b1:c2ff:fed3:e4f5                 v2      "
      "ens1f0\n"
      "mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0a00:0207 10.0.2.7        v2      "
      "ens1f0\n";
  EXPECT_EQ(find(judged({{"v2.txt", v2_only}}), "topo.roce_gid_sparse"), nullptr);
}

// Wrappers stacked as collectors write them, on a kernel line and an lspci block; ip's own
// numbered lines keep their number (no srun label is taken from them).
TEST(TriageDamage, WrappersStackedOnAnyLine) {
  Report r = judged({{"k.txt",
                      "[pod/trainer-0/main] 2026-11-28T01:02:03.456Z > NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has "
                      "fallen off the bus.\n"
                      " 7: 3b:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
                      " 7: \t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n"
                      " 7: \t\tLnkSta:\tSpeed 32GT/s, Width x8 (downgraded)\n"}});
  const Finding* xid = find(r, "kernel.gpu_xid");
  ASSERT_NE(xid, nullptr) << testing::PrintToString(codes(r));
  EXPECT_EQ(xid->evidence.at("xid"), 79);
  const Finding* link = find(r, "topo.pcie_degraded");
  ASSERT_NE(link, nullptr) << testing::PrintToString(codes(r));
  EXPECT_NE(link->subject.find("ConnectX-7"), std::string::npos) << link->subject;
  EXPECT_EQ(link->evidence.at("capable_width"), 16);
  EXPECT_EQ(without_wrappers("1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536"), "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536");
  EXPECT_EQ(without_wrappers("0: mlx5_0: node_type ca fw 28.39.1002"), "0: mlx5_0: node_type ca fw 28.39.1002");
  EXPECT_EQ(without_wrappers("[1,12]<stderr>:NCCL WARN x"), "NCCL WARN x");
  // Ray's deduplication of a line other workers printed too.
  EXPECT_EQ(without_wrappers("h:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0. [repeated 14x across "
                             "cluster]\r"),
            "h:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.");
}

// The lossless shapes (each line whole, behind a launcher's or collector's prefix, or
// coloured, fenced, escaped, CRLF): every error and warning of the file as written is
// found again, on every fixture and ticket.
TEST(TriageDamage, LosslessShapesKeepEveryCause) {
  std::vector<std::string> files;
  for (const char* dir : {"triage", "tickets"}) {
    for (const auto& e : std::filesystem::directory_iterator(kDir + "/" + dir)) {
      const std::string n = e.path().filename().string();
      if (n.ends_with(".txt") || n.ends_with(".log")) files.push_back(std::string(dir) + "/" + n);
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 30u);  // the fixtures are there: an empty list would hold nothing to its causes
  const auto causes_of = [](const Report& r) {
    std::set<std::string> causes;
    for (const Finding& f : r.findings) {
      if (f.severity != Severity::kInfo) causes.insert(f.code);
    }
    return causes;
  };
  for (const std::string& file : files) {
    const std::string text = text_of(file);
    const std::set<std::string> asis = causes_of(judged({{"f.txt", text}}));
    for (const auto& [shape, make, lossless] : fuzz::paste_shapes()) {
      if (!lossless) continue;
      EXPECT_EQ(causes_of(judged({{"f.txt", make(text)}})), asis) << file << " " << shape;
    }
  }
}

}  // namespace
}  // namespace fabscope::triage
