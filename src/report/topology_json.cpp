// The report's `topology` section, as `fabscope topo` writes it.
#include "report/model_json.h"

namespace fabscope {

Json to_json(const TopoNumaEntry& v) { return {{"id", v.id}, {"cpus", v.cpus}}; }
void read(const JsonIn& in, TopoNumaEntry& v) {
  in.field("id", v.id);
  in.field("cpus", v.cpus);
}

Json to_json(const TopoGpuEntry& v) {
  return {{"index", v.index},
          {"busid", to_json_opt(v.busid)},
          {"numa", to_json_opt(v.numa)},
          {"model", to_json_opt(v.model)},
          {"pcie_gbytes", to_json_opt(v.pcie_gbytes)},
          {"nccl_rank", to_json_opt(v.nccl_rank)},
          {"gdr", to_json_opt(v.gdr)},
          {"cpu_affinity", to_json_opt(v.cpu_affinity)}};
}
void read(const JsonIn& in, TopoGpuEntry& v) {
  in.field("index", v.index);
  in.field("busid", v.busid);
  in.field("numa", v.numa);
  in.field("model", v.model);
  in.field("pcie_gbytes", v.pcie_gbytes);
  in.field("nccl_rank", v.nccl_rank);
  in.field("gdr", v.gdr);
  in.field("cpu_affinity", v.cpu_affinity);
}

Json to_json(const TopoPortEntry& v) {
  return {{"port", v.port},
          {"state", to_json_opt(v.state)},
          {"rate_gbits", to_json_opt(v.rate_gbits)},
          {"link_layer", to_json_opt(v.link_layer)},
          {"netdev", to_json_opt(v.netdev)}};
}
void read(const JsonIn& in, TopoPortEntry& v) {
  in.field("port", v.port);
  in.field("state", v.state);
  in.field("rate_gbits", v.rate_gbits);
  in.field("link_layer", v.link_layer);
  in.field("netdev", v.netdev);
}

Json to_json(const TopoNicEntry& v) {
  return {{"name", v.name},
          {"busid", to_json_opt(v.busid)},
          {"numa", to_json_opt(v.numa)},
          {"rdma", v.rdma},
          {"speed_gbits", to_json_opt(v.speed_gbits)},
          {"pcie_gbytes", to_json_opt(v.pcie_gbytes)},
          {"gdr", to_json_opt(v.gdr)},
          {"ports", to_json_array(v.ports)}};
}
void read(const JsonIn& in, TopoNicEntry& v) {
  in.field("name", v.name);
  in.field("busid", v.busid);
  in.field("numa", v.numa);
  in.field("rdma", v.rdma);
  in.field("speed_gbits", v.speed_gbits);
  in.field("pcie_gbytes", v.pcie_gbytes);
  in.field("gdr", v.gdr);
  in.field("ports", v.ports);
}

Json to_json(const TopoPaths& v) {
  Json classes = Json::array();
  for (const auto& row : v.classes) {
    Json r = Json::array();
    for (const auto& c : row) r.push_back(to_json_opt(c));
    classes.push_back(r);
  }
  return {{"gpus", v.gpus}, {"nics", v.nics}, {"classes", classes}};
}
void read(const JsonIn& in, TopoPaths& v) {
  in.field("gpus", v.gpus);
  in.field("nics", v.nics);
  in.field("classes", v.classes);
  if (v.classes.size() != v.gpus.size()) in.at("classes").fail("does not have one row per GPU in paths.gpus");
  for (size_t g = 0; g < v.classes.size(); ++g) {
    if (v.classes[g].size() != v.nics.size()) in.at("classes").elements()[g].fail("does not have one class per NIC");
  }
}

Json to_json(const TopoNcclEntry& v) {
  return {{"ib_hca", to_json_opt(v.ib_hca)},
          {"ib_hca_origin", to_json_opt(v.ib_hca_origin)},
          {"net_devices", v.net_devices},
          {"selected", v.selected}};
}
void read(const JsonIn& in, TopoNcclEntry& v) {
  in.field("ib_hca", v.ib_hca);
  in.field("ib_hca_origin", v.ib_hca_origin);
  in.field("net_devices", v.net_devices);
  in.field("selected", v.selected);
}

Json to_json(const TopoMappingEntry& v) {
  return {{"gpu", v.gpu},
          {"best_path", to_json_opt(v.best_path)},
          {"best_nics", v.best_nics},
          {"nccl_choice", to_json_opt(v.nccl_choice)},
          {"nccl_choice_path", to_json_opt(v.nccl_choice_path)},
          {"used_nics", v.used_nics},
          {"used_gdr", to_json_opt(v.used_gdr)}};
}
void read(const JsonIn& in, TopoMappingEntry& v) {
  in.field("gpu", v.gpu);
  in.field("best_path", v.best_path);
  in.field("best_nics", v.best_nics);
  in.field("nccl_choice", v.nccl_choice);
  in.field("nccl_choice_path", v.nccl_choice_path);
  in.field("used_nics", v.used_nics);
  in.field("used_gdr", v.used_gdr);
}

Json to_json(const TopoRankEntry& v) {
  return {{"rank", v.rank}, {"local_rank", v.local_rank}, {"gpu", to_json_opt(v.gpu)}, {"cpus", v.cpus}};
}
void read(const JsonIn& in, TopoRankEntry& v) {
  in.field("rank", v.rank);
  in.field("local_rank", v.local_rank);
  in.field("gpu", v.gpu);
  in.field("cpus", v.cpus);
}

Json to_json(const TopoHostEntry& v) {
  return {{"host", v.host},
          {"sources", v.sources},
          {"numa", to_json_array(v.numa)},
          {"gpus", to_json_array(v.gpus)},
          {"nics", to_json_array(v.nics)},
          {"paths", to_json(v.paths)},
          {"nccl", to_json(v.nccl)},
          {"mapping", to_json_array(v.mapping)},
          {"ranks", to_json_array(v.ranks)},
          {"notes", v.notes}};
}
void read(const JsonIn& in, TopoHostEntry& v) {
  in.field("host", v.host);
  in.field("sources", v.sources);
  in.field("numa", v.numa);
  in.field("gpus", v.gpus);
  in.field("nics", v.nics);
  in.field("paths", v.paths);
  if (v.paths.gpus.size() != v.gpus.size() || v.paths.nics.size() != v.nics.size()) {
    in.at("paths").fail("does not list the host's GPUs and NICs");
  }
  in.field("nccl", v.nccl);
  in.field("mapping", v.mapping);
  in.field("ranks", v.ranks);
  in.field("notes", v.notes);
}

Json to_json(const TopologySection& v) { return {{"hosts", to_json_array(v.hosts)}}; }
void read(const JsonIn& in, TopologySection& v) { in.field("hosts", v.hosts); }

}  // namespace fabscope
