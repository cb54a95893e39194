// Copy bandwidth measured with device events, and the pure verdict against the PCIe link.
#pragma once

#include <optional>
#include <string>

#include "async/toolkit.hpp"

namespace gpuconform::async {

struct CopyBandwidth {
    CopyKind kind;
    HostKind host;
    std::size_t bytes;
    Measurement gbps;  // median/min/max over the repetitions
};

// One untimed copy first, then `reps` copies each between two events; data verified afterwards.
CopyBandwidth measure_copy_bandwidth(Backend& b, StreamHandle s, CopyKind kind, HostKind host, std::size_t bytes,
                                     int reps, BufferSource from = {});
// `count` back-to-back pinned copies between one event pair: what the copy engine sustains.
double measure_copy_train(Backend& b, StreamHandle s, CopyKind kind, std::size_t bytes, int count,
                          BufferSource from = {});
void record_bandwidth(CheckResult& r, const CopyBandwidth& m);

struct LinkJudgement {
    double pinned_h2d_gbps = 0;
    double pinned_d2h_gbps = 0;
    double link_gbps = 0;  // raw per-direction rate of the trained link; 0 when unknown
    std::string link_label;
    std::optional<double> efficiency_min;     // fraction of link_gbps required
    std::optional<double> absolute_min_gbps;  // a fleet's own floor, when set
};
struct BandwidthVerdict {
    Status status;
    std::string summary;
    std::string remediation;
};
BandwidthVerdict judge_pinned_bandwidth(const LinkJudgement& in);

}  // namespace gpuconform::async
