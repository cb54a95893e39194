// acceptance.memory.pattern_test: a GPU memory test over a share of the free memory (the profile's
// free_memory_ratio, 90 % by default), in rounds of the classic patterns (cuda_memtest's and
// MemTest86's: walking ones, walking zeros, moving inversions of a solid word and its complement,
// address in address, random data), as many rounds as the budget's share allows. A word that
// reads back other than written fails naming its address, the pattern and the round.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "acceptance/common.hpp"
#include "async/toolkit.hpp"

namespace gpuconform {

namespace {

using namespace acceptance;

constexpr double k_share = 0.25;            // of --budget
constexpr std::size_t k_granule = 2 << 20;  // allocations in whole 2 MiB pages
constexpr int k_allocation_attempts = 8;    // each 5 % smaller: free memory is not all one piece

struct Pass {
    const char* name;
    MemPattern pattern;
    std::uint64_t param;  // for Solid: the word; else mixed with the round
    bool moving_inversion;
};

const Pass k_passes[]{
    {"walking ones", MemPattern::WalkingOnes, 0, false},
    {"walking zeros", MemPattern::WalkingZeros, 0, false},
    {"moving inversions 0x5555...", MemPattern::Solid, 0x5555555555555555ull, true},
    {"moving inversions 0x0000...", MemPattern::Solid, 0, true},
    {"address in address", MemPattern::AddressInAddress, 0, false},
    {"random", MemPattern::Random, 0, false},
};

std::unique_ptr<DeviceMemory> allocate(Backend& b, std::size_t wanted, std::size_t* got) {
    std::size_t bytes = wanted / k_granule * k_granule;
    for (int i = 0; i < k_allocation_attempts && bytes >= k_granule; ++i) {
        void* probe = nullptr;
        if (b.device_alloc(bytes, &probe).ok()) {
            (void)b.device_free(probe);
            *got = bytes;
            return std::make_unique<DeviceMemory>(b, bytes);
        }
        (void)b.last_error();  // an allocation failure is not sticky; clear it
        bytes = bytes / 20 * 19 / k_granule * k_granule;
    }
    throw std::runtime_error(fmt::format("could not allocate even {} MiB of device memory", bytes >> 20));
}

struct Failure {
    std::uint64_t address = 0, read = 0, expected = 0, wrong = 0;
};

void run_memtest(CheckContext& ctx, CheckResult& r) {
    Backend& b = *ctx.backend;
    AcceptanceOps& ops = ops_of(ctx);
    Budget budget(ctx, k_share);
    const double ratio = ctx.expect(r, "free_memory_ratio");
    const int max_rounds = static_cast<int>(ctx.expect(r, "max_rounds"));

    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    call(ops.memory_info(&free_bytes, &total_bytes), "memory info");
    std::size_t bytes = 0;
    const auto memory = allocate(b, static_cast<std::size_t>(static_cast<double>(free_bytes) * ratio), &bytes);
    auto* words = memory->as<std::uint64_t>();
    const std::size_t count = bytes / 8;
    async::Stream s(b, StreamKind::NonBlocking);
    BadWordsOnDevice bad(b);

    // One check kernel and what it found; a wrong word is read back for the report.
    auto checked = [&](const Pass& p, std::uint64_t param, bool inverted, bool invert_after, Failure* f) {
        bad.reset(s);
        call(ops.launch_memtest_check(s, words, count, p.pattern, param, inverted, invert_after, bad.get()), "check");
        const BadWords seen = bad.read(s);
        if (seen.count == 0) {
            return true;
        }
        const std::uint64_t* at = words + seen.first_index;
        f->address = reinterpret_cast<std::uint64_t>(at);
        f->expected = memtest_word(p.pattern, seen.first_index, f->address, param, inverted);
        f->read = read_word(b, s, at);
        f->wrong = seen.count;  // a wrong word is left as read, even by an inverting pass
        return false;
    };

    double moved_bytes = 0;
    int rounds = 0;
    const auto start = async::Clock::now();
    for (; rounds < max_rounds && budget.another_round(); ++rounds) {
        for (const auto& p : k_passes) {
            const std::uint64_t param =
                p.pattern == MemPattern::Solid ? p.param : p.param + static_cast<std::uint64_t>(rounds) * 7919u;
            Failure f;
            call(ops.launch_memtest_write(s, words, count, p.pattern, param, false), "write");
            bool ok = checked(p, param, false, p.moving_inversion, &f);
            moved_bytes += static_cast<double>(bytes) * (p.moving_inversion ? 3 : 2);
            if (ok && p.moving_inversion) {
                ok = checked(p, param, true, false, &f);
                moved_bytes += static_cast<double>(bytes);
            }
            if (!ok) {
                r.status = Status::Fail;
                r.summary = fmt::format(
                    "{}: the word at device address 0x{:x} read 0x{:016x} where {} (round {}) "
                    "wrote 0x{:016x} ({} wrong word{} in {:.1f} GiB)",
                    gpu_name(ctx), f.address, f.read, p.name, rounds + 1, f.expected, f.wrong, f.wrong == 1 ? "" : "s",
                    static_cast<double>(bytes) / (1ull << 30));
                r.facts["bad_word"] = {{"address", fmt::format("0x{:x}", f.address)},
                                       {"offset_bytes", f.address - reinterpret_cast<std::uint64_t>(words)},
                                       {"pattern", p.name},
                                       {"round", rounds + 1},
                                       {"read", fmt::format("0x{:016x}", f.read)},
                                       {"expected", fmt::format("0x{:016x}", f.expected)},
                                       {"wrong_words", f.wrong}};
                r.remediation =
                    "a memory cell that does not hold its value: check health.memory_remap and "
                    "health.ecc, drain the GPU, and RMA it if the address repeats";
                return;
            }
        }
    }
    const double seconds = async::ms_since(start) / 1e3;
    const double gib = static_cast<double>(bytes) / (1ull << 30);
    r.measurements.push_back(async::single("tested_gib", gib, "GiB"));
    r.measurements.push_back(async::single("rounds", rounds, "count"));
    r.measurements.push_back(async::single("test_gbps", moved_bytes / seconds / 1e9, "GB/s"));
    r.facts["free_bytes"] = free_bytes;
    r.facts["total_bytes"] = total_bytes;
    r.facts["tested_bytes"] = bytes;
    r.facts["passes_per_round"] = std::size(k_passes);
    if (rounds < max_rounds) {
        r.facts["shortened"] =
            fmt::format("{} of {} rounds fit the {:.1f} s share of the budget", rounds, max_rounds, budget.seconds());
    }
    r.status = Status::Pass;
    r.summary = fmt::format(
        "{:.1f} GiB ({:.0f}% of free memory) held every pattern over {} round{} of {} passes, "
        "{:.0f} GB/s",
        gib, static_cast<double>(bytes) / static_cast<double>(free_bytes) * 100, rounds, rounds == 1 ? "" : "s",
        std::size(k_passes), moved_bytes / seconds / 1e9);
}

}  // namespace

CheckDef make_acceptance_memory_pattern_test() {
    CheckDef d;
    d.id = "acceptance.memory.pattern_test";
    d.profile_keys = {
        keys::range("free_memory_ratio", 0.01, 0.99, false),
        keys::count("max_rounds"),
    };
    d.measurements = {
        measure::diagnostic("test_gbps", Direction::Higher, 0.10),
        measure::diagnostic("*", Direction::None, 0.00),
    };
    d.layer = "acceptance";
    d.description = "GPU memory test: walking ones/zeros, moving inversions, address in address, random data";
    d.scope = Scope::Device;
    d.timing_sensitive = true;  // another user's memory is not ours to test, and its load slows ours
    d.parallel_devices = true;
    d.budget_share = k_share;
    d.caught_by = {"bad_memory_cell"};
    d.run = run_memtest;
    return d;
}

}  // namespace gpuconform
