// The one stop flag: set by our SIGINT/SIGTERM/SIGHUP handler (runner/runner.cpp); every loop and
// every child we start watches it (workers, pytest, the toolchain's compilers), so a stop ends
// them all within a second and the run ends with a partial report.
#pragma once

#include <atomic>

namespace gpuconform {

extern std::atomic<bool> g_interrupted;

}  // namespace gpuconform
