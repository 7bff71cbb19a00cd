// Slurm hostlist expressions: "node[03,07-08],gpu1" for node03, node07, node08, gpu1.
// The drain list of a verdict is written this way so that an operator can paste it into
// `scontrol update nodename=... state=drain`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace fabscope {

// The shortest expression Slurm reads back as these hosts (duplicates dropped): hosts
// that differ only in a trailing number share one bracket, consecutive numbers become a
// range, and zero padding is kept ("node07-08" stays "node[07-08]"). Prefixes appear in
// sorted order, numbers ascending.
std::string compress_hostlist(std::vector<std::string> hosts);

// The hosts an expression names, in its order: "a[1-3,5],b" gives a1 a2 a3 a5 b.
// Errors name the expression and what is wrong (unbalanced bracket, bad range).
Result<std::vector<std::string>> expand_hostlist(std::string_view expression);

}  // namespace fabscope
