// Holds the declared floors and roles (async.copy.bandwidth's and async.copy.bidirectional's) to the data they come
// from: 20 full runs of one idle H200 (reports/samples/ubuntu24.04-h200-2026-12-02-trust/repeats/, summed up with
// reports/tools/figure_spread.py in figure-spread.md next to them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "checks/declarations.hpp"
#include "core/profile.hpp"
#include "core/result.hpp"
#include "reports/diff.hpp"
#include "reports/report_set.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

// The rule (reports/README.md "How diff tells a regression from noise").
constexpr double k_spread_limit = 0.20;
constexpr double k_margin = 1.2;

const std::string k_samples = std::string(test_paths::source_dir) + "/reports/samples/";

std::vector<std::string> repeat_paths() {
    std::vector<std::string> out;
    for (int i = 1; i <= 20; ++i) {
        out.push_back(k_samples + "ubuntu24.04-h200-2026-12-02-trust/repeats/repeat-" + (i < 10 ? "0" : "") +
                      std::to_string(i) + ".json");
    }
    return out;
}

// Full runs of the same software on other H200 machines (fresh machines of one kind, days apart):
// a figure's spread and worst drop count them too, so a floor holds across machines, not only on one.
const std::vector<std::string> k_other_machines{"ubuntu24.04-h200-2026-12-01/full.json",
                                                "ubuntu24.04-h200-2026-12-01-bench/run1/full.json",
                                                "ubuntu24.04-h200-2026-12-01-bench/run2/full.json",
                                                "ubuntu24.04-h200-2026-12-01-profile/full.json",
                                                "ubuntu24.04-h200-2026-12-01-reader/full.json",
                                                "ubuntu24.04-h200-2026-12-01-speed/full.json",
                                                "ubuntu24.04-h200-2026-12-01-structure/full.json",
                                                "ubuntu24.04-h200-2026-12-04-fork-fixed/full.json",
                                                "ubuntu24.04-h200-2026-12-04-speed/before-full.json",
                                                "ubuntu24.04-h200-2026-12-04-speed/before-native.json",
                                                "ubuntu24.04-h200-2026-12-04-speed/after-full.json",
                                                "ubuntu24.04-h200-2026-12-04-speed/after-native.json"};

struct Run {
    double median, lo, hi;
};
struct Spread {
    std::string check, name, direction;
    std::vector<Run> runs;
};

// Every figure the runner stamped key when it recorded the repeats, by check id and name, with
// its runs there and on the other machines.
std::map<std::pair<std::string, std::string>, Spread> key_figures() {
    std::map<std::pair<std::string, std::string>, Spread> out;
    std::vector<std::string> paths = repeat_paths();
    for (const auto& other : k_other_machines) {
        paths.push_back(k_samples + other);
    }
    for (const std::string& path : paths) {
        const bool repeat = path.find("/repeats/") != std::string::npos;
        std::ifstream in(path);
        const nlohmann::json doc = nlohmann::json::parse(in);
        for (const auto& r : doc.at("results")) {
            for (const auto& m : r.at("measurements")) {
                if ((repeat && m.at("role") != "key") || (!repeat && out.count({r.at("id"), m.at("name")}) == 0) ||
                    m.at("value").is_null()) {
                    continue;
                }
                const double v = m.at("value");
                Spread& s = out[{r.at("id"), m.at("name")}];
                s.check = r.at("id");
                s.name = m.at("name");
                s.direction = m.at("direction");
                s.runs.push_back({v, m.at("min").is_null() ? v : m.at("min").get<double>(),
                                  m.at("max").is_null() ? v : m.at("max").get<double>()});
            }
        }
    }
    return out;
}

// How far one run's median lies beyond another run's min..max, the bad way: what the floor covers.
double worst_drop(const Spread& s) {
    double worst = 0.0;
    for (const Run& a : s.runs) {
        for (const Run& b : s.runs) {
            const double d =
                s.direction == "higher" ? (a.lo - b.median) / std::fabs(a.lo) : (b.median - a.hi) / std::fabs(a.hi);
            worst = std::max(worst, d);
        }
    }
    return worst;
}

double spread(const Spread& s) {
    std::vector<double> m;
    for (const Run& r : s.runs) {
        m.push_back(r.median);
    }
    std::sort(m.begin(), m.end());
    return (m.back() - m.front()) / std::fabs(median(m));
}

TEST(NoiseFloorData, EveryKeyFigureOfTheRepeatRunsIsDeclaredByItsOwnSpread) {
    const auto figures = key_figures();
    ASSERT_GE(figures.size(), 15u);
    for (const auto& [key, s] : figures) {
        ASSERT_GE(s.runs.size(), 20u) << s.check << " " << s.name;
        const auto meaning = declared_meaning(s.check, s.name);
        ASSERT_TRUE(meaning) << s.check << " " << s.name;
        const std::string what = s.check + " " + s.name + ": spread " + std::to_string(spread(s)) + ", worst drop " +
                                 std::to_string(worst_drop(s)) + ", floor " + std::to_string(meaning->noise_floor);
        if (spread(s) > k_spread_limit) {
            EXPECT_EQ(meaning->role, Role::Diagnostic) << what;
        } else {
            EXPECT_EQ(meaning->role, Role::Key) << what;
            EXPECT_GE(meaning->noise_floor + 1e-9, worst_drop(s) * k_margin) << what;
        }
    }
}

DiffSide side_of(const std::string& path) {
    ReadOptions o;
    o.measurements = true;
    return aggregate_side(read_reports({path}, o), {});
}

// One GPU model and driver: the 20 repeats with each other (no regression at all) and with the
// other H200 machines' full runs, both ways (no key figure beyond its floor: those runs come from
// releases with more or fewer checks, which the diff rightly lists).
TEST(NoiseFloorData, NoPairOfSameSoftwareH200RunsIsARegression) {
    std::vector<DiffSide> repeats;
    for (const std::string& p : repeat_paths()) {
        repeats.push_back(side_of(p));
    }
    std::vector<DiffSide> others;
    for (const auto& f : k_other_machines) {
        others.push_back(side_of(k_samples + f));
    }
    int pairs = 0;
    const auto expect_no_regression = [&](const DiffSide& a, const DiffSide& b) {
        const DiffResult d = compare_sides(a, b, {});
        EXPECT_FALSE(d.regressed()) << render_diff_terminal(d, false);
        ++pairs;
    };
    const auto expect_no_figure_regression = [&](const DiffSide& a, const DiffSide& b) {
        const DiffResult d = compare_sides(a, b, {});
        EXPECT_EQ(d.key_regressions(), 0u) << render_diff_terminal(d, false);
        ++pairs;
    };
    for (std::size_t a = 0; a < repeats.size(); ++a) {
        for (std::size_t b = 0; b < repeats.size(); ++b) {
            if (a != b) {
                expect_no_regression(repeats[a], repeats[b]);
            }
        }
        for (const DiffSide& o : others) {
            expect_no_figure_regression(repeats[a], o);
            expect_no_figure_regression(o, repeats[a]);
        }
    }
    EXPECT_EQ(pairs, 380 + 20 * 2 * static_cast<int>(k_other_machines.size()));
}

// A plateau figure 20% lower than in the same run, everything else alike, is still a regression.
TEST(NoiseFloorData, ATwentyPercentDropOfAPlateauFigureIsStillARegression) {
    for (const std::string& path : repeat_paths()) {
        const DiffSide base = side_of(path);
        for (const char* name : {"bw_pinned_H2D_256MiB", "bw_pinned_D2H_256MiB"}) {
            DiffSide slow = base;
            Figure& f = slow.figures.at({"async.copy.bandwidth [cuda:0]", name});
            for (double& v : f.medians) {
                v *= 0.8;
            }
            f.lo *= 0.8;
            f.hi *= 0.8;
            const DiffResult d = compare_sides(base, slow, {});
            EXPECT_TRUE(d.regressed()) << path << " " << name << "\n" << render_diff_terminal(d, false);
            EXPECT_EQ(d.key_regressions(), 1u) << path << " " << name;
        }
    }
}

// --quick's torch overlap ratio between runs of one unchanged H100: each trial is ~1.3 ms timed by
// the host, so the trials --quick takes decide whether one slow trial reads as a regression
// (reports/samples/ubuntu24.04-h100-2026-12-05-quick-noise: at 2 trials 7 of 56 pairs of 8 runs
// did; at 5, none).
std::vector<std::string> quick_overlap_runs(char variant) {
    std::vector<std::string> out;
    for (int i = 1; i <= 8; ++i) {
        out.push_back(k_samples + "ubuntu24.04-h100-2026-12-05-quick-noise/runs/" + variant + "-" + std::to_string(i) +
                      ".json");
    }
    return out;
}

int regressed_pairs(const std::vector<std::string>& paths) {
    int regressed = 0;
    for (const auto& a : paths) {
        for (const auto& b : paths) {
            if (a != b && compare_sides(side_of(a), side_of(b), {}).regressed()) {
                ++regressed;
            }
        }
    }
    return regressed;
}

double quick_expectation(const std::string& key) {
    return Profile::builtin(profile_catalogue())
        .lookup("framework.torch.overlap_copy_compute", key, "nvidia", "sm_90", true)
        .value_or(-1);
}

TEST(NoiseFloorData, QuickTorchOverlapRunsAtTheProfilesTrialsAreNoRegressionOfEachOther) {
    // The runs held to this are those taken with what --quick now asks for.
    for (const auto& path : quick_overlap_runs('C')) {
        std::ifstream in(path);
        const auto doc = nlohmann::json::parse(in);
        const auto& expectation = doc.at("results").at(0).at("expectation");
        ASSERT_EQ(doc.at("results").at(0).at("id"), "framework.torch.overlap_copy_compute") << path;
        EXPECT_EQ(expectation.at("trials").get<double>(), quick_expectation("trials")) << path;
        EXPECT_EQ(expectation.at("size_bytes").get<double>(), quick_expectation("size_bytes")) << path;
    }
    EXPECT_EQ(regressed_pairs(quick_overlap_runs('C')), 0);
    // The same machine at 2 trials: the data can tell the settings apart.
    EXPECT_GT(regressed_pairs(quick_overlap_runs('A')), 0);
}

}  // namespace
}  // namespace gpuconform
