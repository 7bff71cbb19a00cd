// The shapes a pasted artifact comes in (issue 37): NCCL's prefixes stripped, terminal
// colours, a Markdown fence, HTML escapes, CRLF line ends, cut in half, its blocks in
// reverse order, and each line behind what a launcher or collector puts before it
// (kubectl logs --prefix, mpirun --tag-output, srun --label, a timestamp, a Markdown
// quote or code block's indent). A lossless shape keeps every line whole: the text says
// as much as before. The triage damage tests hold every real fixture to its cause in each
// shape, and to every cause in a lossless one; the triage fuzz target seeds its mutations
// with each shape of each fixture.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fabscope::fuzz {

struct PasteShape {
  std::string_view name;
  std::string (*make)(const std::string& text);
  bool lossless = true;  // every line kept whole (not cut, its prefix not stripped)
};

const std::vector<PasteShape>& paste_shapes();

}  // namespace fabscope::fuzz
