// The one stop flag: set by our SIGINT/SIGTERM/SIGHUP handler (install_stop_handlers: `run`, the
// selftest's scenarios side by side); every loop and every child we start watches it (workers, pytest, the toolchain's
// compilers), so a stop ends them all within a second and the run ends with a partial report.
#pragma once

#include <atomic>

namespace gpuconform {

extern std::atomic<bool> g_interrupted;

// SIGINT, SIGTERM and SIGHUP (a dropped ssh session) set g_interrupted; SIGPIPE is ignored, so
// `run | head -1` meets a write error instead of dying.
void install_stop_handlers();

}  // namespace gpuconform
