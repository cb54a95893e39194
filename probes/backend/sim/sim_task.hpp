// What the sim's streams run: tasks with a modelled cost, and the streams that queue them.
// The scheduler (sim_scheduler.hpp) owns the ordering and the clock; these are plain data
// guarded by its mutex.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace gpuconform::sim {

using Clock = std::chrono::steady_clock;

// What to run: the real work, its modelled duration and the engine it occupies.
struct TaskSpec {
    std::function<void()> work;  // empty for markers (event records, waits)
    Clock::duration cost{};
    Clock::time_point* engine = nullptr;  // the engine's next free time; guarded by the scheduler
    bool releasable = false;              // a spin that Scheduler::release ends early
};

struct Task {
    TaskSpec spec;
    std::vector<std::shared_ptr<Task>> deps;
    Clock::time_point enqueued;
    std::uint64_t release_generation = 0;  // the scheduler's releases before this was queued
    bool done = false;
    Clock::time_point finished;  // the modelled end: what an event recorded here reads
};
using TaskPtr = std::shared_ptr<Task>;

struct SimStream {
    int device = 0;
    bool legacy = false;
    bool blocking = true;       // synchronizes with the legacy stream
    std::deque<TaskPtr> queue;  // the front task stays queued while it runs
    TaskPtr last;
    TaskPtr last_link_copy;  // link_shared: its last large pinned copy (SimDevice::link_mutex)
    Clock::time_point tail;  // modelled end of the last task run
    bool retired = false;
    bool exited = false;
    std::thread worker;
    std::condition_variable wake;  // the worker's: work queued, the stream retired, the sim stopping
};
using StreamPtr = std::shared_ptr<SimStream>;

}  // namespace gpuconform::sim
