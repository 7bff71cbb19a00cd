#include "core/exit_code.h"

namespace fabscope {

int exit_code_for(const Status& status) {
  switch (status.kind()) {
    case ErrorKind::kNone:
      return kExitOk;
    case ErrorKind::kInvalidInput:
      return kExitUsage;
    case ErrorKind::kUnavailable:
      return kExitUnavailable;
    case ErrorKind::kRuntime:
      return kExitRuntime;
  }
  return kExitRuntime;
}

}  // namespace fabscope
