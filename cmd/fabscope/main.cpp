// fabscope's command line: CLI11 wiring only. Every subcommand of the table
// (app/command_table.cpp) gets its shared and its own options; the one that was given
// runs, and its outcome becomes the exit code.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <vector>

#include "app/command.h"
#include "app/run_context.h"

int main(int argc, char** argv) {
  using namespace fabscope;
  CLI::App app{"fabscope: benchmark collective communication and find where the fabric loses time"};
  app.require_subcommand(0, 1);
  bool show_version = false;
  app.add_flag("--version", show_version, "Print the version, git id and compiled-in backends");

  struct Subcommand {
    const CommandEntry* entry;
    std::unique_ptr<Command> command;
    CommonOptions common;
    CLI::App* app = nullptr;
  };
  std::vector<std::unique_ptr<Subcommand>> subcommands;  // stable addresses: CLI11 binds to them
  for (const CommandEntry& e : command_table()) {
    auto s = std::make_unique<Subcommand>(Subcommand{&e, e.make(), {}, nullptr});
    s->app = app.add_subcommand(std::string(e.name), std::string(e.help));
    s->command->add_options(*s->app);
    add_common_options(*s->app, e.common, s->common);
    subcommands.push_back(std::move(s));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    report_usage_error(e.what(), &argc, &argv);
    return kExitUsage;
  }

  if (show_version) {
    std::fputs(version_text().c_str(), stdout);
    return kExitOk;
  }
  for (auto& s : subcommands) {
    if (s->app->parsed()) return exit_code(run_command(*s->command, s->common, s->entry->common, &argc, &argv));
  }
  std::fputs(app.help().c_str(), stdout);
  return kExitOk;
}
