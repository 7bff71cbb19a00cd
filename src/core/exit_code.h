// The exit codes of the fabscope binary, and the one mapping from a Status to them.
#pragma once

#include "core/status.h"

namespace fabscope {

enum ExitCode : int {
  kExitOk = 0,
  kExitVerdictFail = 1,   // ran, and the verdict is fail (e.g. wrong results)
  kExitUsage = 2,         // bad input: an option, a value, a file
  kExitUnavailable = 3,   // a backend or device cannot run here
  kExitRuntime = 4,       // a failure while running (also: a rank without progress past --timeout)
  kExitInconclusive = 5,  // ran, nothing failed, but the inputs cannot support a verdict (triage)
};

int exit_code_for(const Status& status);

}  // namespace fabscope
