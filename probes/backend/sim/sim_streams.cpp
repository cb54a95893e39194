// The simulated backend's stream and event calls: ordering lives in sim_scheduler.hpp; these
// calls resolve handles, apply the fault knobs and report errors the way CUDA does.
#include <chrono>

#include "backend/sim/sim_backend.hpp"
#include "backend/sim/sim_errors.hpp"

namespace gpuconform::sim {

ApiResult SimBackend::stream_create(StreamKind kind, StreamHandle* stream) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    if (m_devices.empty()) {
        return fail(sim_error(SimError::NoDevice, "no simulated device (devices=0)"));
    }
    const int device = current_device();
    std::lock_guard lock(m_state_mutex);
    const StreamHandle handle = m_next_handle++;
    m_streams[handle] = m_scheduler.create_stream(device, /*legacy=*/false, kind == StreamKind::Blocking);
    *stream = handle;
    return sim_ok();
}

ApiResult SimBackend::stream_destroy(StreamHandle stream) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    StreamPtr s;
    {
        std::lock_guard lock(m_state_mutex);
        const auto it = m_streams.find(stream);
        if (it != m_streams.end()) {
            s = it->second;
            m_streams.erase(it);
        }
    }
    if (!s) {
        return fail(sim_bad_handle("stream"));
    }
    m_scheduler.retire(s);  // queued work still runs, as with cudaStreamDestroy
    return sim_ok();
}

ApiResult SimBackend::stream_query(StreamHandle stream, bool* done) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const StreamPtr s = resolve_stream(stream);
    if (!s) {
        return fail(sim_bad_handle("stream"));
    }
    *done = m_scheduler.stream_idle(*s);
    return reported(failed_sticky());  // a fault that ran meanwhile shows up here
}

ApiResult SimBackend::stream_synchronize(StreamHandle stream) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const StreamPtr s = resolve_stream(stream);
    if (!s) {
        return fail(sim_bad_handle("stream"));
    }
    m_scheduler.wait_stream(*s);
    return reported(failed_sticky());
}

ApiResult SimBackend::stream_wait_event(StreamHandle stream, EventHandle event) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const StreamPtr s = resolve_stream(stream);
    const auto e = event_snapshot(event);
    if (!s || !e) {
        return fail(sim_bad_handle(s ? "event" : "stream"));
    }
    if (!e->recorded || device_of(*s).faults.has(Fault::EventsIgnored)) {
        return sim_ok();  // nothing recorded yet: nothing to wait for
    }
    enqueue(*s, TaskSpec{}, {e->recorded});
    return sim_ok();
}

ApiResult SimBackend::event_create(bool timing, EventHandle* event) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    std::lock_guard lock(m_state_mutex);
    const EventHandle handle = m_next_handle++;
    m_events[handle] = SimEvent{timing, nullptr};
    *event = handle;
    return sim_ok();
}

ApiResult SimBackend::event_destroy(EventHandle event) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    bool erased = false;
    {
        std::lock_guard lock(m_state_mutex);
        erased = m_events.erase(event) > 0;
    }
    return erased ? sim_ok() : fail(sim_bad_handle("event"));
}

ApiResult SimBackend::event_record(EventHandle event, StreamHandle stream) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const StreamPtr s = resolve_stream(stream);
    if (!s || !event_snapshot(event)) {
        return fail(sim_bad_handle(s ? "event" : "stream"));
    }
    TaskPtr marker;
    if (device_of(*s).faults.has(Fault::EventsIgnored)) {
        marker = std::make_shared<Task>();  // stamped now, complete at once: no stream position
        marker->done = true;
        marker->finished = m_scheduler.host_call_now();
    } else {
        marker = enqueue(*s, TaskSpec{});
    }
    std::lock_guard lock(m_state_mutex);
    if (const auto it = m_events.find(event); it != m_events.end()) {
        it->second.recorded = marker;
    }
    return sim_ok();
}

ApiResult SimBackend::event_synchronize(EventHandle event) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const auto e = event_snapshot(event);
    if (!e) {
        return fail(sim_bad_handle("event"));
    }
    if (!e->recorded) {
        return sim_ok();  // an event never recorded has nothing to wait for
    }
    m_scheduler.wait_task(e->recorded);
    return reported(failed_sticky());
}

ApiResult SimBackend::event_elapsed_ms(EventHandle start, EventHandle end, float* ms) {
    if (auto s = failed_sticky(); !s.ok()) {
        return s;
    }
    const auto a = event_snapshot(start);
    const auto b = event_snapshot(end);
    if (!a || !b) {
        return fail(sim_bad_handle("event"));
    }
    if (!a->timing || !b->timing || !a->recorded || !b->recorded) {
        return fail(sim_error(SimError::InvalidResourceHandle,
                              "event_elapsed_ms needs two timing events that have been recorded"));
    }
    if (!m_scheduler.task_done(a->recorded) || !m_scheduler.task_done(b->recorded)) {
        return fail(sim_error(SimError::NotReady, "an event has not completed yet"));
    }
    const auto span = m_scheduler.task_finished(b->recorded) - m_scheduler.task_finished(a->recorded);
    *ms = std::chrono::duration<float, std::milli>(span).count();
    return sim_ok();
}

}  // namespace gpuconform::sim
