#include "backend/tcp/tcp_backend.h"

#include <fmt/format.h>

#include "backend/algo_backend.h"
#include "backend/tcp/tcp_transport.h"

namespace fabscope {

Availability probe_tcp_backend() {
  Availability a;
  a.compiled = true;
  a.usable = true;
  a.detail = "kernel TCP sockets (IPv4)";
  return a;
}

Result<std::unique_ptr<Backend>> create_tcp_backend(const RankContext& ctx, const BackendOptions& options,
                                                    const Logger& log) {
  TcpOptions o;
  o.interface = options.tcp_interface;
  o.address = options.tcp_address;
  auto t = TcpTransport::create(ctx, o, log);
  if (!t.ok()) return t.status();
  std::string library = fmt::format("fabscope algorithms over TCP on {}", (*t)->local_address());
  return std::unique_ptr<Backend>(new AlgoBackend("tcp", library, std::move(*t)));
}

}  // namespace fabscope
