#include "backend/tcp/tcp_backend.h"

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

namespace {
TcpOptions tcp_options(const BackendOptions& options) {
  TcpOptions o;
  o.interface = options.tcp_interface;
  o.address = options.tcp_address;
  o.congestion = options.tcp_congestion;
  return o;
}
}  // namespace

Result<std::unique_ptr<Transport>> create_tcp_transport(const RankContext& ctx, const BackendOptions& options,
                                                        const Logger& log) {
  auto t = TcpTransport::create(ctx, tcp_options(options), log);
  if (!t.ok()) return t.status();
  return std::unique_ptr<Transport>(std::move(*t));
}

Result<std::unique_ptr<Backend>> create_tcp_backend(const RankContext& ctx, const BackendOptions& options,
                                                    const Logger& log) {
  return make_algo_backend("tcp", create_tcp_transport(ctx, options, log));
}

}  // namespace fabscope
