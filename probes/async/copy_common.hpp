// Gated copies shared by the copy checks: one copy behind a queued spin, classified, then the
// destination verified after the stream is synchronized.
#pragma once

#include <string>
#include <vector>

#include "async/toolkit.hpp"

namespace gpuconform::async {

struct GatedCopy {
    CopyKind kind = CopyKind::HostToDevice;
    HostKind host = HostKind::Pinned;
    std::size_t bytes = 0;
    GatedCall call;
    CallClass klass = CallClass::Undecided;
    std::uint64_t wrong_words = 0;  // destination words that differ from the source after sync
};

// Allocates, fills with a fresh pattern, makes the gated copy, synchronizes and verifies.
GatedCopy gated_copy(Backend& b, StreamHandle stream, CopyKind kind, HostKind host, std::size_t bytes,
                     std::uint64_t gate_ns, BufferSource from = {});

std::string direction_label(CopyKind kind);  // "H2D", "D2H"

// Records one gated copy as measurements (call time) and facts (class, return code).
void record_gated_copy(CheckResult& r, const GatedCopy& c);

// The sizes a copy check sweeps: the profile's list, shortened with --quick.
std::vector<std::size_t> sweep_sizes(bool quick, const std::vector<std::size_t>& full,
                                     const std::vector<std::size_t>& quick_sizes);

// Judges copies that are documented to return early (pinned, registered): fail on any copy that
// waited or delivered wrong data; error when a gate did not hold (no evidence); pass otherwise.
void judge_must_return_early(CheckResult& r, const std::vector<GatedCopy>& copies, const std::string& what);

}  // namespace gpuconform::async
