// A diff of fleets: each host compared with itself (the same hostname on both sides), then the
// fleet summarised. Folding statuses across hosts (worst of) would let one node's failure hide
// another's: that fold is the matrix's, never the diff verdict's.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "reports/diff.hpp"
#include "reports/report_set.hpp"

namespace gpuconform {

namespace {

// An environment change ("driver: A → B") and the hosts it happened on, in the order first seen.
using HostsByChange = std::vector<std::pair<std::string, std::vector<std::string>>>;

void fill_selections(DiffSide& side, std::map<std::string, RunSelection>& cache) {
    side.selections.clear();
    for (const std::string& path : side.run_paths) {
        auto it = cache.find(path);
        if (it == cache.end()) {
            it = cache.emplace(path, read_selection(path)).first;
        }
        side.selections.push_back(it->second);
    }
}

std::string join(const std::vector<std::string>& values, const char* sep) {
    std::string out;
    for (const std::string& v : values) {
        out += (out.empty() ? "" : sep) + v;
    }
    return out;
}

// "driver: A → B" once, with the hosts it happened on: an upgraded fleet says it once.
std::vector<std::string> environment_by_host(const HostsByChange& changes, std::size_t hosts) {
    constexpr std::size_t k_names = 5;
    std::vector<std::string> out;
    for (const auto& [change, names] : changes) {
        if (names.size() == hosts && hosts > 1) {
            out.push_back(fmt::format("{} (every host)", change));
            continue;
        }
        std::vector<std::string> shown(names.begin(), names.begin() + std::min(names.size(), k_names));
        const std::string more = names.size() > k_names ? fmt::format(", +{} more", names.size() - k_names) : "";
        out.push_back(fmt::format("{} ({}{})", change, join(shown, ", "), more));
    }
    return out;
}

// One host's comparison into the fleet's, each change named by its host.
void merge_host(DiffResult& into, DiffResult&& one, const std::string& name, HostsByChange& environment) {
    for (auto& c : one.statuses) {
        c.host = name;
        into.statuses.push_back(std::move(c));
    }
    for (auto& m : one.measurements) {
        m.host = name;
        into.measurements.push_back(std::move(m));
    }
    for (auto& l : one.links) {
        l.host = name;
        into.links.push_back(std::move(l));
    }
    for (auto& c : one.counters) {
        c.host = name;
        into.counters.push_back(std::move(c));
    }
    for (auto& f : one.findings) {
        f.host = name;
        into.findings.push_back(std::move(f));
    }
    for (auto& n : one.not_selected) {
        n.host = name;
        into.not_selected.push_back(std::move(n));
    }
    for (const std::string& e : one.environment) {
        auto it = std::find_if(environment.begin(), environment.end(), [&](const auto& x) { return x.first == e; });
        if (it == environment.end()) {
            it = environment.insert(environment.end(), {e, {}});
        }
        it->second.push_back(name);
    }
    const auto add_selection = [](std::string& into_text, const std::string& text) {
        if (!text.empty() && into_text.find(text) == std::string::npos) {
            into_text += (into_text.empty() ? "" : "; ") + text;
        }
    };
    add_selection(into.base_selection, one.base_selection);
    add_selection(into.new_selection, one.new_selection);
}

}  // namespace

void read_selections(FleetSide& base, FleetSide& now) {
    std::map<std::string, RunSelection> cache;
    if (has_one_sided_results(base.pooled, now.pooled)) {
        fill_selections(base.pooled, cache);
        fill_selections(now.pooled, cache);
    }
    for (auto& [host, b] : base.hosts) {
        const auto it = now.hosts.find(host);
        if (it != now.hosts.end() && has_one_sided_results(b, it->second)) {
            fill_selections(b, cache);
            fill_selections(it->second, cache);
        }
    }
}

DiffResult compare_fleets(const FleetSide& base, const FleetSide& now, const ToleranceTable& tolerances) {
    std::vector<std::string> common;
    for (const auto& [host, _] : base.hosts) {
        if (now.hosts.count(host) > 0) {
            common.push_back(host);
        }
    }
    if (common.empty()) {
        DiffResult d = compare_sides(base.pooled, now.pooled, tolerances);
        if (base.hosts.size() == 1 && now.hosts.size() == 1) {
            // Two single runs of two hosts (files compared by hand): not the same node.
            d.different_nodes.push_back(
                fmt::format("host: {} → {}", base.hosts.begin()->first, now.hosts.begin()->first));
            d.hosts_compared = 0;
        } else if (!base.hosts.empty() && !now.hosts.empty()) {
            d.grouped = true;  // two groups of nodes (Debian 12 ones against Debian 13 ones)
        }
        return d;
    }
    DiffResult d;
    d.base_runs = base.pooled.runs;
    d.new_runs = now.pooled.runs;
    d.fleet = base.hosts.size() > 1 || now.hosts.size() > 1;
    d.vanished_regress = !now.filtered;  // a filter may simply not select the host's new runs
    for (const auto& [host, _] : base.hosts) {
        if (now.hosts.count(host) == 0) {
            d.vanished_hosts.push_back(host);
        }
    }
    for (const auto& [host, _] : now.hosts) {
        if (base.hosts.count(host) == 0) {
            d.new_hosts.push_back(host);
        }
    }
    HostsByChange environment;
    for (const std::string& host : common) {
        DiffResult one = compare_sides(base.hosts.at(host), now.hosts.at(host), tolerances);
        if (!one.different_nodes.empty()) {
            d.different_hosts.push_back(host);
            for (const std::string& why : one.different_nodes) {
                d.different_nodes.push_back(d.fleet ? host + ": " + why : why);
            }
            continue;
        }
        ++d.hosts_compared;
        if (one.regressed()) {
            d.regressed_hosts.push_back(host);
        }
        merge_host(d, std::move(one), d.fleet ? host : "", environment);
    }
    if (d.fleet) {
        d.environment = environment_by_host(environment, d.hosts_compared);
    } else {
        for (const auto& [change, _] : environment) {
            d.environment.push_back(change);
        }
    }
    // Key figures first, the worst first: what an operator acts on.
    std::stable_sort(d.measurements.begin(), d.measurements.end(), [](const auto& x, const auto& y) {
        return std::pair(x.role != Role::Key, x.change != Change::Worse) <
               std::pair(y.role != Role::Key, y.change != Change::Worse);
    });
    return d;
}

}  // namespace gpuconform
