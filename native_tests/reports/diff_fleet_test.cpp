// `diff` of fleets: each host compared with itself, and what changed about a node judged, not
// excused. Every case is a real H200 report (the structure sample) changed the way a node breaks.
#include <gtest/gtest.h>

#include <algorithm>

#include "reports/diff.hpp"
#include "report_builder.hpp"
#include "reports/report_set.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

nlohmann::json h200_report() {
    return test::load_json(std::string(test_paths::source_dir) +
                           "/reports/samples/ubuntu24.04-h200-2026-12-01-structure/full.json");
}

// The same report as run on `host` on night `night`.
nlohmann::json on_host(nlohmann::json doc, const std::string& host, int night) {
    doc["environment"]["hostname"] = host;
    doc["run"]["id"] = host + "-night" + std::to_string(night);
    return doc;
}

// Halves every key bandwidth figure of async.copy.bandwidth and fails the check, as a node
// whose copies lost half their link would.
nlohmann::json halve_bandwidth(nlohmann::json doc) {
    for (auto& r : doc["results"]) {
        if (r["id"] != "async.copy.bandwidth") {
            continue;
        }
        r["status"] = "fail";
        for (auto& m : r["measurements"]) {
            for (const char* k : {"value", "min", "max"}) {
                if (m[k].is_number()) {
                    m[k] = m[k].get<double>() / 2;
                }
            }
            m.erase("samples");
        }
    }
    return doc;
}

// The GPU's link trained at x8 instead of x16: host.pcie.link fails and says so.
nlohmann::json narrow_link(nlohmann::json doc) {
    for (auto& g : doc["environment"]["pci_gpus"]) {
        g["current_width"] = 8;
    }
    for (auto& r : doc["results"]) {
        if (r["id"] != "host.pcie.link") {
            continue;
        }
        r["status"] = "fail";
        for (auto& m : r["measurements"]) {
            if (m["name"].get<std::string>().ends_with(" current_width")) {
                m["value"] = 8.0;
            }
        }
    }
    return doc;
}

nlohmann::json with_gpu(nlohmann::json doc, const std::string& model) {
    for (auto& d : doc["devices"]) {
        d["name"] = model;
    }
    return doc;
}

nlohmann::json with_driver(nlohmann::json doc, const std::string& version) {
    for (auto& b : doc["backends"]) {
        if (b["driver_version"].is_string()) {
            b["driver_version"] = version;
        }
    }
    return doc;
}

struct Fleets {
    test::ScratchDir dir{"difffleet"};
    void add(int night, const nlohmann::json& doc) {
        dir.write("night" + std::to_string(night) + "/" + doc["run"]["id"].get<std::string>() + ".json", doc.dump());
    }
    DiffResult diff() const { return diff_paths(dir.path() + "/night1", dir.path() + "/night2"); }
    static DiffResult diff_paths(const std::string& base, const std::string& now) {
        ReadOptions o;
        o.measurements = true;
        o.problems = true;
        FleetSide b = aggregate_fleet(read_reports({base}, o), {});
        FleetSide n = aggregate_fleet(read_reports({now}, o), {});
        read_selections(b, n);
        return compare_fleets(b, n, {});
    }
};

bool has(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

// Night 1: node2 already fails async.copy.bandwidth; night 2: node1 fails it too. Folded worst-of
// per check, both nights read "fail" and the halved figures lie inside the fleet's spread.
TEST(DiffFleet, ASecondNodeFailingACheckIsARegressionOfThatNode) {
    Fleets f;
    const nlohmann::json base = h200_report();
    f.add(1, on_host(base, "node1", 1));
    f.add(1, halve_bandwidth(on_host(base, "node2", 1)));
    f.add(2, halve_bandwidth(on_host(base, "node1", 2)));
    f.add(2, halve_bandwidth(on_host(base, "node2", 2)));
    const DiffResult d = f.diff();
    EXPECT_TRUE(d.regressed()) << render_diff_terminal(d, false);
    EXPECT_EQ(d.regressed_hosts, std::vector<std::string>{"node1"});
    EXPECT_EQ(diff_exit_code(d), 1);
    EXPECT_NE(render_diff_terminal(d, false).find("verdict: REGRESSED (node1)"), std::string::npos)
        << render_diff_terminal(d, false);
    EXPECT_NE(render_diff_markdown(d).find("REGRESSED (node1)"), std::string::npos);
    EXPECT_EQ(diff_to_json(d).at("hosts").at("regressed"), nlohmann::json::array({"node1"}));
    // Every change is named by its host.
    for (const StatusChange& c : d.statuses) {
        EXPECT_EQ(c.host, "node1") << c.label;
    }
}

TEST(DiffFleet, AVanishedNodeIsARegressionAndANewOneIsListed) {
    Fleets f;
    const nlohmann::json base = h200_report();
    for (const char* h : {"node1", "node2", "node3"}) {
        f.add(1, on_host(base, h, 1));
    }
    for (const char* h : {"node1", "node2", "node4"}) {
        f.add(2, on_host(base, h, 2));
    }
    const DiffResult d = f.diff();
    EXPECT_TRUE(d.regressed());
    EXPECT_EQ(d.vanished_hosts, std::vector<std::string>{"node3"});
    EXPECT_EQ(d.new_hosts, std::vector<std::string>{"node4"});
    EXPECT_TRUE(d.regressed_hosts.empty());
    EXPECT_EQ(diff_exit_code(d), 1);
    const std::string text = render_diff_terminal(d, false);
    EXPECT_NE(text.find("verdict: REGRESSED (node3 vanished)"), std::string::npos) << text;
    EXPECT_NE(text.find("new host: node4"), std::string::npos) << text;
}

// One node replaced by another GPU model is not the same node for that host only: the others
// are still compared, and the fleet's diff is judged (no exit 4 for all of it).
TEST(DiffFleet, ANodeOfAnotherModelIsNotTheSameNodeForThatHostOnly) {
    Fleets f;
    const nlohmann::json base = h200_report();
    f.add(1, on_host(base, "node1", 1));
    f.add(1, on_host(base, "node2", 1));
    f.add(2, halve_bandwidth(on_host(base, "node1", 2)));
    f.add(2, halve_bandwidth(with_gpu(on_host(base, "node2", 2), "NVIDIA H100 80GB HBM3")));
    const DiffResult d = f.diff();
    ASSERT_EQ(d.different_nodes.size(), 1u);
    EXPECT_NE(d.different_nodes[0].find("node2"), std::string::npos) << d.different_nodes[0];
    EXPECT_EQ(d.regressed_hosts, std::vector<std::string>{"node1"});
    EXPECT_EQ(diff_exit_code(d), 1);

    Fleets same;
    same.add(1, on_host(base, "node1", 1));
    same.add(1, on_host(base, "node2", 1));
    same.add(2, on_host(base, "node1", 2));
    same.add(2, with_gpu(on_host(base, "node2", 2), "NVIDIA H100 80GB HBM3"));
    const DiffResult s = same.diff();
    EXPECT_FALSE(s.regressed()) << render_diff_terminal(s, false);
    EXPECT_EQ(diff_exit_code(s), 0);
    EXPECT_NE(render_diff_terminal(s, false).find("could not compare node2"), std::string::npos)
        << render_diff_terminal(s, false);
}

TEST(DiffNodeChange, ANarrowedLinkIsARegressionNamedAndTheFiguresAreStillJudged) {
    Fleets f;
    const nlohmann::json base = h200_report();
    f.add(1, on_host(base, "vm", 1));
    f.add(2, halve_bandwidth(narrow_link(on_host(base, "vm", 2))));
    const DiffResult d = f.diff();
    EXPECT_TRUE(d.different_nodes.empty());
    ASSERT_EQ(d.links.size(), 1u);
    EXPECT_EQ(d.links[0].change, Change::Worse);
    EXPECT_EQ(d.links[0].text(), "link x16 → x8");
    EXPECT_GT(d.key_regressions(), 5u);
    EXPECT_EQ(diff_exit_code(d), 1);
    EXPECT_NE(render_diff_terminal(d, false).find("link x16 → x8"), std::string::npos);

    // The link alone, figures unchanged: still a regression.
    Fleets link_only;
    link_only.add(1, on_host(base, "vm", 1));
    link_only.add(2, narrow_link(on_host(base, "vm", 2)));
    EXPECT_TRUE(link_only.diff().regressed());
}

TEST(DiffNodeChange, ADriverUpgradeIsTheChangeUnderTestAndItsFiguresAreJudged) {
    Fleets f;
    const nlohmann::json base = with_driver(h200_report(), "570.172.08");
    f.add(1, on_host(base, "vm", 1));
    f.add(2, halve_bandwidth(with_driver(on_host(base, "vm", 2), "580.95.05")));
    const DiffResult d = f.diff();
    EXPECT_TRUE(d.different_nodes.empty());
    EXPECT_TRUE(d.regressed());
    EXPECT_EQ(diff_exit_code(d), 1);
    EXPECT_NE(render_diff_terminal(d, false).find("change under test: driver: 570.172.08 → 580.95.05"),
              std::string::npos)
        << render_diff_terminal(d, false);

    Fleets same;
    same.add(1, on_host(base, "vm", 1));
    same.add(2, with_driver(on_host(base, "vm", 2), "580.95.05"));
    const DiffResult s = same.diff();
    EXPECT_FALSE(s.regressed()) << render_diff_terminal(s, false);
    EXPECT_EQ(diff_exit_code(s), 0);
}

// Two files compared by hand: another GPU model, or another host, is not the same node (exit 4).
TEST(DiffNodeChange, TwoFilesOfAnotherHostOrModelAreNotTheSameNode) {
    Fleets f;
    const nlohmann::json base = h200_report();
    f.add(1, on_host(base, "node1", 1));
    f.add(2, on_host(base, "node9", 2));
    f.add(3, with_gpu(on_host(base, "node1", 3), "NVIDIA H100 80GB HBM3"));
    const std::string dir = f.dir.path();
    for (const char* other : {"/night2/node9-night2.json", "/night3/node1-night3.json"}) {
        const DiffResult d = Fleets::diff_paths(dir + "/night1/node1-night1.json", dir + other);
        EXPECT_EQ(diff_exit_code(d), 4) << other;
        EXPECT_NE(render_diff_terminal(d, false).find("verdict: could not compare (not the same node"),
                  std::string::npos)
            << render_diff_terminal(d, false);
    }
}

// Fleets of disjoint hosts (a Debian 12 group against a Debian 13 group) are compared as groups.
TEST(DiffFleet, SidesWithNoHostInCommonAreComparedAsGroups) {
    Fleets f;
    const nlohmann::json base = h200_report();
    f.add(1, on_host(base, "a1", 1));
    f.add(1, on_host(base, "a2", 1));
    f.add(2, on_host(base, "b1", 2));
    f.add(2, on_host(base, "b2", 2));
    const DiffResult d = f.diff();
    EXPECT_TRUE(d.grouped);
    EXPECT_FALSE(d.regressed()) << render_diff_terminal(d, false);
    EXPECT_EQ(diff_exit_code(d), 0);
}

}  // namespace
}  // namespace gpuconform

namespace gpuconform {
namespace {

nlohmann::json h200_health_report() {
    return test::load_json(std::string(test_paths::source_dir) +
                           "/reports/samples/ubuntu24.04-h200-2026-12-02-health/full.json");
}

// Adds `by` to the measurement `name` of the result `id`, its status left as it was.
nlohmann::json grow(nlohmann::json doc, const std::string& id, const std::string& name, double by) {
    for (auto& r : doc["results"]) {
        for (auto& m : r["measurements"]) {
            if (r["id"] == id && m["name"] == name) {
                m["value"] = m["value"].get<double>() + by;
            }
        }
    }
    return doc;
}

// A night later the GPU has recorded two uncorrectable ECC errors and two replays; every status
// is the same (a profile that tolerates some, a replay count judged only as a rate): the diff
// still names each counter and its GPU, as a regression, in every view.
TEST(DiffNodeChange, AHealthCounterThatGrewIsARegressionNamingItsGpu) {
    Fleets f;
    const nlohmann::json base = on_host(h200_health_report(), "vm", 1);
    f.add(1, base);
    f.add(2, grow(grow(on_host(h200_health_report(), "vm", 2), "health.ecc", "aggregate_uncorrected", 2),
                  "health.pcie_errors", "pcie_replays", 2));
    const DiffResult d = f.diff();
    ASSERT_EQ(d.counters.size(), 2u);
    std::vector<std::string> texts;
    for (const auto& c : d.counters) {
        texts.push_back(c.text());
    }
    EXPECT_TRUE(has(texts, "ECC uncorrectable +2 on cuda:0"));
    EXPECT_TRUE(has(texts, "PCIe replays +2 on cuda:0"));
    EXPECT_TRUE(d.statuses.empty()) << "no status changed";
    EXPECT_TRUE(d.regressed());
    EXPECT_EQ(diff_exit_code(d), 1);
    EXPECT_NE(render_diff_terminal(d, false).find("worse ECC uncorrectable +2 on cuda:0 (0 → 2)"), std::string::npos)
        << render_diff_terminal(d, false);
    EXPECT_NE(render_diff_markdown(d).find("ECC uncorrectable +2 on cuda:0"), std::string::npos);
    const nlohmann::json j = diff_to_json(d);
    ASSERT_EQ(j["counters"].size(), 2u);
    EXPECT_EQ(j["counters"][0]["gpu"], "cuda:0");
    for (const auto& m : d.measurements) {
        EXPECT_FALSE(m.label.starts_with("health.ecc")) << "a counter is judged by growth, not the noise rule";
    }

    // Correctable ECC errors (corrected by design) and a counter that went down (a reset) are no regression.
    Fleets calm;
    calm.add(1, grow(base, "health.pcie_errors", "pcie_replays", 5));
    calm.add(2, grow(on_host(h200_health_report(), "vm", 2), "health.ecc", "aggregate_corrected", 40));
    EXPECT_TRUE(calm.diff().counters.empty());
    EXPECT_FALSE(calm.diff().regressed());
}

}  // namespace
}  // namespace gpuconform
