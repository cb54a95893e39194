// acceptance.copy.soak: pinned copies in both directions at once for the check's share of the
// budget (divided between the GPUs: copies run one GPU at a time, since GPUs can share a host
// link), every byte verified on the device: host-to-device data against its pattern, and
// device-to-host data after it is copied back. The link's error counters (PCIe replays, NVLink
// replay/recovery/CRC: the health layer's readers) are read before and after; growth warns.
#include <algorithm>
#include <cctype>
#include <vector>

#include <fmt/format.h>

#include "acceptance/common.hpp"
#include "acceptance/judges.hpp"
#include "async/toolkit.hpp"
#include "health/health_reading.hpp"

namespace gpuconform {

namespace {

using namespace acceptance;

constexpr double k_share = 0.15;  // of --budget

// One PCI address however it is written: NVML says "00000000:18:00.0" (8-digit domain, upper case),
// the runtime "0000:18:00.0".
bool same_pci_address(const std::string& a, const std::string& b) {
    const auto split = [](const std::string& x) {
        const auto colon = x.find(':');
        std::string rest = colon == std::string::npos ? x : x.substr(colon + 1);
        for (auto& ch : rest) {
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        }
        const unsigned long domain = colon == std::string::npos ? 0 : std::stoul(x.substr(0, colon), nullptr, 16);
        return std::make_pair(domain, rest);
    };
    try {
        return split(a) == split(b);
    } catch (const std::exception&) {
        return a == b;
    }
}

// The GPU's link error counters, by name; empty with *why when they cannot be read.
std::vector<CounterGrowth> read_counters(const CheckContext& ctx, std::string* why) {
    const std::string backend = ctx.backend->name();
    std::unique_ptr<HealthReader> reader;
    if (backend == "cuda") {
        reader = make_nvml_health_reader({ctx.props.pci_bus_id});
    } else if (backend == "hip") {
        reader = make_amdgpu_health_reader("/", {ctx.props.pci_bus_id});
    } else {
        *why = "the simulated device has no link counters";
        return {};
    }
    const NodeHealth node = reader->read();
    for (const auto& g : node.gpus) {
        if (!same_pci_address(g.pci_bus_id, ctx.props.pci_bus_id)) {
            continue;
        }
        std::vector<CounterGrowth> out;
        if (g.pcie_replays.ok()) {
            out.push_back({"PCIe replays", 0, *g.pcie_replays.value});
        }
        if (g.nvlinks.ok()) {
            for (const auto& l : *g.nvlinks.value) {
                const std::pair<const char*, const Read<std::uint64_t>*> counters[]{{"replay", &l.replay},
                                                                                    {"recovery", &l.recovery},
                                                                                    {"CRC flit", &l.crc_flit},
                                                                                    {"CRC data", &l.crc_data}};
                for (const auto& [name, value] : counters) {
                    if (value->ok()) {
                        out.push_back({fmt::format("NVLink {} {}", l.link, name), 0, *value->value});
                    }
                }
            }
        }
        if (out.empty()) {
            *why = g.pcie_replays.why();
        }
        return out;
    }
    *why = node.error.empty() ? fmt::format("{} did not list {}", reader->name(), ctx.props.pci_bus_id) : node.error;
    return {};
}

int devices_in_turn(const CheckContext& ctx) {
    if (ctx.backend_info == nullptr || ctx.backend_info->devices.empty()) {
        return 1;
    }
    int chosen = 0;
    for (int d = 0; d < static_cast<int>(ctx.backend_info->devices.size()); ++d) {
        chosen += device_chosen(ctx.options, d) ? 1 : 0;
    }
    return std::max(chosen, 1);
}

void run_soak(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    (void)ops_of(ctx);
    Budget budget(ctx, k_share, devices_in_turn(ctx));
    const auto bytes = static_cast<std::size_t>(ctx.expect(r, "copy_bytes"));

    std::string not_read;
    const std::vector<CounterGrowth> before = read_counters(ctx, &not_read);

    const async::BufferSource fresh{};
    async::HostBuffer h2d_src(b, bytes, async::HostKind::Pinned, fresh),
        d2h_dst(b, bytes, async::HostKind::Pinned, fresh);
    async::DeviceBuffer h2d_dst(b, bytes, fresh), d2h_src(b, bytes, fresh), returned(b, bytes, fresh);
    async::Stream up(b, StreamKind::NonBlocking), down(b, StreamKind::NonBlocking);
    async::Event start(b), up_done(b), down_done(b);
    const std::uint32_t up_seed = async::fresh_seed();
    h2d_src.fill(up_seed);

    double moved = 0;
    std::vector<double> gbps;
    int rounds = 0;
    for (; budget.another_round(); ++rounds) {
        // Fresh device data each round, and the destinations overwritten, so no round passes on
        // data an earlier one left.
        const std::uint32_t down_seed = async::fresh_seed();
        GC_CHECK(b.launch_fill(down, d2h_src.data(), d2h_src.words(), down_seed));
        GC_CHECK(b.launch_fill(up, h2d_dst.data(), h2d_dst.words(), down_seed ^ 0x5a5a5a5au));
        GC_CHECK(b.launch_fill(down, returned.data(), returned.words(), up_seed ^ 0xa5a5a5a5u));
        GC_CHECK(b.device_synchronize());
        GC_CHECK(b.event_record(start, up));
        GC_CHECK(b.stream_wait_event(down, start));
        GC_CHECK(b.memcpy_async(h2d_dst.data(), h2d_src.data(), bytes, CopyKind::HostToDevice, up));
        GC_CHECK(b.memcpy_async(d2h_dst.data(), d2h_src.data(), bytes, CopyKind::DeviceToHost, down));
        GC_CHECK(b.event_record(up_done, up));
        GC_CHECK(b.event_record(down_done, down));
        GC_CHECK(b.stream_synchronize(up));
        GC_CHECK(b.stream_synchronize(down));
        float up_ms = 0, down_ms = 0;
        GC_CHECK(b.event_elapsed_ms(start, up_done, &up_ms));
        GC_CHECK(b.event_elapsed_ms(start, down_done, &down_ms));
        gbps.push_back(2.0 * static_cast<double>(bytes) / (std::max(up_ms, down_ms) * 1e6));
        // What came down goes back up to be checked on the device, next to what went up.
        GC_CHECK(b.memcpy_async(returned.data(), d2h_dst.data(), bytes, CopyKind::HostToDevice, down));
        moved += 3.0 * static_cast<double>(bytes);
        if (const auto bad = async::device_mismatches(b, up, h2d_dst, up_seed); bad != 0) {
            throw WrongData(fmt::format("round {}: {} of {} words copied host to device arrived wrong", rounds + 1, bad,
                                        h2d_dst.words()));
        }
        if (const auto bad = async::device_mismatches(b, down, returned, down_seed); bad != 0) {
            throw WrongData(fmt::format("round {}: {} of {} words copied device to host (and back) arrived wrong",
                                        rounds + 1, bad, returned.words()));
        }
    }
    const std::vector<CounterGrowth> after_read = read_counters(ctx, &not_read);
    std::vector<CounterGrowth> counters;
    for (const auto& a : after_read) {
        for (const auto& bf : before) {
            if (bf.name == a.name) {
                counters.push_back({a.name, bf.after, a.after});
            }
        }
    }
    r.measurements.push_back(async::single("soak_gib", moved / (1ull << 30), "GiB"));
    r.measurements.push_back(summarize("bidirectional_gbps", "GB/s", gbps));
    r.facts["rounds"] = rounds;
    r.facts["copy_bytes"] = bytes;
    r.facts["soak_s"] = budget.elapsed_s();
    nlohmann::json read = nlohmann::json::array();
    for (const auto& c : counters) {
        read.push_back({{"counter", c.name}, {"before", c.before}, {"after", c.after}});
    }
    r.facts["link_counters"] = read;
    if (counters.empty()) {
        r.facts["link_counters_not_read"] = not_read;
    }
    const Verdict v = judge_soak_counters(counters, not_read);
    r.status = v.status;
    r.summary = fmt::format("{:.1f} GiB over {} rounds in {:.1f} s, every byte right ({:.1f} GB/s both ways); {}",
                            moved / (1ull << 30), rounds, budget.elapsed_s(),
                            summarize("x", "", gbps).value.value_or(0), v.summary);
    if (v.status == Status::Warn) {
        r.remediation =
            "link errors grew under load: reseat the GPU or its riser, check the cable or NVSwitch tray "
            "(health.pcie_errors, health.nvlink)";
    }
}

}  // namespace

CheckDef make_acceptance_copy_soak() {
    CheckDef d;
    d.id = "acceptance.copy.soak";
    d.profile_keys = {
        keys::copy_bytes(),
    };
    d.measurements = {
        measure::diagnostic("bidirectional_gbps", Direction::Higher, 0.10),
        measure::diagnostic("*", Direction::None, 0.00),
    };
    d.layer = "acceptance";
    d.description = "Bidirectional pinned copies for a share of the budget, every byte verified, link counters read";
    d.scope = Scope::Device;
    d.timing_sensitive = true;
    d.budget_share = k_share;
    d.caught_by = {"copies_corrupt_soak"};
    d.run = run_soak;
    return d;
}

}  // namespace gpuconform
