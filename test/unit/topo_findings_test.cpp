// Every topology fixture through the readers and the analysis, with the findings its
// row in test/fixtures/SOURCES.md leads one to expect: healthy machines give no warning
// or error; known-bad files give the finding that names their fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "topo/mapping.h"
#include "topo/readers.h"

namespace fabscope::topo {
namespace {

const std::string kDir = FABSCOPE_FIXTURES;

enum class Kind { kNcclXml, kHwlocXml, kSmi, kLog, kRdma };

struct Input {
  Kind kind;
  std::string file;  // under test/fixtures
};

struct Outcome {
  TopologySet set;
  std::vector<HostAnalysis> analyses;
  std::vector<Finding> findings;
};

Outcome run(const std::vector<Input>& inputs, AnalysisOptions options = {}, const std::string& as_host = "") {
  Outcome o;
  for (const Input& in : inputs) {
    TopologySet one;
    std::string path = kDir + "/" + in.file;
    Status s;
    switch (in.kind) {
      case Kind::kNcclXml:
        s = read_nccl_xml(path, one);
        break;
      case Kind::kHwlocXml:
        s = read_hwloc_xml(path, one);
        break;
      case Kind::kSmi:
        s = read_nvidia_smi_topo(path, one);
        break;
      case Kind::kLog:
        s = read_nccl_log(path, one);
        break;
      case Kind::kRdma:
        s = read_rdma_text(path, one);
        break;
    }
    EXPECT_TRUE(s.ok()) << path << ": " << s.message();
    for (const HostTopology& h : one.hosts) merge_host(o.set.host(as_host.empty() ? h.host : as_host), h);
  }
  auto a = analyze_topology(o.set, options, o.findings);
  EXPECT_TRUE(a.ok()) << a.status().message();
  if (a.ok()) o.analyses = *a;
  return o;
}

std::multiset<std::string> serious(const std::vector<Finding>& f) {
  std::multiset<std::string> out;
  for (const Finding& x : f) {
    if (x.severity != Severity::kInfo) out.insert(x.code + ":" + std::string(name(x.severity)));
  }
  return out;
}

std::string dump(const std::vector<Finding>& f) {
  std::string s;
  for (const Finding& x : f)
    s += "\n  " + x.code + " " + std::string(name(x.severity)) + " [" + x.subject + "] " + x.message;
  return s;
}

int count(const std::vector<Finding>& f, const std::string& code, const std::string& severity = "") {
  return static_cast<int>(std::count_if(f.begin(), f.end(), [&](const Finding& x) {
    return x.code == code && (severity.empty() || name(x.severity) == severity);
  }));
}

// ---- healthy machines: nothing above info ----

class Healthy : public ::testing::TestWithParam<Input> {};

TEST_P(Healthy, NoWarningOrError) {
  Outcome o = run({GetParam()});
  EXPECT_TRUE(serious(o.findings).empty()) << GetParam().file << dump(o.findings);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, Healthy,
    ::testing::Values(
        Input{Kind::kNcclXml, "topo-xml/azure-NDv5-H100x8-8NDR-topo.xml"},
        Input{Kind::kNcclXml, "topo-xml/azure-NDv4-A100x8-8HDR-topo.xml"},
        Input{Kind::kNcclXml, "topo-xml/aws-p4d.24xlarge-A100x8-4EFA-topo.xml"},
        Input{Kind::kNcclXml, "topo-xml/aws-p4de.24xlarge-A100x8-4EFA-topo.xml"},
        Input{Kind::kNcclXml, "topo-xml/aws-g5.48xlarge-A10Gx8-1EFA-topo.xml"},
        Input{Kind::kNcclXml, "topo-xml/aws-p5.48xlarge-H100x8-32EFA-topo.upstream-skeleton.xml"},
        Input{Kind::kNcclXml, "topo-xml/aws-p5.48xlarge-H100x8-32EFA-topo.PR1226-unmerged.xml"},
        Input{Kind::kNcclXml, "topo-xml/azure-NCv4-A100PCIe-x4-graph.xml"},
        Input{Kind::kNcclXml, "topo-xml/oci-BM.GPU4.8-A100x8-topo-flattened.xml"},
        Input{Kind::kNcclXml, "topo-xml/oci-BM.GPU.B4.8-A100x8-topo-flattened.xml"},
        Input{Kind::kNcclXml, "topo-xml/oci-BM.GPU.H100.8-H100x8-8CX7dual-topo.xml"},
        Input{Kind::kNcclXml, "topo-xml/oci-BM.GPU.H100.8-H100x8-8CX7dual-topo.kubernetes-variant.xml"},
        Input{Kind::kHwlocXml, "hwloc-xml/juwels-booster-jwb0004_A100x4-CX6-HDRx4-EPYC7402-NPS4_hwloc2.2.xml"},
        Input{Kind::kHwlocXml, "hwloc-xml/juwels-cluster-jwc09n003_V100x4-CX4-EDRx2-PLX-switch_hwloc1.11-v1format.xml"},
        Input{Kind::kHwlocXml, "hwloc-xml/llnl-lassen_POWER9-V100x4-CX5-socketdirect-cuda-nvml_hwloc2.2.xml"},
        Input{Kind::kHwlocXml, "hwloc-xml/nvidia-DGX-2H_V100x16-NVSwitchx12-nvml-noNIC_hwloc-tests.xml"},
        Input{Kind::kSmi, "nvidia-smi-topo/slurmv4-tpgds-aihub0007_H100x8-12NIC-nonidentity-GPU-NIC-map_topo-m.txt"},
        Input{Kind::kSmi, "nvidia-smi-topo/sglang-24966_H20x8-8NIC-1to1-PIX_topo-m.txt"},
        Input{Kind::kSmi, "nvidia-smi-topo/nccl-tests-311_A100-SXM4x8-10NIC-2GPU-per-NIC_topo-m.txt"},
        Input{Kind::kSmi, "nvidia-smi-topo/notes-DGX-A100_8GPU-12mlx5-old-format_topo-m.txt"},
        Input{Kind::kSmi, "nvidia-smi-topo/notes-DGX-1_V100x8-4mlx5-PCIe-PIX-PHB_topo-mp.txt"},
        Input{Kind::kLog,
              "nccl-logs/slurmv4-tpgds-aihub0008_H100x8-2node-16rank-RoCE_NCCL-2.27.5_8rail-nonidentity-HCA-list.log"},
        Input{Kind::kRdma, "rdma/slurmv4-tpgds-aihub0001_H100-CX7-RoCE_show_gids_ibv_devinfo-mlx5_0.txt"},
        Input{Kind::kRdma, "rdma/oci-BM.GPU4.8-likely_18x-mlx5_sys-class-infiniband-ls-l.txt"}));

// A 1:1 machine maps GPU k to its own PIX NIC; with the non-identity map of aihub0007.
TEST(TopoFixtures, NonIdentityMapIsFollowed) {
  Outcome o =
      run({{Kind::kSmi, "nvidia-smi-topo/slurmv4-tpgds-aihub0007_H100x8-12NIC-nonidentity-GPU-NIC-map_topo-m.txt"}});
  ASSERT_EQ(o.analyses.size(), 1u);
  const std::vector<std::string> expected = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_5",
                                             "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_11"};
  ASSERT_EQ(o.analyses[0].gpus.size(), 8u);
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(o.analyses[0].gpus[g].nccl_choice, expected[g]) << "GPU " << g;
    EXPECT_EQ(o.analyses[0].gpus[g].best_path, PathClass::kPix);
  }
}

// The same machine type's NCCL log (aihub0008, HCA list 0,1,2,5,6,7,8,11) puts GPU k on
// NET k, which is exactly GPU k's PIX NIC in aihub0007's matrix: no mapping finding.
TEST(TopoFixtures, LogOfTheSameMachineTypeAgreesWithItsMatrix) {
  Outcome o =
      run({{Kind::kSmi, "nvidia-smi-topo/slurmv4-tpgds-aihub0007_H100x8-12NIC-nonidentity-GPU-NIC-map_topo-m.txt"},
           {Kind::kLog,
            "nccl-logs/slurmv4-tpgds-aihub0008_H100x8-2node-16rank-RoCE_NCCL-2.27.5_8rail-nonidentity-HCA-list.log"}},
          {}, "aihub");
  ASSERT_EQ(o.analyses.size(), 1u);
  for (const GpuMapping& m : o.analyses[0].gpus) {
    ASSERT_EQ(m.used_nics.size(), 1u) << "GPU " << m.gpu;
    EXPECT_EQ(m.used_nics[0], m.nccl_choice) << "GPU " << m.gpu;
    EXPECT_EQ(m.used_gdr, true);
  }
  EXPECT_EQ(count(o.findings, "topo.nic_far"), 0) << dump(o.findings);
  EXPECT_EQ(count(o.findings, "topo.gdr_off"), 0) << dump(o.findings);
  EXPECT_EQ(count(o.findings, "topo.nic_shared"), 0) << dump(o.findings);
  // mlx5_1 is a prefix of mlx5_10 (present in the matrix), but NCCL did not list it.
  EXPECT_EQ(count(o.findings, "topo.hca_filter", "warning"), 0) << dump(o.findings);
  EXPECT_EQ(count(o.findings, "topo.hca_filter", "info"), 1) << dump(o.findings);
}

// ---- known-bad ----

TEST(TopoFixtures, PrefixMatchPullsMlx5_10) {
  Outcome o =
      run({{Kind::kLog,
            "nccl-logs/"
            "slurmv4-tpgds-aihub0003_H100x8-2node-16rank-RoCE_NCCL-2.29.3_IB_HCA-prefix-match-pulls-mlx5_10.log"}});
  ASSERT_EQ(count(o.findings, "topo.hca_filter", "warning"), 1) << dump(o.findings);
  auto f =
      std::find_if(o.findings.begin(), o.findings.end(), [](const Finding& x) { return x.code == "topo.hca_filter"; });
  EXPECT_NE(f->message.find("mlx5_10"), std::string::npos) << f->message;
  EXPECT_NE(f->subject.find("tpgds-aihub0003"), std::string::npos) << f->subject;
  EXPECT_NE(f->hint.find("NCCL_IB_HCA==mlx5_0"), std::string::npos) << f->hint;
}

TEST(TopoFixtures, NdV2HalfTheGpusHaveNoLocalNic) {
  Outcome o = run({{Kind::kNcclXml, "topo-xml/azure-NDv2-V100x8-1IB-topo.xml"}});
  EXPECT_EQ(count(o.findings, "topo.gpu_without_near_nic", "warning"), 4) << dump(o.findings);
  EXPECT_EQ(serious(o.findings).size(), 4u) << dump(o.findings);
  for (const Finding& f : o.findings) {
    if (f.severity == Severity::kWarning) {
      EXPECT_NE(f.message.find("SYS"), std::string::npos) << f.message;
    }
  }
}

// Four NICs for eight GPUs, each NIC at PIX to a GPU (an A800 machine's matrix, posted as a
// working one): the other four GPUs reach their socket's NIC through the CPU by design, info.
TEST(TopoFixtures, FewerNicsThanGpusEachNearAGpuIsByDesign) {
  Outcome o = run({{Kind::kSmi, "tickets/web-llmaction-topo-matrix-a800-healthy.txt"}});
  EXPECT_EQ(count(o.findings, "topo.gpu_without_near_nic", "warning"), 0) << dump(o.findings);
  EXPECT_GE(count(o.findings, "topo.gpu_without_near_nic", "info"), 4) << dump(o.findings);
  for (const Finding& f : o.findings) {
    if (f.code == "topo.gpu_without_near_nic") {
      EXPECT_NE(f.message.find("NICs are each near a GPU already"), std::string::npos) << f.message;
    }
  }
}

TEST(TopoFixtures, NcV4SingleEthernetNic) {
  Outcome o = run({{Kind::kNcclXml, "topo-xml/azure-NCv4-A100PCIe-x4-topo.xml"}});
  // One Ethernet NIC on NUMA 0 serves four GPUs on four NUMA nodes.
  EXPECT_EQ(count(o.findings, "topo.gpu_without_near_nic", "warning"), 3) << dump(o.findings);
  EXPECT_EQ(count(o.findings, "topo.nvlink_mismatch"), 0) << dump(o.findings);
}

TEST(TopoFixtures, NcV4NvlinkTargetsAgainstItsGraph) {
  Outcome bad = run({{Kind::kNcclXml, "topo-xml/azure-NCv4-A100PCIe-x4-topo.PRE-FIX-nvlink-targets-swapped.xml"},
                     {Kind::kNcclXml, "topo-xml/azure-NCv4-A100PCIe-x4-graph.xml"}});
  EXPECT_EQ(count(bad.findings, "topo.nvlink_mismatch", "error"), 1) << dump(bad.findings);
  Outcome good = run({{Kind::kNcclXml, "topo-xml/azure-NCv4-A100PCIe-x4-topo.xml"},
                      {Kind::kNcclXml, "topo-xml/azure-NCv4-A100PCIe-x4-graph.xml"}});
  EXPECT_EQ(count(good.findings, "topo.nvlink_mismatch"), 0) << dump(good.findings);
}

TEST(TopoFixtures, NdV4NumaSwappedHasOverlappingAffinity) {
  Outcome o = run({{Kind::kNcclXml, "topo-xml/azure-NDv4-A100x8-8HDR-topo.PRE-FIX-numa-swapped.xml"}});
  EXPECT_EQ(count(o.findings, "topo.numa_affinity", "error"), 1) << dump(o.findings);
}

TEST(TopoFixtures, NdV5AffinitySwapped) {
  Outcome o = run({{Kind::kNcclXml, "topo-xml/azure-NDv5-H100x8-8NDR-topo.PRE-FIX-affinity-swapped.xml"}});
  EXPECT_EQ(count(o.findings, "topo.numa_affinity", "warning"), 1) << dump(o.findings);
  EXPECT_EQ(serious(o.findings).size(), 1u) << dump(o.findings);
}

TEST(TopoFixtures, MeluxinaPortDown) {
  Outcome o =
      run({{Kind::kHwlocXml, "hwloc-xml/meluxina-mel2001_A100x4-CX6x2-mlx5_0-port-down_hwloc1.11-v1format.xml"}});
  ASSERT_EQ(count(o.findings, "topo.port_down", "error"), 1) << dump(o.findings);
  auto f =
      std::find_if(o.findings.begin(), o.findings.end(), [](const Finding& x) { return x.code == "topo.port_down"; });
  EXPECT_NE(f->subject.find("mlx5_0 port 1"), std::string::npos);
  // Two GPUs have no NIC under their switch, and mlx5_0's GPU lost its near NIC.
  EXPECT_GE(count(o.findings, "topo.gpu_without_near_nic"), 2) << dump(o.findings);
}

TEST(TopoFixtures, VmWithMisdetectedPciLinks) {
  Outcome o = run({{Kind::kLog, "nccl-logs/nccl-tests-256_H200-CX7-KVM-VM_NCCL-GRAPH-topology-PCI0.2-links.log"}});
  EXPECT_EQ(count(o.findings, "topo.pcie_degraded", "warning"), 1) << dump(o.findings);
}

// A healthy one-GPU H200 VM, NCCL 2.28.9: the virtio NIC's PCI link is NCCL's LOC_BW
// (5000), no slot's speed; the GPU's PCI[48.0] is compared with nothing, so no finding.
TEST(TopoFixtures, HealthyVmLocLinkIsNoPcieFinding) {
  const std::string stem =
      "nccl-logs/fabscope-g4_H200x1-KVM-VM-2rank-NCCL_HOSTID_NCCL-2.28.9_Socket-virtio-NIC-LOC_BW_";
  for (const std::vector<Input>& inputs : std::vector<std::vector<Input>>{
           {{Kind::kLog, stem + "fakehost0.log"}},
           {{Kind::kLog, stem + "fakehost1.log"}},
           {{Kind::kLog, stem + "fakehost0.log"}, {Kind::kLog, stem + "fakehost1.log"}},
           {{Kind::kLog, "nccl-logs/fabscope-g3_H200x1-KVM-VM-1rank_NCCL-2.28.9_Socket-virtio-NIC-LOC_BW.log"}}}) {
    Outcome o = run(inputs);
    EXPECT_EQ(count(o.findings, "topo.pcie_degraded"), 0) << inputs[0].file << dump(o.findings);
  }
}

// NCCL's own TCP transport (two ranks sharing a GPU, no IB device): channels via
// NET/Socket/k name the k-th interface of the `NET/Socket : Using` list, not NET/IB's.
TEST(TopoFixtures, SocketChannelsNameTheirInterface) {
  const std::string stem = "nccl-logs/fabscope-gc1_H100x1-VM-2rank-share-gpus_NCCL-2.28.9_Socket-eth0_r";
  Outcome o = run({{Kind::kLog, stem + "0.log"}, {Kind::kLog, stem + "1.log"}});
  ASSERT_EQ(o.set.hosts.size(), 1u);
  const HostTopology& h = o.set.hosts[0];
  ASSERT_FALSE(h.uses.empty());
  for (const NicUse& u : h.uses) EXPECT_EQ(u.nic, "eth0") << "rank " << u.rank << " NET index " << u.net_index;
  for (const std::string& m : missing_inputs(o.set, o.analyses)) {
    EXPECT_EQ(m.find("NET/IB : Using"), std::string::npos) << m;
  }
}

TEST(TopoFixtures, PerHostRailNamingDiffers) {
  Outcome o =
      run({{Kind::kRdma,
            "rdma/slurmv4-tpgds-aihub0007-0008-0009-0012_H100-RoCE_ip-br_ibdev2netdev-per-host-naming-differs.txt"}});
  ASSERT_EQ(o.set.hosts.size(), 4u);
  std::set<std::string> differ;
  for (const Finding& f : o.findings) {
    if (f.code == "topo.host_differs") differ.insert(f.subject);
  }
  EXPECT_EQ(differ, (std::set<std::string>{"host tpgds-aihub0009", "host tpgds-aihub0012"})) << dump(o.findings);
  // Down ports of devices no GPU is known to use are reported, as info.
  EXPECT_GE(count(o.findings, "topo.port_down", "info"), 4);
  EXPECT_EQ(count(o.findings, "topo.port_down", "error"), 0);
}

TEST(TopoFixtures, TruncatedXmlNamesFileAndLine) {
  for (const char* f : {"topo-xml/nccl-tests-256_H200x8-Supermicro-baremetal_NCCL_TOPO_DUMP.TRUNCATED.xml",
                        "topo-xml/nccl-tests-256_H200x8-KVM-VM-flat-passthrough_NCCL_TOPO_DUMP.TRUNCATED.xml"}) {
    TopologySet set;
    Status s = read_nccl_xml(kDir + "/" + f, set);
    ASSERT_FALSE(s.ok()) << f;
    EXPECT_NE(s.message().find(f), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(".xml:"), std::string::npos) << s.message();  // FILE:LINE
  }
}

// ---- NCCL_IB_HCA from OCI's env files against OCI's topologies ----

TEST(TopoFixtures, OciHcaListFitsItsHostButNotTheRenamedContainerView) {
  std::map<std::string, std::string> env;
  ASSERT_TRUE(read_nccl_env(kDir + "/configs/oci-nccl-conf/h100.env", env).ok());
  ASSERT_TRUE(env.count("NCCL_IB_HCA"));
  AnalysisOptions o;
  o.default_ib_hca = env["NCCL_IB_HCA"];
  o.default_ib_hca_origin = "h100.env";
  Outcome host = run({{Kind::kNcclXml, "topo-xml/oci-BM.GPU.H100.8-H100x8-8CX7dual-topo.xml"}}, o);
  EXPECT_EQ(count(host.findings, "topo.hca_filter"), 0) << dump(host.findings);
  EXPECT_TRUE(serious(host.findings).empty()) << dump(host.findings);
  ASSERT_EQ(host.analyses.size(), 1u);
  EXPECT_EQ(host.analyses[0].selected_nics.size(), 16u);
  Outcome k8s = run({{Kind::kNcclXml, "topo-xml/oci-BM.GPU.H100.8-H100x8-8CX7dual-topo.kubernetes-variant.xml"}}, o);
  EXPECT_GE(count(k8s.findings, "topo.hca_filter", "warning"), 1) << dump(k8s.findings);
}

TEST(TopoFixtures, OciA100SysfsListingAgreesWithItsTopologyAndEnv) {
  std::map<std::string, std::string> env;
  ASSERT_TRUE(read_nccl_env(kDir + "/configs/oci-nccl-conf/bm.gpu4.8.env", env).ok());
  AnalysisOptions o;
  o.default_ib_hca = env.at("NCCL_IB_HCA");
  Outcome out = run({{Kind::kRdma, "rdma/oci-BM.GPU4.8-likely_18x-mlx5_sys-class-infiniband-ls-l.txt"}}, o);
  EXPECT_EQ(count(out.findings, "topo.hca_filter"), 0) << dump(out.findings);
  ASSERT_EQ(out.analyses.size(), 1u);
  const auto& sel = out.analyses[0].selected_nics;
  EXPECT_EQ(sel.size(), 16u);
  EXPECT_EQ(std::count(sel.begin(), sel.end(), "mlx5_4"), 0);
  EXPECT_EQ(std::count(sel.begin(), sel.end(), "mlx5_5"), 0);
  // The NIC bus ids of the listing are the topology file's NICs.
  TopologySet xml;
  ASSERT_TRUE(read_nccl_xml(kDir + "/topo-xml/oci-BM.GPU4.8-A100x8-topo-flattened.xml", xml).ok());
  std::set<std::string> xml_nics;
  for (const Nic& n : xml.hosts[0].nics) xml_nics.insert(n.busid);
  int matched = 0;
  for (const Nic& n : out.set.hosts[0].nics) matched += xml_nics.count(n.busid) ? 1 : 0;
  EXPECT_GE(matched, 8) << "bus ids 0c,16,48,4c,8a,94,c3,d1";
}

// ---- the same machine type as an XML and as a topo -m: the path classes agree ----

std::vector<std::multiset<std::string>> classes_per_gpu(const Outcome& o, bool rdma_near_only) {
  std::vector<std::multiset<std::string>> out;
  const HostTopology& h = o.set.hosts.at(0);
  for (size_t g = 0; g < h.gpus.size(); ++g) {
    std::multiset<std::string> c;
    for (size_t n = 0; n < h.nics.size(); ++n) {
      PathClass p = path_class(h, static_cast<int>(g), static_cast<int>(n));
      if (!rdma_near_only || p == PathClass::kPix || p == PathClass::kPxb) c.insert(std::string(path_name(p)));
    }
    out.push_back(c);
  }
  return out;
}

TEST(TopoFixtures, XmlAndTopoMAgreeOnA100HgxGrouping) {
  // DGX A100 (topo -m) and OCI BM.GPU4.8 (XML): GPUs in pairs, each pair with the same
  // two near NICs. The real machine's two switch levels make that PXB; OCI's file is
  // "flattened" (its name says so): one switch node per pair, so NCCL, and fabscope
  // reading it, see PIX. The grouping agrees; the class is the file's simplification.
  Outcome smi = run({{Kind::kSmi, "nvidia-smi-topo/notes-DGX-A100_8GPU-12mlx5-old-format_topo-m.txt"}});
  Outcome xml = run({{Kind::kNcclXml, "topo-xml/oci-BM.GPU4.8-A100x8-topo-flattened.xml"}});
  auto a = classes_per_gpu(smi, true);
  auto b = classes_per_gpu(xml, true);
  ASSERT_EQ(a.size(), 8u);
  ASSERT_EQ(b.size(), 8u);
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(a[g], (std::multiset<std::string>{"PXB", "PXB"})) << "topo -m GPU " << g;
    EXPECT_EQ(b[g], (std::multiset<std::string>{"PIX", "PIX"})) << "XML GPU " << g;
  }
  for (const Outcome* o : {&smi, &xml}) {
    const auto& m = o->analyses.at(0).gpus;
    for (int g = 0; g < 8; g += 2) {
      EXPECT_EQ(m[g].best_nics, m[g + 1].best_nics) << "GPUs " << g << " and " << g + 1 << " share their pair";
      EXPECT_NE(m[g].nccl_choice, m[g + 1].nccl_choice) << "and NCCL gives each its own NIC";
    }
  }
}

TEST(TopoFixtures, XmlAndTopoMAgreeOnH100OneToOne) {
  // aihub0007 (topo -m) and Azure NDv5 / OCI H100 (XML): one PIX NIC per GPU.
  Outcome smi =
      run({{Kind::kSmi, "nvidia-smi-topo/slurmv4-tpgds-aihub0007_H100x8-12NIC-nonidentity-GPU-NIC-map_topo-m.txt"}});
  Outcome ndv5 = run({{Kind::kNcclXml, "topo-xml/azure-NDv5-H100x8-8NDR-topo.xml"}});
  auto a = classes_per_gpu(smi, true);
  auto b = classes_per_gpu(ndv5, true);
  ASSERT_EQ(a.size(), 8u);
  ASSERT_EQ(b.size(), 8u);
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(a[g], (std::multiset<std::string>{"PIX"})) << "topo -m GPU " << g;
    EXPECT_EQ(b[g], a[g]) << "NDv5 GPU " << g;
  }
}

}  // namespace
}  // namespace fabscope::topo
