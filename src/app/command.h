// fabscope's subcommands. Each is one entry of command_table() (app/command_table.cpp):
// its name, help, which of the shared options it takes, and a factory for its Command,
// which declares its own options and runs. cmd/fabscope/main.cpp only wires the table
// to CLI11 and turns the outcome into the exit code, in one place.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend/registry.h"
#include "core/exit_code.h"
#include "core/log.h"
#include "core/status.h"
#include "report/reporter.h"

namespace fabscope {

// The options several subcommands share, declared once (add_common_options).
enum CommonOption : unsigned {
  kOutputFiles = 1u << 0,    // --json FILE and every other file format of output_formats()
  kLogLevel = 1u << 1,       // --log-level
  kTimeout = 1u << 2,        // --timeout S
  kBackendChoice = 1u << 3,  // --backend NAME and the backends' own options
};

struct CommonOptions {
  std::map<std::string, std::optional<std::string>> output_paths;  // format name -> path given
  std::string log_level_name = "warn";
  LogLevel log_level = LogLevel::kWarn;  // parsed from log_level_name by run_command
  double timeout_s = 300;
  std::string backend = "auto";
  BackendOptions backend_options;  // timeout_s is copied in by run_command
  std::vector<std::string> command_line;

  OutputFiles output_files() const;
};
void add_common_options(CLI::App& app, unsigned which, CommonOptions& values);
// For an option bound to an unsigned integer: a negative value is an error naming it
// (CLI11 would otherwise wrap -2 to 18446744073709551614).
CLI::Validator non_negative_integer();

// How a command ended: a failure (already printed by rank 0), or the verdict.
struct CommandOutcome {
  Status status;
  bool verdict_failed = false;
  bool verdict_inconclusive = false;  // the report says what is missing
};
int exit_code(const CommandOutcome& outcome);

class Command {
 public:
  virtual ~Command() = default;
  // Declares the subcommand's own options, bound to members of the command.
  virtual void add_options(CLI::App& app) = 0;
  // Runs after parsing. A command that runs under a launcher starts and ends MPI
  // itself and prints its errors from rank 0 before any rank exits.
  virtual CommandOutcome run(const CommonOptions& common, int* argc, char*** argv) = 0;
};

struct CommandEntry {
  std::string_view name;
  std::string_view help;
  unsigned common;  // CommonOption bits
  std::unique_ptr<Command> (*make)();
};
std::span<const CommandEntry> command_table();

// Completes the common options (--log-level parsed, the command line recorded), then
// runs `command`. A bad --log-level is a usage error printed once under a launcher.
CommandOutcome run_command(Command& command, CommonOptions& common, unsigned which, int* argc, char*** argv);

// `fabscope --version` and `fabscope backends`.
std::string version_text();
std::string backends_text();

// Help text listing a table's names: "allreduce allgather ... or all".
std::string collective_names();
std::string backend_names();

}  // namespace fabscope
