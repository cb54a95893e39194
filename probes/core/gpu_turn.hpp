// One turn on the GPU for our own work that could disturb a measurement. Host checks run beside
// the device checks (runner.cpp); the device phase holds this while a timing-sensitive check runs,
// and a host check that starts GPU work of its own (a compiled probe that creates a context and
// launches a kernel) takes it first, so such work never lands inside a measurement. The busy
// guard cannot see it: it leaves our own process tree out by design.
#pragma once

#include <mutex>

namespace gpuconform {

inline std::mutex& gpu_timing_turn() {
    static std::mutex turn;
    return turn;
}

}  // namespace gpuconform
