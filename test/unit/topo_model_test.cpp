// The topology model without any reader: CPU sets, bus ids, path classes over the three
// kinds of PCI tree (NCCL's switch nodes, hwloc/sysfs port nodes, no tree), NCCL_IB_HCA
// rules, NCCL's NIC choice and every finding on small hand-built hosts.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "report/model_json.h"
#include "report/topology_text.h"
#include "topo/hca.h"
#include "topo/mapping.h"
#include "topo/model.h"
#include "topo/topo_report.h"

namespace fabscope::topo {
namespace {

TEST(TopoCpuSet, ListAndMask) {
  auto a = CpuSet::from_list("0-19,40-59");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->to_list(), "0-19,40-59");
  EXPECT_EQ(a->count(), 40);
  EXPECT_TRUE(a->contains(45));
  EXPECT_FALSE(a->contains(20));
  EXPECT_FALSE(CpuSet::from_list("3-"));
  EXPECT_FALSE(CpuSet::from_list("a"));
  EXPECT_FALSE(CpuSet::from_list("99999999999999999999"));
  EXPECT_TRUE(CpuSet::from_list("")->empty());
  // NCCL's affinity: 32-bit words, most significant first.
  auto m = CpuSet::from_mask("00000000,0000ffff,ffffffff");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->to_list(), "0-47");
  auto n = CpuSet::from_mask("ffffffff,ffff0000,00000000");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->to_list(), "48-95");
  EXPECT_FALSE(m->intersects(*n));
  EXPECT_EQ(CpuSet::from_mask("0x5")->to_list(), "0,2");
  EXPECT_FALSE(CpuSet::from_mask("00zz"));
}

TEST(TopoBusId, Forms) {
  EXPECT_EQ(normalize_busid("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalize_busid("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalize_busid("3b:00.1"), "0000:3b:00.1");
  EXPECT_EQ(normalize_busid("3b000"), "0000:3b:00.0");
  EXPECT_EQ(normalize_busid("a000"), "0000:0a:00.0");
  EXPECT_EQ(normalize_busid("0-65000"), "0000:65:00.0");
  EXPECT_EQ(normalize_busid("fffffff:ff:ff.0"), "ffff:ff:ff.0");
  EXPECT_EQ(normalize_busid("mlx5_0"), "");
  EXPECT_EQ(normalize_busid(""), "");
}

TEST(TopoPathClass, NamesRoundTrip) {
  for (auto c : {PathClass::kPix, PathClass::kPxb, PathClass::kPhb, PathClass::kNode, PathClass::kSys}) {
    EXPECT_EQ(parse_path_class(path_name(c)), c);
  }
  EXPECT_EQ(parse_path_class("SOC"), PathClass::kSys);
  EXPECT_FALSE(parse_path_class("NV12"));
}

int add_dev(HostTopology& h, const std::string& bus, int parent, int numa, uint32_t cls) {
  PciNode n;
  n.busid = bus;
  n.parent = parent;
  n.numa = numa;
  n.class_code = cls;
  return h.add_pci(n);
}
int add_bridge(HostTopology& h, const std::string& bus, int parent, int numa, bool is_switch,
               bool host_bridge = false) {
  PciNode n;
  n.busid = bus;
  n.parent = parent;
  n.numa = numa;
  n.bridge = true;
  n.is_switch = is_switch;
  n.host_bridge = host_bridge;
  n.class_code = 0x0604;
  return h.add_pci(n);
}
void gpu_at(HostTopology& h, int index, int pci) {
  Gpu& g = h.add_gpu(index);
  g.pci = pci;
  g.busid = h.pci[pci].busid;
}
void nic_at(HostTopology& h, const std::string& name, int pci, std::string state = "ACTIVE", double rate = 400) {
  Nic& n = h.add_nic(name);
  n.pci = pci;
  n.busid = h.pci[pci].busid;
  n.ports.push_back({1, state, rate, "InfiniBand", "", ""});
}

// NCCL's XML: one node per switch; two levels as on OCI's H100 shape.
TEST(TopoPathClass, NcclSwitchTree) {
  HostTopology h;
  int top = add_bridge(h, "ffff:ff:01.0", -1, 0, true);
  int leaf_a = add_bridge(h, "ffff:ff:02.0", top, 0, true);
  int leaf_b = add_bridge(h, "ffff:ff:03.0", top, 0, true);
  gpu_at(h, 0, add_dev(h, "0000:1b:00.0", leaf_a, 0, 0x0302));
  nic_at(h, "mlx5_0", add_dev(h, "0000:1c:00.0", leaf_a, 0, 0x0207));
  nic_at(h, "mlx5_1", add_dev(h, "0000:2c:00.0", leaf_b, 0, 0x0207));
  nic_at(h, "mlx5_2", add_dev(h, "0000:3c:00.0", -1, 0, 0x0207));  // on the CPU itself
  nic_at(h, "mlx5_3", add_dev(h, "0000:9c:00.0", -1, 1, 0x0207));  // other socket
  EXPECT_EQ(path_class(h, 0, 0), PathClass::kPix);
  EXPECT_EQ(path_class(h, 0, 1), PathClass::kPxb);
  EXPECT_EQ(path_class(h, 0, 2), PathClass::kPhb);
  EXPECT_EQ(path_class(h, 0, 3), PathClass::kSys);
}

// hwloc/sysfs: one node per port; a device's switch is two levels up, as NCCL walks sysfs.
TEST(TopoPathClass, PortTree) {
  HostTopology h;
  int hb0 = add_bridge(h, "hostbridge:0", -1, 0, false, true);
  int hb1 = add_bridge(h, "hostbridge:1", -1, 0, false, true);
  int hb2 = add_bridge(h, "hostbridge:2", -1, 1, false, true);
  int rp = add_bridge(h, "0000:00:01.0", hb0, 0, false);
  int usp = add_bridge(h, "0000:01:00.0", rp, 0, false);
  int dsp_a = add_bridge(h, "0000:02:00.0", usp, 0, false);
  int dsp_b = add_bridge(h, "0000:02:01.0", usp, 0, false);
  int dsp_c = add_bridge(h, "0000:02:02.0", usp, 0, false);
  int usp2 = add_bridge(h, "0000:05:00.0", dsp_c, 0, false);
  int dsp2 = add_bridge(h, "0000:06:00.0", usp2, 0, false);
  gpu_at(h, 0, add_dev(h, "0000:03:00.0", dsp_a, 0, 0x0302));
  nic_at(h, "pix", add_dev(h, "0000:04:00.0", dsp_b, 0, 0x0207));
  nic_at(h, "pxb", add_dev(h, "0000:07:00.0", dsp2, 0, 0x0207));
  int rp2 = add_bridge(h, "0000:00:02.0", hb0, 0, false);
  nic_at(h, "phb", add_dev(h, "0000:08:00.0", rp2, 0, 0x0207));
  int rp3 = add_bridge(h, "0000:40:01.0", hb1, 0, false);
  nic_at(h, "node", add_dev(h, "0000:41:00.0", rp3, 0, 0x0207));
  int rp4 = add_bridge(h, "0000:80:01.0", hb2, 1, false);
  nic_at(h, "sys", add_dev(h, "0000:81:00.0", rp4, 1, 0x0207));
  EXPECT_EQ(path_class(h, 0, h.find_nic("pix")), PathClass::kPix);
  EXPECT_EQ(path_class(h, 0, h.find_nic("pxb")), PathClass::kPxb);
  EXPECT_EQ(path_class(h, 0, h.find_nic("phb")), PathClass::kPhb);
  EXPECT_EQ(path_class(h, 0, h.find_nic("node")), PathClass::kNode);
  EXPECT_EQ(path_class(h, 0, h.find_nic("sys")), PathClass::kSys);
}

TEST(TopoPathClass, GivenWinsAndNumaFallback) {
  HostTopology h;
  h.add_gpu(0).numa = 0;
  h.add_nic("a").numa = 0;
  h.add_nic("b").numa = 1;
  h.add_nic("c");
  EXPECT_EQ(path_class(h, 0, 0), PathClass::kNode);
  EXPECT_EQ(path_class(h, 0, 1), PathClass::kSys);
  EXPECT_EQ(path_class(h, 0, 2), PathClass::kUnknown);
  h.given_paths[{0, 1}] = PathClass::kPix;
  EXPECT_EQ(path_class(h, 0, 1), PathClass::kPix);
  EXPECT_EQ(path_class(h, 5, 0), PathClass::kUnknown);
}

TEST(TopoHca, NcclRules) {
  auto f = parse_hca_filter("mlx5_0,mlx5_1");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->selects("mlx5_1", 1));
  EXPECT_TRUE(f->selects("mlx5_10", 1));  // prefix
  EXPECT_FALSE(f->selects("mlx5_2", 1));
  auto exact = parse_hca_filter("=mlx5_0,mlx5_1");
  ASSERT_TRUE(exact.ok());
  EXPECT_FALSE(exact->selects("mlx5_10", 1));
  auto excl = parse_hca_filter("^=mlx5_4,mlx5_5");
  ASSERT_TRUE(excl.ok());
  EXPECT_TRUE(excl->exclude && excl->exact);
  EXPECT_FALSE(excl->selects("mlx5_4", 1));
  EXPECT_TRUE(excl->selects("mlx5_40", 1));
  auto port = parse_hca_filter("mlx5_0:1,mlx5_1:2");
  ASSERT_TRUE(port.ok());
  EXPECT_TRUE(port->selects("mlx5_0", 1));
  EXPECT_FALSE(port->selects("mlx5_0", 2));
  EXPECT_TRUE(port->selects("mlx5_1", 2));
  EXPECT_TRUE(parse_hca_filter("")->selects("anything", 1));
  EXPECT_FALSE(parse_hca_filter("mlx5_0,,mlx5_1").ok());
  EXPECT_FALSE(parse_hca_filter("mlx5_0:x").ok());
  EXPECT_FALSE(parse_hca_filter(":1").ok());
  std::string many;
  for (int i = 0; i < 33; ++i) many += (i ? ",mlx5_" : "mlx5_") + std::to_string(i);
  auto too_many = parse_hca_filter(many);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("32"), std::string::npos);
}

std::vector<std::string> codes(const std::vector<Finding>& f) {
  std::vector<std::string> c;
  for (const Finding& x : f) c.push_back(x.code);
  return c;
}
int count_code(const std::vector<Finding>& f, const std::string& code, const std::string& severity = "") {
  return static_cast<int>(std::count_if(f.begin(), f.end(), [&](const Finding& x) {
    return x.code == code && (severity.empty() || name(x.severity) == severity);
  }));
}

// Two GPUs, each with its own NIC under its switch: healthy.
HostTopology healthy_pair() {
  HostTopology h;
  h.host = "n1";
  h.sources.push_back("test");
  h.numa.push_back({0, *CpuSet::from_list("0-15")});
  int sw0 = add_bridge(h, "ffff:ff:01.0", -1, 0, true);
  int sw1 = add_bridge(h, "ffff:ff:02.0", -1, 0, true);
  gpu_at(h, 0, add_dev(h, "0000:01:00.0", sw0, 0, 0x0302));
  gpu_at(h, 1, add_dev(h, "0000:02:00.0", sw1, 0, 0x0302));
  nic_at(h, "mlx5_0", add_dev(h, "0000:03:00.0", sw0, 0, 0x0207));
  nic_at(h, "mlx5_1", add_dev(h, "0000:04:00.0", sw1, 0, 0x0207));
  return h;
}

TEST(TopoMapping, HealthyHostHasNoWarnings) {
  TopologySet set;
  set.hosts.push_back(healthy_pair());
  std::vector<Finding> f;
  auto a = analyze_topology(set, {}, f);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(f.empty()) << ::testing::PrintToString(codes(f));
  ASSERT_EQ(a->front().gpus.size(), 2u);
  EXPECT_EQ(a->front().gpus[0].nccl_choice, "mlx5_0");
  EXPECT_EQ(a->front().gpus[1].nccl_choice, "mlx5_1");
  EXPECT_EQ(a->front().gpus[1].best_path, PathClass::kPix);
}

TEST(TopoMapping, TiesSpreadLikeNccl) {
  // Two GPUs and two NICs all under one switch: NCCL gives each GPU its own NIC.
  HostTopology h;
  int sw = add_bridge(h, "ffff:ff:01.0", -1, 0, true);
  gpu_at(h, 0, add_dev(h, "0000:01:00.0", sw, 0, 0x0302));
  gpu_at(h, 1, add_dev(h, "0000:02:00.0", sw, 0, 0x0302));
  nic_at(h, "mlx5_1", add_dev(h, "0000:04:00.0", sw, 0, 0x0207));
  nic_at(h, "mlx5_0", add_dev(h, "0000:03:00.0", sw, 0, 0x0207));
  TopologySet set;
  set.hosts.push_back(h);
  std::vector<Finding> f;
  auto a = analyze_topology(set, {}, f);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->front().gpus[0].nccl_choice, "mlx5_0");
  EXPECT_EQ(a->front().gpus[1].nccl_choice, "mlx5_1");
  EXPECT_EQ(count_code(f, "topo.nic_shared"), 0);
}

TEST(TopoMapping, FarNicFromLogIsAnError) {
  HostTopology h = healthy_pair();
  h.uses.push_back({1, 1, "mlx5_0", 0, true, 2});  // GPU 1 sends on GPU 0's NIC
  h.uses.push_back({0, 0, "mlx5_0", 0, true, 2});
  TopologySet set;
  set.hosts.push_back(h);
  std::vector<Finding> f;
  ASSERT_TRUE(analyze_topology(set, {}, f).ok());
  EXPECT_EQ(count_code(f, "topo.nic_far", "error"), 1) << ::testing::PrintToString(codes(f));
  EXPECT_EQ(count_code(f, "topo.nic_shared", "warning"), 1);
  auto far = std::find_if(f.begin(), f.end(), [](const Finding& x) { return x.code == "topo.nic_far"; });
  EXPECT_EQ(far->subject, "host n1 GPU 1 NIC mlx5_0");
  const auto& ev = far->evidence;
  EXPECT_EQ(ev["used_path"], "PHB");  // two switches, each straight on the CPU
  EXPECT_EQ(ev["best_path"], "PIX");
}

TEST(TopoMapping, HcaFilterLeavingOutTheNearNic) {
  TopologySet set;
  set.hosts.push_back(healthy_pair());
  AnalysisOptions o;
  o.ib_hca = "=mlx5_0";
  std::vector<Finding> f;
  auto a = analyze_topology(set, o, f);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->front().gpus[1].nccl_choice, "mlx5_0");
  EXPECT_EQ(count_code(f, "topo.nic_far", "warning"), 1) << ::testing::PrintToString(codes(f));
  EXPECT_EQ(count_code(f, "topo.nic_shared"), 1);
}

TEST(TopoMapping, PrefixHcaAndAbsentNames) {
  HostTopology h = healthy_pair();
  int sw = h.find_pci("ffff:ff:02.0");
  nic_at(h, "mlx5_10", add_dev(h, "0000:05:00.0", sw, 0, 0x0207));
  h.nccl_ib_hca = "mlx5_0,mlx5_1,mlx5_7";
  TopologySet set;
  set.hosts.push_back(h);
  std::vector<Finding> f;
  auto a = analyze_topology(set, {}, f);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->front().ib_hca_origin, "NCCL log");
  EXPECT_EQ(count_code(f, "topo.hca_filter", "warning"), 2) << ::testing::PrintToString(codes(f));
  bool prefix = false, absent = false;
  for (const Finding& x : f) {
    if (x.code != "topo.hca_filter") continue;
    prefix |= x.message.find("also selects mlx5_10") != std::string::npos;
    absent |= x.message.find("names mlx5_7") != std::string::npos;
  }
  EXPECT_TRUE(prefix);
  EXPECT_TRUE(absent);
  // A bad value from the user is an input error; from a log, a finding.
  AnalysisOptions bad;
  bad.ib_hca = "mlx5_0:zero";
  std::vector<Finding> g;
  EXPECT_FALSE(analyze_topology(set, bad, g).ok());
  set.hosts[0].nccl_ib_hca = "mlx5_0,,";
  std::vector<Finding> k;
  ASSERT_TRUE(analyze_topology(set, {}, k).ok());
  EXPECT_EQ(count_code(k, "topo.hca_filter", "error"), 1);
}

TEST(TopoMapping, PortDownAndDegraded) {
  HostTopology h = healthy_pair();
  h.nics[0].ports[0].state = "DOWN";
  TopologySet set;
  set.hosts.push_back(h);
  std::vector<Finding> f;
  ASSERT_TRUE(analyze_topology(set, {}, f).ok());
  EXPECT_EQ(count_code(f, "topo.port_down", "error"), 1);
  // GPU 0 lost its near NIC: it now reaches mlx5_1 at PHB.
  EXPECT_EQ(count_code(f, "topo.gpu_without_near_nic", "warning"), 1) << ::testing::PrintToString(codes(f));

  HostTopology d = healthy_pair();
  int sw = d.find_pci("ffff:ff:02.0");
  nic_at(d, "mlx5_2", add_dev(d, "0000:06:00.0", sw, 0, 0x0207), "ACTIVE", 200);
  TopologySet s2;
  s2.hosts.push_back(d);
  std::vector<Finding> g;
  ASSERT_TRUE(analyze_topology(s2, {}, g).ok());
  EXPECT_EQ(count_code(g, "topo.port_degraded"), 1) << ::testing::PrintToString(codes(g));
  AnalysisOptions expect;
  expect.expect_rate_gbits = 800;
  std::vector<Finding> e;
  ASSERT_TRUE(analyze_topology(s2, expect, e).ok());
  EXPECT_EQ(count_code(e, "topo.port_degraded"), 3);
}

TEST(TopoMapping, GdrOffFromLogAndFile) {
  HostTopology h = healthy_pair();
  h.uses.push_back({0, 0, "mlx5_0", 0, false, 4});
  h.nics[1].gdr = false;
  TopologySet set;
  set.hosts.push_back(h);
  std::vector<Finding> f;
  ASSERT_TRUE(analyze_topology(set, {}, f).ok());
  EXPECT_EQ(count_code(f, "topo.gdr_off"), 2) << ::testing::PrintToString(codes(f));
}

TEST(TopoMapping, NumaMismatchAndAffinity) {
  HostTopology h = healthy_pair();
  h.numa.push_back({1, *CpuSet::from_list("16-31")});
  h.pci[h.gpus[1].pci].numa = 1;
  h.ranks.push_back({0, 0, 0, *CpuSet::from_list("0-3")});
  h.ranks.push_back({1, 1, 1, *CpuSet::from_list("4-7")});  // GPU 1 is on node 1 (16-31)
  TopologySet set;
  set.hosts.push_back(h);
  std::vector<Finding> f;
  ASSERT_TRUE(analyze_topology(set, {}, f).ok());
  EXPECT_EQ(count_code(f, "topo.numa_mismatch"), 1) << ::testing::PrintToString(codes(f));

  HostTopology o = healthy_pair();
  o.numa.push_back({1, *CpuSet::from_list("8-31")});  // overlaps node 0's 0-15
  TopologySet s2;
  s2.hosts.push_back(o);
  std::vector<Finding> g;
  ASSERT_TRUE(analyze_topology(s2, {}, g).ok());
  EXPECT_EQ(count_code(g, "topo.numa_affinity", "error"), 1);

  HostTopology sw = healthy_pair();
  sw.numa[0].cpus = *CpuSet::from_list("16-31");
  sw.numa.push_back({1, *CpuSet::from_list("0-15")});
  TopologySet s3;
  s3.hosts.push_back(sw);
  std::vector<Finding> k;
  ASSERT_TRUE(analyze_topology(s3, {}, k).ok());
  EXPECT_EQ(count_code(k, "topo.numa_affinity", "warning"), 1);
}

TEST(TopoMapping, HostDiffersNeedsAMajority) {
  std::vector<Finding> f;
  add_host_differs({{"a", "x"}, {"b", "x"}, {"c", "y"}}, f);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].subject, "host c");
  std::vector<Finding> g;
  add_host_differs({{"a", "x"}, {"b", "y"}}, g);  // two alike hosts needed
  EXPECT_TRUE(g.empty());
  std::vector<Finding> k;
  add_host_differs({{"a", "x"}, {"b", "x"}, {"c", "y"}, {"d", "y"}}, k);  // tie
  EXPECT_TRUE(k.empty());
}

TEST(TopoReport, JsonAndTextAgree) {
  TopologySet set;
  set.hosts.push_back(healthy_pair());
  std::vector<Finding> f;
  auto a = analyze_topology(set, {}, f);
  ASSERT_TRUE(a.ok());
  auto section = topology_section(set, *a);
  auto j = to_json(section);
  ASSERT_EQ(j["hosts"].size(), 1u);
  EXPECT_EQ(j["hosts"][0]["paths"]["classes"][0][0], "PIX");
  EXPECT_EQ(j["hosts"][0]["paths"]["classes"][0][1], "PHB");
  EXPECT_EQ(j["hosts"][0]["mapping"][1]["nccl_choice"], "mlx5_1");
  std::string text = render_topology_text(section);
  EXPECT_NE(text.find("GPU1    PHB     PIX"), std::string::npos) << text;
  EXPECT_NE(text.find("NIC1: mlx5_1"), std::string::npos) << text;
  HostTopology empty;
  empty.host = "bare";
  TopologySet s2;
  s2.hosts.push_back(empty);
  std::vector<Finding> g;
  auto b = analyze_topology(s2, {}, g);
  ASSERT_TRUE(b.ok());
  std::string t2 = render_topology_text(topology_section(s2, *b));
  EXPECT_NE(t2.find("no GPU found"), std::string::npos);
  EXPECT_NE(t2.find("no NIC found"), std::string::npos);
}

}  // namespace
}  // namespace fabscope::topo
