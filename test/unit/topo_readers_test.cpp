// What each reader takes from each real fixture, checked against the facts its row in
// test/fixtures/SOURCES.md states; and how each reader fails on bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "topo/readers.h"
#include "topo/xml.h"

namespace fabscope::topo {
namespace {

const std::string kDir = FABSCOPE_FIXTURES;

HostTopology read_one(Status (*reader)(const std::string&, TopologySet&), const std::string& file) {
  TopologySet set;
  Status s = reader(kDir + "/" + file, set);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(set.hosts.size(), 1u) << file;
  return set.hosts.empty() ? HostTopology() : set.hosts[0];
}

std::string nic_for(const HostTopology& h, int gpu, PathClass want) {
  std::string out;
  int g = h.find_gpu(gpu);
  for (size_t n = 0; n < h.nics.size(); ++n) {
    if (path_class(h, g, static_cast<int>(n)) == want) out += (out.empty() ? "" : "+") + h.nics[n].name;
  }
  return out;
}

// ---- XML ----

TEST(TopoXml, ElementsAttributesEntities) {
  auto r = parse_xml(
      "<?xml version=\"1.0\"?>\n<!-- c -->\n<a x='1' y=\"&lt;&amp;&#65;&#x42;\"><b/><![CDATA[<x>]]>text<c "
      "k=\"v\"></c></a>\n",
      "t.xml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->name, "a");
  EXPECT_EQ(*r->attribute("y"), "<&AB");
  ASSERT_EQ(r->children.size(), 2u);
  EXPECT_EQ(r->children[1].line, 3);
  EXPECT_EQ(*r->children[1].attribute("k"), "v");
  EXPECT_EQ(r->attribute("z"), nullptr);
}

TEST(TopoXml, ErrorsNameWhere) {
  struct Case {
    const char* text;
    const char* expect;
  };
  for (const Case& c : {Case{"<a><b></a>", "t.xml:1:10: </a> closes <b> opened at line 1"},
                        Case{"<a>\n<b x=\"1\">\n", "document ends before its end tag (inside <b> opened at line 2)"},
                        Case{"<a x=\"1\" x=\"2\"/>", "appears twice"}, Case{"", "no root element"},
                        Case{"<a/><b/>", "content after the root element"}, Case{"<a x=1/>", "quoted value"},
                        Case{"<a>&bogus;</a>", ""}, Case{"<a x=\"&bogus;\"/>", "unknown entity"},
                        Case{"<a", "document ends inside the tag <a>"}}) {
    auto r = parse_xml(c.text, "t.xml");
    if (std::string(c.text) == "<a>&bogus;</a>") {
      EXPECT_TRUE(r.ok());  // text content is not decoded
      continue;
    }
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos) << r.status().message();
  }
}

// ---- NCCL topology XML ----

TEST(TopoNcclXml, AzureNdV5) {
  HostTopology h = read_one(read_nccl_xml, "topo-xml/azure-NDv5-H100x8-8NDR-topo.xml");
  EXPECT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(h.nics.size(), 8u);
  ASSERT_EQ(h.numa.size(), 2u);
  EXPECT_EQ(h.numa[0].cpus.to_list(), "0-47");
  EXPECT_EQ(h.numa[1].cpus.to_list(), "48-95");
  EXPECT_EQ(h.gpus[0].busid, "0001:00:00.0");
  EXPECT_EQ(nic_for(h, 0, PathClass::kPix), "0101:00:00.0");
  EXPECT_EQ(h.pci[h.gpus[0].pci].link_gbytes > 63, true);  // 32 GT/s x16
}

TEST(TopoNcclXml, AzureNdV2OneNic) {
  HostTopology h = read_one(read_nccl_xml, "topo-xml/azure-NDv2-V100x8-1IB-topo.xml");
  EXPECT_EQ(h.gpus.size(), 8u);
  ASSERT_EQ(h.nics.size(), 1u);
  EXPECT_EQ(h.nics[0].numa, 0);
  EXPECT_EQ(nic_for(h, 0, PathClass::kPhb), "0101:00:00.0");
  EXPECT_EQ(nic_for(h, 4, PathClass::kSys), "0101:00:00.0");
}

TEST(TopoNcclXml, AwsP4dTwoGpusPerEfa) {
  HostTopology h = read_one(read_nccl_xml, "topo-xml/aws-p4d.24xlarge-A100x8-4EFA-topo.xml");
  EXPECT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(h.nics.size(), 4u);
  for (int g = 0; g < 8; ++g) EXPECT_FALSE(nic_for(h, g, PathClass::kPix).empty()) << g;
}

TEST(TopoNcclXml, OciH100TwoSwitchLevels) {
  HostTopology h = read_one(read_nccl_xml, "topo-xml/oci-BM.GPU.H100.8-H100x8-8CX7dual-topo.xml");
  EXPECT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(h.nics.size(), 16u);
  EXPECT_EQ(h.find_nic("mlx5_2"), -1);
  EXPECT_EQ(h.find_nic("mlx5_11"), -1);
  EXPECT_GE(h.find_nic("mlx5_0"), 0);
  EXPECT_DOUBLE_EQ(h.nics[h.find_nic("mlx5_0")].speed_gbits, 180);
  // GPU and its dual-port NIC sit under two leaf switches of one top switch: PXB,
  // both ports; nothing is PIX.
  for (int g = 0; g < 8; ++g) {
    std::string pxb = nic_for(h, g, PathClass::kPxb);
    EXPECT_EQ(std::count(pxb.begin(), pxb.end(), '+'), 1) << "GPU " << g << ": " << pxb;
    EXPECT_EQ(nic_for(h, g, PathClass::kPix), "") << "GPU " << g;
  }
  int nested = 0;
  for (const PciNode& p : h.pci) nested += p.is_switch && p.parent >= 0 && h.pci[p.parent].is_switch;
  EXPECT_GT(nested, 0);
  HostTopology k = read_one(read_nccl_xml, "topo-xml/oci-BM.GPU.H100.8-H100x8-8CX7dual-topo.kubernetes-variant.xml");
  EXPECT_GE(k.find_nic("mlx5_18"), 0);
  EXPECT_EQ(k.find_nic("mlx5_0"), -1);
}

TEST(TopoNcclXml, NcV4EthernetAndGraph) {
  HostTopology h = read_one(read_nccl_xml, "topo-xml/azure-NCv4-A100PCIe-x4-topo.xml");
  EXPECT_EQ(h.gpus.size(), 4u);
  ASSERT_EQ(h.nics.size(), 1u);
  EXPECT_EQ(h.nics[0].name, "eth0");
  EXPECT_FALSE(h.nics[0].rdma);
  EXPECT_EQ(h.nics[0].gdr, false);
  ASSERT_EQ(h.gpus[0].nvlinks.size(), 1u);
  EXPECT_EQ(h.gpus[0].nvlinks[0].target, h.gpus[0].busid);  // the fixed file: no peer
  HostTopology g = read_one(read_nccl_xml, "topo-xml/azure-NCv4-A100PCIe-x4-graph.xml");
  EXPECT_EQ(g.graph_intra_type, "SYS");
}

TEST(TopoNcclXml, MinimalAndSkeletonFiles) {
  HostTopology g5 = read_one(read_nccl_xml, "topo-xml/aws-g5.48xlarge-A10Gx8-1EFA-topo.xml");
  EXPECT_TRUE(g5.gpus.empty());
  EXPECT_TRUE(g5.nics.empty());
  EXPECT_FALSE(g5.pci.empty());
  HostTopology p5 = read_one(read_nccl_xml, "topo-xml/aws-p5.48xlarge-H100x8-32EFA-topo.upstream-skeleton.xml");
  EXPECT_TRUE(p5.gpus.empty());
  HostTopology pr = read_one(read_nccl_xml, "topo-xml/aws-p5.48xlarge-H100x8-32EFA-topo.PR1226-unmerged.xml");
  EXPECT_EQ(pr.gpus.size(), 8u);
  EXPECT_EQ(pr.nics.size(), 32u);
}

TEST(TopoNcclXml, BadInputs) {
  TopologySet set;
  Status s = parse_nccl_xml("<topology/>", "x.xml", set);
  EXPECT_NE(s.message().find("neither <system>"), std::string::npos) << s.message();
  s = parse_nccl_xml("<system><cpu numaid=\"zero\"/></system>", "x.xml", set);
  EXPECT_NE(s.message().find("x.xml:1: <cpu> numaid=\"zero\""), std::string::npos) << s.message();
  s = parse_nccl_xml("<system><cpu numaid=\"0\"><pci busid=\"nope\"/></cpu></system>", "x.xml", set);
  EXPECT_NE(s.message().find("busid=\"nope\""), std::string::npos) << s.message();
  s = read_nccl_xml(kDir + "/absent.xml", set);
  EXPECT_NE(s.message().find("absent.xml"), std::string::npos);
}

// ---- hwloc XML ----

TEST(TopoHwlocXml, JuwelsBooster) {
  HostTopology h =
      read_one(read_hwloc_xml, "hwloc-xml/juwels-booster-jwb0004_A100x4-CX6-HDRx4-EPYC7402-NPS4_hwloc2.2.xml");
  EXPECT_EQ(h.numa.size(), 8u);
  EXPECT_EQ(h.gpus.size(), 4u);
  int n = h.find_nic("mlx5_1");
  ASSERT_GE(n, 0);
  EXPECT_EQ(h.nics[n].busid, "0000:43:00.0");
  EXPECT_EQ(h.nics[n].numa, 1);
  EXPECT_EQ(h.nics[n].ports.at(0).state, "ACTIVE");
  EXPECT_EQ(h.nics[n].ports.at(0).netdev.rfind("ib", 0), 0u);
  for (const Gpu& g : h.gpus)
    EXPECT_EQ(nic_for(h, g.index, PathClass::kPix).size() + nic_for(h, g.index, PathClass::kPxb).size() > 0, true);
}

TEST(TopoHwlocXml, MeluxinaV1FormatPortDown) {
  HostTopology h =
      read_one(read_hwloc_xml, "hwloc-xml/meluxina-mel2001_A100x4-CX6x2-mlx5_0-port-down_hwloc1.11-v1format.xml");
  EXPECT_EQ(h.gpus.size(), 4u);
  EXPECT_EQ(std::count_if(h.nics.begin(), h.nics.end(), [](const Nic& n) { return n.rdma; }), 2);
  EXPECT_EQ(h.nics[h.find_nic("mlx5_0")].ports.at(0).state, "DOWN");
  EXPECT_EQ(h.nics[h.find_nic("mlx5_1")].ports.at(0).state, "ACTIVE");
}

TEST(TopoHwlocXml, LassenCudaIndicesAndHsiNetdevs) {
  HostTopology h =
      read_one(read_hwloc_xml, "hwloc-xml/llnl-lassen_POWER9-V100x4-CX5-socketdirect-cuda-nvml_hwloc2.2.xml");
  ASSERT_EQ(h.gpus.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_GE(h.find_gpu(i), 0);
  EXPECT_EQ(h.gpus[h.find_gpu(0)].model, "Tesla V100-SXM2-16GB");
  ASSERT_GE(h.find_nic("mlx5_0"), 0);
  EXPECT_EQ(h.nics[h.find_nic("mlx5_0")].ports.at(0).netdev, "hsi0");
}

TEST(TopoHwlocXml, Dgx2NoNicAndNvSwitchesAreNotGpus) {
  HostTopology h = read_one(read_hwloc_xml, "hwloc-xml/nvidia-DGX-2H_V100x16-NVSwitchx12-nvml-noNIC_hwloc-tests.xml");
  EXPECT_EQ(h.gpus.size(), 16u);
  EXPECT_TRUE(std::none_of(h.nics.begin(), h.nics.end(), [](const Nic& n) { return n.rdma; }));
}

TEST(TopoHwlocXml, G4dnEfaAndClusterPlx) {
  HostTopology g = read_one(read_hwloc_xml, "hwloc-xml/aws-g4dn.metal_T4x8-EFA-rdmap-cuda-nvml_hwloc2.8.xml");
  EXPECT_EQ(g.gpus.size(), 8u);
  EXPECT_GE(g.find_nic("rdmap197s0"), 0);
  HostTopology c =
      read_one(read_hwloc_xml, "hwloc-xml/juwels-cluster-jwc09n003_V100x4-CX4-EDRx2-PLX-switch_hwloc1.11-v1format.xml");
  EXPECT_EQ(c.gpus.size(), 4u);
  EXPECT_EQ(std::count_if(c.nics.begin(), c.nics.end(), [](const Nic& n) { return n.rdma; }), 2);
  // One PLX switch per socket holds 2 GPUs and 1 NIC.
  for (const Gpu& gpu : c.gpus) EXPECT_EQ(nic_for(c, gpu.index, PathClass::kPix).size() > 0, true) << gpu.index;
}

TEST(TopoHwlocXml, NotHwlocOrBroken) {
  TopologySet set;
  Status s = read_hwloc_xml(kDir + "/topo-xml/azure-NDv5-H100x8-8NDR-topo.xml", set);
  EXPECT_NE(s.message().find("--nccl-topo"), std::string::npos) << s.message();
  s = read_hwloc_xml(kDir + "/topo-xml/nccl-tests-256_H200x8-Supermicro-baremetal_NCCL_TOPO_DUMP.TRUNCATED.xml", set);
  EXPECT_NE(s.message().find("TRUNCATED.xml:"), std::string::npos) << s.message();
  std::string v3 = testing::TempDir() + "/v3.xml";
  std::ofstream(v3) << "<topology version=\"3.0\"><object type=\"Machine\"/></topology>\n";
  s = read_hwloc_xml(v3, set);
  EXPECT_NE(s.message().find("version 3.0"), std::string::npos) << s.message();
}

TEST(TopoHwlocLive, ThisMachine) {
  TopologySet set;
  Status s = read_hwloc_live("here", set);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(set.hosts.size(), 1u);
  EXPECT_FALSE(set.hosts[0].numa.empty());
  EXPECT_GT(set.hosts[0].numa[0].cpus.count(), 0);
}

TEST(TopoSysfs, PortsFromATree) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(testing::TempDir()) / "sysfs";
  fs::remove_all(root);
  fs::create_directories(root / "devices/pci0000:00/0000:00:01.0/0000:3b:00.0");
  fs::create_directories(root / "class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs");
  fs::create_symlink(root / "devices/pci0000:00/0000:00:01.0/0000:3b:00.0", root / "class/infiniband/mlx5_0/device");
  std::ofstream(root / "class/infiniband/mlx5_0/ports/1/state") << "4: ACTIVE\n";
  std::ofstream(root / "class/infiniband/mlx5_0/ports/1/rate") << "400 Gb/sec (4X NDR)\n";
  std::ofstream(root / "class/infiniband/mlx5_0/ports/1/link_layer") << "InfiniBand\n";
  std::ofstream(root / "class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0") << "ib0\n";
  HostTopology h;
  ASSERT_TRUE(read_sysfs_rdma(root.string(), h).ok());
  ASSERT_EQ(h.nics.size(), 1u);
  EXPECT_EQ(h.nics[0].busid, "0000:3b:00.0");
  ASSERT_EQ(h.nics[0].ports.size(), 1u);
  EXPECT_EQ(h.nics[0].ports[0].state, "ACTIVE");
  EXPECT_DOUBLE_EQ(h.nics[0].ports[0].rate_gbits, 400);
  EXPECT_EQ(h.nics[0].ports[0].netdev, "ib0");
  HostTopology none;
  EXPECT_TRUE(read_sysfs_rdma((root / "absent").string(), none).ok());
  EXPECT_TRUE(none.nics.empty());
}

// ---- nvidia-smi ----

TEST(TopoNvidiaSmi, NonIdentityMapAndHost) {
  TopologySet set;
  ASSERT_TRUE(
      read_nvidia_smi_topo(
          kDir + "/nvidia-smi-topo/slurmv4-tpgds-aihub0007_H100x8-12NIC-nonidentity-GPU-NIC-map_topo-m.txt", set)
          .ok());
  ASSERT_EQ(set.hosts.size(), 1u);
  const HostTopology& h = set.hosts[0];
  EXPECT_EQ(h.host, "tpgds-aihub0007");
  EXPECT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(h.nics.size(), 12u);
  EXPECT_EQ(nic_for(h, 3, PathClass::kPix), "mlx5_5");
  EXPECT_EQ(nic_for(h, 7, PathClass::kPix), "mlx5_11");
  EXPECT_EQ(path_class(h, h.find_gpu(0), h.find_nic("mlx5_1")), PathClass::kNode);
  EXPECT_EQ(h.gpus[0].cpu_affinity.to_list(), "0-191");
}

TEST(TopoNvidiaSmi, MergedColumns) {
  HostTopology h =
      read_one(read_nvidia_smi_topo, "nvidia-smi-topo/nccl-tests-311_A100-SXM4x8-10NIC-2GPU-per-NIC_topo-m.txt");
  EXPECT_EQ(h.nics.size(), 10u);
  EXPECT_EQ(nic_for(h, 6, PathClass::kPxb), "mlx5_6+mlx5_7");
  EXPECT_EQ(path_class(h, h.find_gpu(6), h.find_nic("mlx5_8")), PathClass::kSys);
  EXPECT_EQ(h.gpus[h.find_gpu(0)].numa, 3);
}

TEST(TopoNvidiaSmi, OldFormatAndMp) {
  HostTopology a = read_one(read_nvidia_smi_topo, "nvidia-smi-topo/notes-DGX-A100_8GPU-12mlx5-old-format_topo-m.txt");
  EXPECT_EQ(a.nics.size(), 12u);
  EXPECT_EQ(nic_for(a, 0, PathClass::kPxb), "mlx5_0+mlx5_1");
  HostTopology d = read_one(read_nvidia_smi_topo, "nvidia-smi-topo/notes-DGX-1_V100x8-4mlx5-PCIe-PIX-PHB_topo-mp.txt");
  EXPECT_EQ(nic_for(d, 0, PathClass::kPix), "mlx5_0");
  EXPECT_EQ(nic_for(d, 0, PathClass::kPhb), "mlx5_1");
  HostTopology s = read_one(read_nvidia_smi_topo, "nvidia-smi-topo/sglang-24966_H20x8-8NIC-1to1-PIX_topo-m.txt");
  EXPECT_EQ(s.nics[0].name, "mlx5_1");
  for (int g = 0; g < 8; ++g) EXPECT_EQ(nic_for(s, g, PathClass::kPix), "mlx5_" + std::to_string(g + 1));
}

TEST(TopoNvidiaSmi, BadInputs) {
  TopologySet set;
  EXPECT_NE(parse_nvidia_smi_topo("", "m.txt", set).message().find("no `nvidia-smi topo -m` header"),
            std::string::npos);
  Status s = parse_nvidia_smi_topo("\tGPU0\tNIC0\nGPU0\t X \tBOGUS\n", "m.txt", set);
  EXPECT_NE(s.message().find("m.txt:2: unknown cell 'BOGUS'"), std::string::npos) << s.message();
  s = parse_nvidia_smi_topo("\tGPU0\tNIC0\tNIC1\nGPU0\t X \tPIX\n", "m.txt", set);
  EXPECT_NE(s.message().find("has 2 cells for 3 columns"), std::string::npos) << s.message();
}

// ---- NCCL logs ----

TEST(TopoNcclLog, PrefixMatchLog) {
  TopologySet set;
  ASSERT_TRUE(
      read_nccl_log(
          kDir + "/nccl-logs/"
                 "slurmv4-tpgds-aihub0003_H100x8-2node-16rank-RoCE_NCCL-2.29.3_IB_HCA-prefix-match-pulls-mlx5_10.log",
          set)
          .ok());
  ASSERT_EQ(set.hosts.size(), 1u);
  const HostTopology& h = set.hosts[0];
  EXPECT_EQ(h.host, "tpgds-aihub0003");
  EXPECT_EQ(h.nccl_ib_hca, "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7");
  ASSERT_EQ(h.nccl_nets.size(), 9u);
  EXPECT_EQ(h.nccl_nets[8], "mlx5_10");
  EXPECT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(h.gpus[h.find_gpu(2)].busid, "0000:3b:00.0");
  bool gpu1 = std::any_of(h.uses.begin(), h.uses.end(),
                          [](const NicUse& u) { return u.gpu == 1 && u.nic == "mlx5_1" && u.gdr; });
  EXPECT_TRUE(gpu1);
}

TEST(TopoNcclLog, EightRailsAndGraphDump) {
  HostTopology h =
      read_one(read_nccl_log,
               "nccl-logs/slurmv4-tpgds-aihub0008_H100x8-2node-16rank-RoCE_NCCL-2.27.5_8rail-nonidentity-HCA-list.log");
  EXPECT_EQ(h.nccl_nets, (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8",
                                                   "mlx5_11"}));
  for (const NicUse& u : h.uses) {
    EXPECT_EQ(u.net_index, u.gpu) << "GPU k on NET/IB/k";
    EXPECT_TRUE(u.gdr);
  }
  TopologySet two;
  ASSERT_TRUE(
      read_nccl_log(kDir + "/nccl-logs/nccl-tests-256_H200-CX7-KVM-VM_NCCL-GRAPH-topology-PCI0.2-links.log", two).ok());
  ASSERT_EQ(two.hosts.size(), 2u);  // node_2's GRAPH dump, then two channel lines of node1
  const HostTopology& vm = two.host("node_2");
  ASSERT_EQ(vm.slow_pci_links.size(), 8u);
  EXPECT_DOUBLE_EQ(vm.slow_pci_links[0].gbytes, 0.2);
  EXPECT_DOUBLE_EQ(vm.slow_pci_links[0].peer_median_gbytes, 48.0);
  TopologySet none;
  EXPECT_NE(parse_nccl_log("hello\nworld\n", "l.log", none).message().find("no NCCL INFO lines"), std::string::npos);
}

// Only measured PCI links are compared: NCCL's LOC_BW link (5000, a virtio NIC attached
// to the CPU) and NET, NVL, SYS links never are; one link left has nothing to be below.
TEST(TopoNcclLog, LocAndNonPciLinksAreNotCompared) {
  HostTopology vm =
      read_one(read_nccl_log, "nccl-logs/fabscope-g3_H200x1-KVM-VM-1rank_NCCL-2.28.9_Socket-virtio-NIC-LOC_BW.log");
  EXPECT_EQ(vm.host, "vm");
  EXPECT_TRUE(vm.slow_pci_links.empty());
  // Were the LOC_BW, SYS, NVL or NET links compared, their 900s and 5000s would make
  // both PCI links slow; between themselves 48 and 24 are not.
  std::string dump =
      "h:1:1 [0] NCCL INFO CPU/0-0 (1/2/-1)\n"
      "h:1:1 [0] NCCL INFO + SYS[900.0] - CPU/0-1\n"
      "h:1:1 [0] NCCL INFO + PCI[5000.0] - NIC/0-0\n"
      "h:1:1 [0] NCCL INFO                 + NET[900.0] - NET/0-0 (0/0/0/900.0)\n"
      "h:1:1 [0] NCCL INFO + PCI[5000.0] - NIC/0-1\n"
      "h:1:1 [0] NCCL INFO + PCI[48.0] - GPU/0-60 (0)\n"
      "h:1:1 [0] NCCL INFO                 + NVL[900.0] - NVS/0-0\n"
      "h:1:1 [0] NCCL INFO + PCI[24.0] - GPU/0-70 (1)\n"
      "h:1:1 [0] NCCL INFO                 + NVL[900.0] - NVS/0-0\n";
  TopologySet set;
  ASSERT_TRUE(parse_nccl_log(dump, "d.log", set).ok());
  EXPECT_TRUE(set.host("h").slow_pci_links.empty());
  // A PCI link far below the measured ones still is one.
  dump += "h:1:1 [0] NCCL INFO + PCI[2.0] - GPU/0-80 (2)\n";
  TopologySet slow;
  ASSERT_TRUE(parse_nccl_log(dump, "d.log", slow).ok());
  const HostTopology& h = slow.host("h");
  ASSERT_EQ(h.slow_pci_links.size(), 1u);
  EXPECT_EQ(h.slow_pci_links[0].node, "GPU/0-80");
  EXPECT_DOUBLE_EQ(h.slow_pci_links[0].peer_median_gbytes, 24.0);
}

// Every kind of line the parser reads is one the real logs have (a kind no fixture has
// is listed here, with a line of its form, until a fixture brings one).
TEST(TopoNcclLog, EveryLineKindIsInTheRealLogs) {
  const std::map<std::string_view, std::string_view> not_in_fixtures = {
      {"gpu_direct_rdma", "node1:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'"}};
  std::map<std::string_view, int> seen;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir + "/nccl-logs")) {
    auto text = read_file(entry.path().string());
    ASSERT_TRUE(text.ok()) << text.status().message();
    ++files;
    for (const auto& [kind, lines] : count_nccl_log_lines(*text)) seen[kind] += lines;
  }
  ASSERT_GT(files, 0);
  ASSERT_FALSE(seen.empty());
  for (const auto& [kind, line] : not_in_fixtures) EXPECT_EQ(seen.count(kind), 1u) << kind << " is no kind of line";
  for (const auto& [kind, lines] : seen) {
    auto absent = not_in_fixtures.find(kind);
    if (absent == not_in_fixtures.end()) {
      EXPECT_GT(lines, 0) << kind << ": no line of the fixture logs is of this kind";
      continue;
    }
    EXPECT_EQ(lines, 0) << kind << " is in the fixture logs now: drop it from not_in_fixtures";
    int hit = 0;
    for (const auto& [k, n] : count_nccl_log_lines(absent->second)) hit += k == kind ? n : 0;
    EXPECT_EQ(hit, 1) << kind;
  }
}

// ---- RDMA tool output and env files ----

TEST(TopoRdmaText, PerHostIbdev2netdev) {
  TopologySet set;
  ASSERT_TRUE(
      read_rdma_text(
          kDir +
              "/rdma/slurmv4-tpgds-aihub0007-0008-0009-0012_H100-RoCE_ip-br_ibdev2netdev-per-host-naming-differs.txt",
          set)
          .ok());
  ASSERT_EQ(set.hosts.size(), 4u);
  const HostTopology& h = set.host("tpgds-aihub0007");
  ASSERT_GE(h.find_nic("mlx5_10"), 0);
  EXPECT_EQ(h.nics[h.find_nic("mlx5_10")].ports.at(0).state, "DOWN");
  EXPECT_EQ(h.nics[h.find_nic("mlx5_0")].ports.at(0).netdev, "enp25s0np0");
  const HostTopology& h9 = set.host("tpgds-aihub0009");
  EXPECT_EQ(h9.nics[h9.find_nic("mlx5_2")].ports.at(0).state, "DOWN");
}

TEST(TopoRdmaText, DevinfoGidsAndSysfsListing) {
  TopologySet set;
  ASSERT_TRUE(
      read_rdma_text(kDir + "/rdma/slurmv4-tpgds-aihub0001_H100-CX7-RoCE_show_gids_ibv_devinfo-mlx5_0.txt", set).ok());
  const HostTopology& h = set.host("tpgds-aihub0001");
  ASSERT_GE(h.find_nic("mlx5_0"), 0);
  const Port& p = h.nics[h.find_nic("mlx5_0")].ports.at(0);
  EXPECT_EQ(p.state, "ACTIVE");
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.netdev, "ens108np0");
  HostTopology ls = read_one(read_rdma_text, "rdma/oci-BM.GPU4.8-likely_18x-mlx5_sys-class-infiniband-ls-l.txt");
  EXPECT_EQ(ls.nics.size(), 18u);
  EXPECT_EQ(ls.nics[ls.find_nic("mlx5_4")].busid, "0000:2d:00.0");
  EXPECT_EQ(ls.nics[ls.find_nic("mlx5_0")].busid, "0000:48:00.0");
  TopologySet none;
  EXPECT_FALSE(parse_rdma_text("nothing here\n", "r.txt", none).ok());
}

// ibstat (written fixture: 8 NDR CAs, one at 200 Gb/s) behind root's "#" prompt, and
// ibv_devinfo -v's active width and speed: the ports' states, rates and link layers.
TEST(TopoRdmaText, IbstatAndDevinfoRates) {
  TopologySet set;
  ASSERT_TRUE(read_rdma_text(kDir + "/triage/written_ibstat_gpu-b01-8x-NDR-mlx5_5-at-200G.txt", set).ok());
  ASSERT_EQ(set.hosts.size(), 1u);
  const HostTopology& h = set.hosts[0];
  EXPECT_EQ(h.host, "gpu-b01");
  ASSERT_EQ(h.nics.size(), 8u);
  for (const Nic& n : h.nics) {
    ASSERT_EQ(n.ports.size(), 1u) << n.name;
    EXPECT_EQ(n.ports[0].state, "ACTIVE") << n.name;
    EXPECT_EQ(n.ports[0].link_layer, "InfiniBand") << n.name;
    EXPECT_EQ(n.ports[0].rate_gbits, n.name == "mlx5_5" ? 200 : 400) << n.name;
  }
  TopologySet v;
  ASSERT_TRUE(parse_rdma_text("root@gpu-c14:~# ibv_devinfo -v -d mlx5_2\nhca_id:\tmlx5_2\n\tphys_port_cnt:\t1\n"
                              "\t\tport:\t1\n\t\t\tstate:\t\tPORT_INIT (2)\n\t\t\tactive_width:\t4X (2)\n"
                              "\t\t\tactive_speed:\t\t50.0 Gbps (64)\n\t\t\tlink_layer:\tInfiniBand\n",
                              "v.txt", v)
                  .ok());
  ASSERT_EQ(v.hosts.size(), 1u);
  EXPECT_EQ(v.hosts[0].host, "gpu-c14");
  const Port& p = v.hosts[0].nics.at(0).ports.at(0);
  EXPECT_EQ(p.state, "INIT");
  EXPECT_EQ(p.rate_gbits, 200);
  // A comment holding an '@' is not a prompt.
  EXPECT_EQ(prompt_host("# mail ops@example.com # if it fails"), "");
}

// ibstatus (infiniband-diags' script over sysfs): each "Infiniband device 'X' port N
// status:" block's state, rate, link layer and GID 0's subnet prefix.
TEST(TopoRdmaText, Ibstatus) {
  TopologySet set;
  ASSERT_TRUE(parse_rdma_text("Infiniband device 'mlx5_0' port 1 status:\n"
                              "\tdefault gid:\t fe80:0000:0000:0000:b859:9f03:00d4:f3a2\n"
                              "\tbase lid:\t 0x5\n\tsm lid:\t\t 0x1\n"
                              "\tstate:\t\t 4: ACTIVE\n\tphys state:\t 5: LinkUp\n"
                              "\trate:\t\t 100 Gb/sec (4X EDR)\n\tlink_layer:\t InfiniBand\n\n"
                              "Infiniband device 'mlx5_1' port 1 status:\n"
                              "\tstate:\t\t 1: DOWN\n\tphys state:\t 2: Polling\n"
                              "\trate:\t\t 10 Gb/sec (4X)\n\tlink_layer:\t Ethernet\n",
                              "s.txt", set)
                  .ok());
  ASSERT_EQ(set.hosts.size(), 1u);
  const HostTopology& h = set.hosts[0];
  ASSERT_EQ(h.nics.size(), 2u);
  const Port& up = h.nics[h.find_nic("mlx5_0")].ports.at(0);
  EXPECT_EQ(up.state, "ACTIVE");
  EXPECT_EQ(up.rate_gbits, 100);
  EXPECT_EQ(up.link_layer, "InfiniBand");
  EXPECT_EQ(up.subnet_prefix, "fe80:0000:0000:0000");
  const Port& down = h.nics[h.find_nic("mlx5_1")].ports.at(0);
  EXPECT_EQ(down.state, "DOWN");
  EXPECT_EQ(down.link_layer, "Ethernet");
}

TEST(TopoNcclEnv, OciFiles) {
  std::map<std::string, std::string> env;
  ASSERT_TRUE(read_nccl_env(kDir + "/configs/oci-nccl-conf/h100.env", env).ok());
  EXPECT_EQ(env["NCCL_IB_HCA"].rfind("=mlx5_0,mlx5_1,mlx5_3", 0), 0u) << env["NCCL_IB_HCA"];
  EXPECT_EQ(env["NCCL_IB_HCA"].find("mlx5_2,"), std::string::npos);
  EXPECT_EQ(env["NCCL_NET_PLUGIN"], "{{hpcx_path}}");
  for (const char* f : {"a100_b4.8.env", "b200.env", "b300.env", "bm.gpu4.8.env", "h200.env"}) {
    std::map<std::string, std::string> e;
    ASSERT_TRUE(read_nccl_env(kDir + "/configs/oci-nccl-conf/" + f, e).ok()) << f;
    EXPECT_TRUE(e.count("NCCL_IB_HCA")) << f;
  }
  std::map<std::string, std::string> bad;
  Status s = parse_nccl_env("NCCL_A=1\nexport NCCL_B='x y'\n# c\nNCCL_IB_HCA\n", "e.env", bad);
  EXPECT_NE(s.message().find("e.env:4: expected NAME=value"), std::string::npos) << s.message();
  EXPECT_EQ(bad["NCCL_B"], "x y");
}

}  // namespace
}  // namespace fabscope::topo
