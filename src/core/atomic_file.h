// Files written so that a reader never sees half of one: the content goes to a
// temporary file in the same directory, is flushed, then renamed over the target.
// A failed write leaves the previous file intact.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace fabscope {

Status write_file_atomically(const std::string& path, std::string_view content);
// Checks, before a long run, that `path` could be written: its directory exists and
// is writable, and the path is not a directory.
Status check_writable(const std::string& path);
Result<std::string> read_file(const std::string& path);

}  // namespace fabscope
