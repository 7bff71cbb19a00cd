#include "topo/readers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace fabscope::topo {

namespace {

constexpr TopologyReader kReaders[] = {
    {"--hwloc-xml", "lstopo XML of a node (repeatable)", parse_hwloc_xml, ""},
    {"--nccl-topo", "NCCL topology XML (NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE) or graph XML (repeatable)",
     parse_nccl_xml, ""},
    {"--nvidia-smi-topo", "Output of `nvidia-smi topo -m` (repeatable)", parse_nvidia_smi_topo, ""},
    {"--rdma-info",
     "Output of ibdev2netdev, ibv_devinfo, ibstat, show_gids or `ls -l /sys/class/infiniband` (repeatable)",
     parse_rdma_text, ""},
    {"--nccl-log",
     "NCCL_DEBUG=INFO output, any ranks and hosts, or a directory of *.log files such as sweep --nccl-debug-dir "
     "writes (repeatable)",
     parse_nccl_log, ".log"},
};

// The file, read whole, then parsed.
template <typename Out>
Status read_with(Status (*parse)(std::string_view, std::string_view, Out&), const std::string& path, Out& out) {
  auto text = read_file(path);
  if (!text.ok()) return text.status();
  return parse(*text, path, out);
}

}  // namespace

std::span<const TopologyReader> topology_readers() { return kReaders; }

std::string prompt_host(std::string_view line) {
  const size_t at = line.find('@');
  size_t dollar = line.find("$ ");
  if (dollar == std::string_view::npos && line.ends_with("$")) dollar = line.size() - 1;
  if (dollar == std::string_view::npos && at != std::string_view::npos) {
    // root's prompt ends in '#': "[root@host ~]# cmd", "root@host:~# cmd" (not a comment
    // that happens to hold an '@': the prompt's brackets or its ':' must be there)
    size_t hash = line.find("# ", at);
    if (hash == std::string_view::npos && line.ends_with("#")) hash = line.size() - 1;
    if (hash != std::string_view::npos &&
        (line.starts_with('[') || line.substr(at, hash - at).find(':') != std::string_view::npos)) {
      dollar = hash;
    }
  }
  if (at == std::string_view::npos || dollar == std::string_view::npos || dollar < at) return {};
  size_t end = at + 1;
  while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '-' ||
                               line[end] == '.' || line[end] == '_')) {
    ++end;
  }
  return std::string(line.substr(at + 1, end - at - 1));
}

Status read_topology_input(const TopologyReader& reader, const std::string& path, TopologySet& set) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (reader.directory_files.empty() || !fs::is_directory(path, ec)) return read_with(reader.parse, path, set);
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == reader.directory_files) {
      files.push_back(entry.path().string());
    }
  }
  if (ec)
    return Status::Invalid(fmt::format("{} {}: cannot list the directory: {}", reader.option, path, ec.message()));
  if (files.empty()) {
    return Status::Invalid(
        fmt::format("{} {}: the directory holds no *{} file", reader.option, path, reader.directory_files));
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) FABSCOPE_RETURN_IF_ERROR(read_with(reader.parse, f, set));
  return Status::Ok();
}

Result<std::vector<std::string>> nccl_log_files(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> files;
  if (!fs::is_directory(path, ec)) return std::vector<std::string>{path};
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ".log") files.push_back(entry.path().string());
  }
  if (ec) return Status::Invalid(fmt::format("--nccl-log {}: cannot list the directory: {}", path, ec.message()));
  std::sort(files.begin(), files.end());
  return files;
}

Result<std::vector<std::pair<std::string, std::string>>> read_nccl_log_paths(const std::string& path) {
  auto files = nccl_log_files(path);
  if (!files.ok()) return files.status();
  if (files->empty()) return Status::Invalid(fmt::format("--nccl-log {}: the directory holds no *.log file", path));
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& f : *files) {
    auto text = read_file(f);
    if (!text.ok()) return text.status();
    out.emplace_back(f, std::move(*text));
  }
  return out;
}

Status read_hwloc_xml(const std::string& path, TopologySet& set) { return read_with(parse_hwloc_xml, path, set); }
Status read_nccl_xml(const std::string& path, TopologySet& set) { return read_with(parse_nccl_xml, path, set); }
Status read_nvidia_smi_topo(const std::string& path, TopologySet& set) {
  return read_with(parse_nvidia_smi_topo, path, set);
}
Status read_nccl_log(const std::string& path, TopologySet& set) { return read_with(parse_nccl_log, path, set); }
Status read_rdma_text(const std::string& path, TopologySet& set) { return read_with(parse_rdma_text, path, set); }
Status read_nccl_env(const std::string& path, std::map<std::string, std::string>& env) {
  return read_with(parse_nccl_env, path, env);
}

}  // namespace fabscope::topo
