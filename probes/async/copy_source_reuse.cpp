// Reusing a copy's source buffer. (a) The hazard: overwriting a pinned source before its queued
// async copy ran corrupts the destination (shown, info). (b) Double buffering: two staging
// buffers, each refilled only after an event says its previous copy is done: must never corrupt.
#include <fmt/format.h>

#include "async/async_checks.hpp"
#include "async/mismatch_counter.hpp"

namespace gpuconform {

namespace {

constexpr std::size_t k_chunk = std::size_t{4} << 20;

struct Hazard {
    std::uint64_t overwritten = 0;  // destination words holding the data written after the call
    std::uint64_t words = 0;
    bool gate_held = false;  // the copy was still queued once the host had overwritten the source
};

// (a) The source overwritten right after the copy call, while a gate holds the copy back.
Hazard hazard(Backend& b, StreamHandle s, std::uint64_t gate_ns, async::MismatchCounter& counter, CheckResult& r) {
    async::HostBuffer src(b, k_chunk, async::HostKind::Pinned);
    async::DeviceBuffer dst(b, k_chunk);
    const std::uint32_t first = async::fresh_seed();
    const std::uint32_t second = async::fresh_seed();
    src.fill(first);
    GC_CHECK(b.launch_releasable_spin(s, gate_ns));
    GC_CHECK(b.memcpy_async(dst.data(), src.data(), k_chunk, CopyKind::HostToDevice, s));
    src.fill(second);  // the mistake: the copy has not run yet
    bool done = false;
    GC_CHECK(b.stream_query(s, &done));
    GC_CHECK(b.release_spins());  // the overwrite is done: the copy may run now
    GC_CHECK(b.stream_synchronize(s));
    const std::uint64_t words = dst.words();
    const std::uint64_t old_words = words - counter.count(s, dst.data(), dst.words(), first);
    const std::uint64_t new_words = words - counter.count(s, dst.data(), dst.words(), second);
    r.facts["hazard"] = {{"copy_still_queued_after_overwrite", !done},
                         {"words_with_data_at_call", old_words},
                         {"words_with_data_written_after", new_words}};
    return {new_words, words, !done};
}

// (b) Returns the number of chunks that arrived wrong.
int double_buffered(Backend& b, StreamHandle s, std::uint64_t gate_ns, int chunks, async::MismatchCounter& counter) {
    async::HostBuffer stage0(b, k_chunk, async::HostKind::Pinned);
    async::HostBuffer stage1(b, k_chunk, async::HostKind::Pinned);
    async::HostBuffer* stage[2] = {&stage0, &stage1};
    async::Event copied0(b, false), copied1(b, false);
    async::Event* copied[2] = {&copied0, &copied1};
    async::DeviceBuffer dst(b, k_chunk * static_cast<std::size_t>(chunks));
    std::vector<std::uint32_t> seeds;
    GC_CHECK(b.launch_spin(s, gate_ns));  // holds the copies back, so a refill that does not wait shows
    for (int c = 0; c < chunks; ++c) {
        const int i = c % 2;
        if (c >= 2) {
            GC_CHECK(b.event_synchronize(*copied[i]));
        }
        seeds.push_back(async::fresh_seed());
        stage[i]->fill(seeds.back());
        std::uint32_t* to = dst.data() + static_cast<std::size_t>(c) * (k_chunk / 4);
        GC_CHECK(b.memcpy_async(to, stage[i]->data(), k_chunk, CopyKind::HostToDevice, s));
        GC_CHECK(b.event_record(*copied[i], s));
    }
    GC_CHECK(b.stream_synchronize(s));
    int wrong = 0;
    for (int c = 0; c < chunks; ++c) {
        const std::uint32_t* at = dst.data() + static_cast<std::size_t>(c) * (k_chunk / 4);
        wrong += counter.count(s, at, k_chunk / 4, seeds[static_cast<std::size_t>(c)]) != 0 ? 1 : 0;
    }
    return wrong;
}

void run(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    async::Stream s(b, StreamKind::NonBlocking);
    async::warm_up(b, s);
    async::MismatchCounter counter(b, s);
    const std::uint64_t gate = async::gate_ns(ctx, r);
    const int chunks = static_cast<int>(ctx.expect(r, "chunks"));
    const Hazard h = hazard(b, s, gate, counter, r);
    const int wrong = double_buffered(b, s, gate, chunks, counter);
    r.measurements.push_back(async::single("hazard_overwritten_words", static_cast<double>(h.overwritten), "words"));
    r.measurements.push_back(async::single("double_buffered_wrong_chunks", wrong, "chunks"));
    std::string shown =
        "overwriting the source right after the call did not corrupt the destination: the copy "
        "was effectively synchronous here";
    if (h.overwritten > 0) {
        shown = fmt::format(
            "overwriting the source before the copy was done corrupted the destination ({} of {} "
            "words held the later data)",
            h.overwritten, h.words);
    } else if (h.gate_held) {
        shown =
            "the source was overwritten while its copy was still queued, yet the destination held the data at "
            "the call: the runtime staged the copy";
    }
    if (wrong > 0) {
        r.status = Status::Fail;
        r.summary =
            fmt::format("double buffering ordered by events delivered {} of {} chunks wrong; {}", wrong, chunks, shown);
        r.remediation =
            "event_synchronize returned before the copy that read the buffer had run: events do not "
            "order host reuse on this install; report the driver and runtime versions";
        return;
    }
    r.status = Status::Pass;
    r.summary = fmt::format("double buffering with events delivered all {} chunks of 4 MiB intact; {}", chunks, shown);
}

}  // namespace

CheckDef make_async_copy_source_reuse() {
    CheckDef d;
    d.id = "async.copy.source_reuse";
    d.profile_keys = {
        keys::ms("gate_ms"),
        keys::count("chunks"),
    };
    d.measurements = {
        measure::diagnostic("double_buffered_wrong_chunks", Direction::Lower, 0.00),
        measure::diagnostic("hazard_overwritten_words", Direction::None, 0.00),
    };
    d.caught_by = {"events_ignored", "copies_corrupt"};
    d.timing_sensitive = false;  // data correctness
    d.layer = "async";
    d.description = "Overwriting an async copy's source too early corrupts it; event-ordered double buffering does not";
    d.scope = Scope::Device;
    d.timeout_s = 20;
    d.run = run;
    return d;
}

}  // namespace gpuconform
