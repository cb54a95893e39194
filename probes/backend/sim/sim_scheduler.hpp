// Streams as worker threads. Each stream runs its queued tasks in order; a task first waits for
// its dependencies (other streams' tasks: events, the legacy stream's implicit ordering), then
// runs. One mutex guards all of it: simple beats fast in a simulator. A stream's worker waits for
// new work on its own condition variable; everything that waits for work to finish (the host,
// a worker whose task depends on another stream) waits on the shared one.
//
// Time is modelled, not just measured: each task has a cost (a spin's ns, a copy's bytes over
// bandwidth) and may reserve an engine. It starts at the latest of its enqueue time, the end of
// the task before it, its dependencies' ends and its engine's next free time, and ends `cost`
// later; the worker does the real work (memcpy, fill) and then sleeps until that end. Events
// stamp the modelled end; the host never sees a task finish before it.
//
// The model keeps its own clock: the real (steady) clock less the time the machine running the
// sim fell behind the model. When a worker's real work outlasts its modelled cost (a 64 MiB memcpy
// on a loaded 2-core host), or a host waiting for the device wakes late, the model's clock stands
// still over that time. So no modelled duration, and no event timing, absorbs the host machine's
// slowness, and the model never runs ahead of the real clock: a task takes at least its modelled
// time in real time, as host-clock measurements of the checks expect.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "backend/backend.hpp"
#include "backend/sim/sim_task.hpp"

namespace gpuconform::sim {

class Scheduler {
public:
    // A full queue makes the enqueuing call block, as a full launch queue does on a real device.
    static constexpr std::size_t k_max_queued = 1024;

    Scheduler() = default;
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    ~Scheduler() {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_stopping_relaxed = true;
        m_cv.notify_all();
        for (auto& s : m_streams) {
            s->wake.notify_all();
        }
        for (auto& s : m_streams) {
            s->worker.join();
        }
    }

    StreamPtr create_stream(int device, bool legacy, bool blocking) {
        auto s = std::make_shared<SimStream>();
        s->device = device;
        s->legacy = legacy;
        s->blocking = blocking;
        std::lock_guard lock(m_mutex);
        prune_exited();
        s->worker = std::thread([this, raw = s.get()] { run_worker(*raw); });
        m_streams.push_back(s);
        return s;
    }

    // The stream's worker finishes what is queued, then exits.
    void retire(const StreamPtr& s) {
        std::lock_guard lock(m_mutex);
        s->retired = true;
        s->wake.notify_one();
    }

    // Queues a task. With legacy_sync, adds the legacy-stream ordering of CUDA: legacy work
    // waits for earlier work on blocking streams of the device, blocking streams wait for it.
    TaskPtr enqueue(SimStream& s, TaskSpec spec, std::vector<TaskPtr> deps, bool legacy_sync) {
        auto t = std::make_shared<Task>();
        t->spec = std::move(spec);
        t->deps = std::move(deps);
        const Clock::time_point called = model_now();
        std::unique_lock lock(m_mutex);
        if (s.queue.size() >= k_max_queued) {
            m_cv.wait(lock, [&] { return m_stopping || s.queue.size() < k_max_queued; });
            m_host_observed = true;  // the call blocked until the device made room: the host saw it
        }
        t->enqueued = host_clock(called);
        t->release_generation = m_release_generation.load(std::memory_order_relaxed);
        if (legacy_sync) {
            add_legacy_deps(s, *t);
        }
        s.queue.push_back(t);
        s.last = t;
        s.wake.notify_one();  // only this stream's worker: waking every worker on each launch
                              // stalls the host on a small machine
        return t;
    }

    void wait_task(const TaskPtr& t) {
        std::unique_lock lock(m_mutex);
        m_host_observed = true;
        const Clock::time_point waited_from = model_now();
        if (t->done) {
            return;
        }
        m_cv.wait(lock, [&] { return m_stopping || t->done; });
        resume_host(waited_from, t->finished);
    }

    // The model's clock (see the header): real time less how far the sim fell behind its model.
    Clock::time_point model_now() const { return Clock::now() - lag(); }

    // The modelled time of a host call made now that queues nothing (an event the `events_ignored`
    // fault stamps at the call): placed as enqueue places calls, back to back with the host's
    // previous one, so a host thread preempted while a worker copies does not read as copy time.
    Clock::time_point host_call_now() {
        const Clock::time_point called = model_now();
        std::lock_guard lock(m_mutex);
        return host_clock(called);
    }

    bool task_done(const TaskPtr& t) {
        std::lock_guard lock(m_mutex);
        m_host_observed = true;
        return t->done;
    }

    // Whether t is queued or running; unlike task_done, not a host observation of the device.
    bool pending(const TaskPtr& t) const {
        std::lock_guard lock(m_mutex);
        return t && !t->done;
    }

    Clock::time_point task_finished(const TaskPtr& t) const {
        std::lock_guard lock(m_mutex);
        return t->finished;
    }

    bool stream_idle(const SimStream& s) {
        std::lock_guard lock(m_mutex);
        m_host_observed = true;
        return s.queue.empty();
    }

    void wait_stream(const SimStream& s) {
        std::unique_lock lock(m_mutex);
        m_host_observed = true;
        const Clock::time_point waited_from = model_now();
        if (s.queue.empty()) {
            return;
        }
        m_cv.wait(lock, [&] { return m_stopping || s.queue.empty(); });
        resume_host(waited_from, s.tail);
    }

    void wait_device(int device) {
        std::unique_lock lock(m_mutex);
        m_host_observed = true;
        const Clock::time_point waited_from = model_now();
        if (device_idle(device)) {
            return;
        }
        m_cv.wait(lock, [&] { return m_stopping || device_idle(device); });
        Clock::time_point last_end = waited_from;
        for (const auto& s : m_streams) {
            if (s->device == device) {
                last_end = std::max(last_end, s->tail);
            }
        }
        resume_host(waited_from, last_end);
    }

    // Ends every releasable task queued before this call (Backend::release_spins): one running ends
    // at the release's modelled time, one still queued as soon as it starts.
    void release() {
        const Clock::time_point called = model_now();
        std::lock_guard lock(m_mutex);
        m_released_at = host_clock(called);
        m_release_generation.fetch_add(1, std::memory_order_relaxed);
        for (auto& s : m_streams) {
            s->wake.notify_all();
        }
    }

    // Sticky errors: once set, queued work is skipped and every call reports it.
    void set_sticky(const ApiResult& error) {
        std::lock_guard lock(m_mutex);
        if (m_sticky.ok()) {
            m_sticky = error;
        }
        m_cv.notify_all();
    }

    ApiResult sticky() const {
        std::lock_guard lock(m_mutex);
        return m_sticky;
    }

    // Waits in a worker until the model's clock reaches `deadline`, the end of task `t` that
    // started at `start`; wakes early when the backend is being destroyed, or when a release ends
    // `t`. The real deadline moves on while the model stands still. Returns `t`'s modelled end.
    Clock::time_point sleep_until(SimStream& s, const Task& t, Clock::time_point start, Clock::time_point deadline) {
        constexpr auto k_busy = std::chrono::microseconds(100);  // sleeping would overshoot this
        std::unique_lock lock(m_mutex);
        while (!m_stopping && !released(t) && model_now() < deadline - k_busy) {
            s.wake.wait_until(lock, deadline + lag() - k_busy, [&] { return m_stopping || released(t); });
        }
        if (released(t)) {
            return std::clamp(m_released_at, start, deadline);
        }
        lock.unlock();
        while (model_now() < deadline && !m_stopping_relaxed.load(std::memory_order_relaxed) && !released(t)) {
        }
        lock.lock();
        return released(t) ? std::clamp(m_released_at, start, deadline) : deadline;
    }

    // A kernel that never finishes (the `hang` fault) until the backend is destroyed.
    void hang() {
        std::unique_lock lock(m_mutex);
        m_cv.wait(lock, [&] { return m_stopping; });
    }

private:
    void run_worker(SimStream& s) {
        std::unique_lock lock(m_mutex);
        for (;;) {
            s.wake.wait(lock, [&] { return m_stopping || s.retired || !s.queue.empty(); });
            if (m_stopping || s.queue.empty()) {
                break;  // stopping, or retired with nothing left
            }
            const TaskPtr t = s.queue.front();
            m_cv.wait(lock, [&] { return m_stopping || deps_done(*t); });
            if (m_stopping) {
                break;
            }
            const bool skip = !m_sticky.ok();
            const Clock::duration cost = cost_of(*t);
            const Clock::time_point scheduled_end = schedule(s, *t, cost);
            Clock::time_point end = scheduled_end;
            lock.unlock();
            if (!skip) {
                if (t->spec.work) {
                    t->spec.work();
                }
                fall_behind(end);  // the real work outlasted its modelled cost: not the device's time
                end = sleep_until(s, *t, scheduled_end - cost, scheduled_end);
            }
            lock.lock();
            if (t->spec.engine != nullptr && *t->spec.engine == scheduled_end) {
                *t->spec.engine = end;  // released early: the engine is free from then on
            }
            t->done = true;
            t->finished = end;
            t->deps.clear();  // chains of dependencies would otherwise keep every task alive
            s.tail = end;
            s.queue.pop_front();
            m_cv.notify_all();
        }
        s.exited = true;
    }

    // The modelled time of a call the host made at `called`. The modelled host issues calls back
    // to back: between two calls that did not look at the device (no synchronize, query or
    // blocking call in between), a gap of up to k_host_gap is scheduling noise of the machine the
    // sim runs on (a worker thread waking on a 2-core CI host takes tens of microseconds, a
    // preempted one milliseconds) and is left out. A call right after the host looked at the
    // device is placed at its real time, so nothing can appear to finish before the host asked
    // for it, and the modelled clock never lags the real one by more than k_host_gap.
    Clock::time_point host_clock(Clock::time_point called) {
        if (m_host_observed) {
            m_host_observed = false;
            m_host_time = std::max(m_host_time, called);
        } else {
            m_host_time = std::max(m_host_time, called - k_host_gap);
        }
        return m_host_time;
    }

    Clock::duration lag() const { return Clock::duration{m_lag.load(std::memory_order_relaxed)}; }

    // The model's clock stands still until now if it ran past `model_time`: it reads
    // `model_time` now, never less than before.
    void fall_behind(Clock::time_point model_time) {
        const Clock::rep behind = (Clock::now() - model_time).count();
        Clock::rep current = m_lag.load(std::memory_order_relaxed);
        while (behind > current && !m_lag.compare_exchange_weak(current, behind, std::memory_order_relaxed)) {
        }
    }

    // A host that waited for the device resumes when the device finished (or when it began to
    // wait, if later): a late wake-up of the host thread is the machine's, not the device's.
    void resume_host(Clock::time_point waited_from, Clock::time_point finished) {
        if (!m_stopping) {
            fall_behind(std::max(waited_from, finished));
        }
    }

    // Whether a release since `t` was queued ends it (guarded by m_mutex, or read as a hint).
    bool released(const Task& t) const {
        return t.spec.releasable && m_release_generation.load(std::memory_order_relaxed) != t.release_generation;
    }

    // A task released before it started takes no time.
    Clock::duration cost_of(const Task& t) const { return released(t) ? Clock::duration::zero() : t.spec.cost; }

    // The task's modelled end when it takes `cost`; reserves its engine until then.
    static Clock::time_point schedule(const SimStream& s, const Task& t, Clock::duration cost) {
        Clock::time_point start = std::max(t.enqueued, s.tail);
        for (const auto& d : t.deps) {
            start = std::max(start, d->finished);
        }
        if (t.spec.engine != nullptr) {
            start = std::max(start, *t.spec.engine);
            *t.spec.engine = start + cost;
        }
        return start + cost;
    }

    static bool deps_done(const Task& t) {
        for (const auto& d : t.deps) {
            if (!d->done) {
                return false;
            }
        }
        return true;
    }

    void add_legacy_deps(const SimStream& s, Task& t) const {
        for (const auto& other : m_streams) {
            if (other.get() == &s || other->device != s.device || !other->last || other->last->done) {
                continue;
            }
            if ((s.legacy && other->blocking) || (s.blocking && other->legacy)) {
                t.deps.push_back(other->last);
            }
        }
    }

    bool device_idle(int device) const {
        for (const auto& s : m_streams) {
            if (s->device == device && !s->queue.empty()) {
                return false;
            }
        }
        return true;
    }

    // Joins workers of destroyed streams that have drained, so threads do not pile up.
    void prune_exited() {
        std::erase_if(m_streams, [](StreamPtr& s) {
            if (s->retired && s->exited) {
                s->worker.join();
                return true;
            }
            return false;
        });
    }

    static constexpr Clock::duration k_host_gap = std::chrono::milliseconds(5);
    bool m_host_observed = true;  // guarded by m_mutex, as is m_host_time
    Clock::time_point m_host_time{};
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_stopping = false;
    std::atomic<bool> m_stopping_relaxed{false};         // for busy-waits that do not take the mutex
    std::atomic<Clock::rep> m_lag{0};                    // how far the model's clock is behind the real one
    std::atomic<std::uint64_t> m_release_generation{0};  // releases so far; written under m_mutex
    Clock::time_point m_released_at{};                   // the last release's modelled time
    ApiResult m_sticky;
    std::vector<StreamPtr> m_streams;
};

}  // namespace gpuconform::sim
