#include "app/nccl_profile_run.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "backend/nccl/nccl_plan.h"
#include "core/atomic_file.h"
#include "diag/nccl_profile.h"
#include "report/model_json.h"
#include "topo/readers.h"

namespace fabscope {

namespace {

constexpr const char* kPluginFile = "libnccl-profiler-fabscope.so";

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string exe_dir() {
  char buf[PATH_MAX] = {};
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

// This rank's directory's files (the plugin's, NCCL's log) and the directory itself.
void remove_dir(const std::string& dir) {
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") ::unlink((dir + "/" + name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir.c_str());
}

// This rank's part: its files, joined with its NCCL log's channels.
NcclProfileSection local_part(const RankContext& ctx, const BackendOptions& o, const std::string& library) {
  std::vector<RankProfile> profiles;
  std::string why;
  std::vector<std::string> files;
  if (DIR* d = ::opendir(o.nccl_profile_dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.starts_with(kProfilePrefix) && name.ends_with(".json")) files.push_back(o.nccl_profile_dir + "/" + name);
    }
    ::closedir(d);
  }
  for (const std::string& f : files) {
    auto text = read_file(f);
    auto p = text.ok() ? parse_rank_profile(*text, f) : Result<RankProfile>(text.status());
    if (!p.ok()) {
      why = fmt::format("rank {} on {}: the plugin's file could not be read: {}", ctx.rank(), ctx.host(),
                        p.status().message());
      profiles.clear();
      break;
    }
    p->file = fmt::format("{}:{}", ctx.host(), f);
    profiles.push_back(std::move(*p));
  }
  if (files.empty()) {
    why = fmt::format(
        "{} wrote no profile on rank {} ({}): it did not load the plugin, which implements {}; NCCL's log "
        "(--nccl-debug-dir) says why",
        library.empty() ? std::string("NCCL") : library.substr(0, library.find(" (")), ctx.rank(), ctx.host(),
        kProfilerVersions);
  }
  std::vector<ChannelNic> channels;
  const std::string log =
      nccl_debug_file(o.nccl_debug_dir.empty() ? o.nccl_profile_dir : o.nccl_debug_dir, ctx.host(), ctx.rank());
  if (auto text = read_file(log); text.ok()) {
    if (auto c = topo::nccl_log_channels(*text, log); c.ok()) channels = std::move(*c);
  }
  return build_profile_section(profiles, channels, why);
}

}  // namespace

Result<std::string> find_nccl_profiler_plugin() {
  if (const char* env = std::getenv("FABSCOPE_NCCL_PROFILER"); env != nullptr && *env != '\0') {
    if (!is_file(env)) {
      return Status::Invalid(
          fmt::format("FABSCOPE_NCCL_PROFILER={}: no such file; unset it or give the path of {}", env, kPluginFile));
    }
    char real[PATH_MAX] = {};
    return std::string(::realpath(env, real) ? real : env);
  }
  const std::string dir = exe_dir();
  const std::string beside = dir + "/" + kPluginFile;
  const std::string lib = dir + "/../lib/" + kPluginFile;
  for (const std::string& p : {beside, lib}) {
    if (is_file(p)) {
      char real[PATH_MAX] = {};
      return std::string(::realpath(p.c_str(), real) ? real : p.c_str());
    }
  }
  return Status::Invalid(fmt::format(
      "--nccl-profile: fabscope's NCCL profiler plugin is not installed: no {} in {} or {}; build the target "
      "nccl_profiler_fabscope, or set FABSCOPE_NCCL_PROFILER to its path",
      kPluginFile, dir, dir + "/../lib"));
}

Status prepare_nccl_profile(const RankContext& ctx, std::string_view backend, BackendOptions& options) {
  if (backend != "nccl") {  // the same on every rank: the job's backend
    return Status::Invalid(
        fmt::format("--nccl-profile profiles NCCL and needs --backend nccl; this job uses backend '{}'", backend));
  }
  auto plugin = find_nccl_profiler_plugin();
  Status local = plugin.ok() ? Status::Ok() : plugin.status();
  std::string dir;
  if (local.ok()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/fabscope-nccl-profile-r{}-XXXXXX", tmp && *tmp ? tmp : "/tmp", ctx.rank());
    if (::mkdtemp(pattern.data()) == nullptr) {
      local = Status::Unavailable(fmt::format("--nccl-profile: cannot make a directory like {} on {}: {}", pattern,
                                              ctx.host(), std::strerror(errno)));
    } else {
      dir = pattern;
    }
  }
  if (Status agreed = ctx.agree(local); !agreed.ok()) {
    if (!dir.empty()) remove_dir(dir);
    return agreed;
  }
  options.nccl_profiler_plugin = *plugin;
  options.nccl_profile_dir = dir;
  return Status::Ok();
}

Status collect_nccl_profile(const RankContext& ctx, const BackendOptions& options, const std::string& library,
                            Report& report) {
  if (options.nccl_profile_dir.empty()) return Status::Ok();
  const NcclProfileSection mine = local_part(ctx, options, library);
  remove_dir(options.nccl_profile_dir);
  auto all = ctx.gather_text(dump_json(to_json(mine)));
  if (!all.ok()) return all.status();
  if (ctx.rank() != 0) return Status::Ok();
  std::vector<NcclProfileSection> parts(all->size());
  try {
    for (size_t r = 0; r < all->size(); ++r) {
      const Json j = Json::parse((*all)[r]);
      read(JsonIn(j, "", fmt::format("rank {}'s profile", r)), parts[r]);
    }
  } catch (const std::exception& e) {  // not what the ranks sent: a fabscope defect
    return Status::Runtime(fmt::format("the ranks' NCCL profiles could not be read back: {}", e.what()));
  }
  report.nccl_profile = merge_profile_sections(parts);
  return Status::Ok();
}

}  // namespace fabscope
