// Files written so that a reader never sees half of one: the content goes to a
// temporary file in the same directory ("REPORT.json.tmp.HOST.PID.XXXXXX"), is flushed,
// then renamed over the target. A failed write leaves the previous file intact; SIGINT,
// SIGTERM or SIGHUP during the write remove the temporary; one left by a writer killed
// with -9 is removed by the next write of the same file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace fabscope {

// Files are written 0644: readable by every user of the machine (results, with secret
// environment values redacted), writable by the owner.
Status write_file_atomically(const std::string& path, std::string_view content);
// Checks, before a long run, that `path` could be written: its directory exists, the
// path is not a directory, and a file can really be created there (one is, and removed).
Status check_writable(const std::string& path);
// "PATH.tmp.HOST.PID.": the start of this process's temporaries for `path`.
std::string temporary_prefix(const std::string& path);
// Removes temporaries of `path` that no writer will finish: ours from a process of this
// host that no longer runs, or any older than `older_than_s`. Returns how many.
int remove_stale_temporaries(const std::string& path, double older_than_s = 3600);
// The most read_file reads from one file: 512 MiB, far above any report, log or topology
// file fabscope reads (the largest fixture is a few MiB).
inline constexpr uint64_t kMaxInputFileBytes = uint64_t{512} << 20;
// Reads a whole regular file. FIFOs, devices (/dev/zero), sockets and directories are
// refused with a message saying what the path is, as is a file over kMaxInputFileBytes:
// a read that could block forever or never end is not started.
Result<std::string> read_file(const std::string& path);

}  // namespace fabscope
