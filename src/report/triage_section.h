// The report model's triage section (report/report.h holds the whole report).
// `fabscope triage`: the files read and what each held.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabscope {

// `fabscope triage`: each file it was given, what it was taken as.
struct TriageFile {
  std::string path;
  std::vector<std::string> kinds;  // nccl-log, nccl-tests, nvidia-smi-topo, ...; empty: not recognised
  uint64_t bytes = 0;
  int lines = 0;
  std::string note;  // why it was skipped or only partly read; "" when read whole
  // Lines no reader took (not blank): counted for files that only line readers read (NCCL,
  // kernel, Fabric Manager, lspci, counter and framework lines); -1 where a table or
  // listing reader read the file's other lines whole (nccl-tests, nvidia-smi topo, RDMA
  // tools, XML), which does not say which lines it used.
  int lines_not_read = -1;
  std::vector<std::string> not_read_examples;  // the first few: "line N: text"
};
struct TriageSection {
  std::vector<TriageFile> files;
  // The answer: the code and subject of the finding most likely the cause (the first
  // finding); "" when nothing was found.
  std::string answer_code;
  std::string answer_subject;
};

}  // namespace fabscope
