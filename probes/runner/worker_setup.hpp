// What a worker is started with: the parent's Worker::start and the child's worker_child_main
// both read it.
#pragma once

#include <string>

#include "core/backend_info.hpp"
#include "core/check.hpp"
#include "core/phase_log.hpp"

namespace gpuconform {

struct WorkerSetup {
    std::string backend;  // module name
    std::string options;  // passed to the module (the sim reads its faults from it)
    const Environment* env = nullptr;
    const Profile* profile = nullptr;
    const RunOptions* options_run = nullptr;
    PhaseLog* phases = nullptr;  // when set, each start is stamped as worker.<backend>.start
};

}  // namespace gpuconform
