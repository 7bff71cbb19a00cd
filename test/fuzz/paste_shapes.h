// The shapes a pasted artifact comes in (issue 37): NCCL's prefixes stripped, terminal
// colours, a Markdown fence, HTML escapes, CRLF line ends, cut in half, its blocks in
// reverse order. The triage damage test holds every real fixture to its cause in each
// shape; the triage fuzz target seeds its mutations with each shape of each fixture.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fabscope::fuzz {

struct PasteShape {
  std::string_view name;
  std::string (*make)(const std::string& text);
};

const std::vector<PasteShape>& paste_shapes();

}  // namespace fabscope::fuzz
