// The child side of a worker: load the module, report, then run check requests until told to stop.
#pragma once

#include "runner/worker_setup.hpp"

namespace gpuconform {

[[noreturn]] void worker_child_main(const WorkerSetup& setup, int in_fd, int out_fd);

// Runs one check in this process (used by the child, and by tests that need no fork).
CheckResult run_check_in_process(const CheckDef& def, CheckContext& ctx);

}  // namespace gpuconform
