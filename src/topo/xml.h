// A small, strict XML reader for the topology files fabscope reads (NCCL's topology and
// graph dumps; well-formedness checks before hwloc loads an XML). Elements, attributes,
// comments, processing instructions, CDATA and character references; no DTDs. A
// malformed or truncated document is an error naming the source, line and column.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace fabscope::topo {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;  // in document order, entities decoded
  std::vector<XmlElement> children;
  int line = 0;  // where the start tag begins (1-based)
  // The attribute's value, or nullptr when absent.
  const std::string* attribute(std::string_view key) const;
};

// The document's root element. Errors: Status::Invalid("SOURCE:LINE:COL: what"), e.g.
// "topo.xml:214:1: document ends inside <pci> opened at line 12".
Result<XmlElement> parse_xml(std::string_view text, std::string_view source);

}  // namespace fabscope::topo
