// host.vm: memory-management settings GPU runtimes run into; reported, nothing required.
#include <fmt/format.h>

#include "host/host_checks.hpp"
#include "host/host_fs.hpp"
#include "host/parsers.hpp"
#include "host/verdict.hpp"

namespace gpuconform {

namespace {

std::string overcommit_meaning(const std::string& mode) {
    if (mode == "0") {
        return "heuristic";
    }
    if (mode == "1") {
        return "always";
    }
    if (mode == "2") {
        // GPU runtimes reserve large virtual ranges; strict accounting can refuse them.
        return "strict accounting: large virtual reservations by GPU runtimes may be refused";
    }
    return "unknown mode";
}

}  // namespace

CheckDef make_host_vm(const std::string& root) {
    CheckDef d =
        host_check("host.vm", "vm.overcommit_memory and transparent hugepages", [root](CheckContext&, CheckResult& r) {
            const auto overcommit = read_line(root, "/proc/sys/vm/overcommit_memory");
            const auto thp_text = read_line(root, "/sys/kernel/mm/transparent_hugepage/enabled");
            const auto thp = thp_text ? parse_bracketed_choice(*thp_text) : std::string();
            r.facts = {{"overcommit_memory", overcommit.value_or("")}, {"transparent_hugepage", thp}};
            if (overcommit) {
                try {
                    r.measurements.push_back(single("overcommit_memory", std::stod(*overcommit), "mode"));
                } catch (const std::exception&) {
                    // Not a number: kept as the fact above.
                }
            }
            r.status = Status::Info;
            r.summary = fmt::format(
                "vm.overcommit_memory={} ({}); transparent hugepages: {}", overcommit.value_or("unknown"),
                overcommit ? overcommit_meaning(*overcommit) : "not readable", thp.empty() ? "not available" : thp);
        });
    d.measurements = {
        measure::diagnostic("overcommit_memory", Direction::None, 0.00),
    };
    return d;
}

}  // namespace gpuconform
