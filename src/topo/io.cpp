#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "topo/readers.h"

namespace fabscope::topo {

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Invalid("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::Invalid("cannot read " + path + ": " + std::strerror(errno));
  return text.str();
}

}  // namespace fabscope::topo
