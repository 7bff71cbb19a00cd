// An MPI gtest binary (test/mpi): every rank runs every test. mpi_gtest_main.cpp makes the
// rank context before they run, prints only failures on ranks other than 0, and exits
// with the worst rank's result, so a failure on any rank fails the test.
#pragma once

#include "comm/context.h"

namespace fabscope {

extern RankContext* g_ctx;  // this rank's, for the whole run

}  // namespace fabscope
