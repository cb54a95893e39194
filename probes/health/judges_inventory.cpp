// The node's GPUs as a set: how many the driver sees against the PCI bus and the profile, one
// model, one VBIOS and InfoROM image among siblings (the odd GPU named), and the modes that
// change what work a GPU accepts: docs/gpu-health.md, "Inventory".
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "health/judges.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuconform {

namespace {

void worsen(HealthVerdict& v, Status s, const std::string& finding, const std::string& fix) {
    if (severity(s) > severity(v.status)) {
        v.status = s;
    }
    v.finding += (v.finding.empty() ? "" : "; ") + finding;
    v.remediation += (v.remediation.empty() ? "" : "; ") + fix;
}

// The GPUs whose value differs from the most common one ("cuda:2 has 96.00.74.00.01, its
// siblings 96.00.A5.00.1A"); "" when all agree or nothing was read.
std::string odd_ones(const NodeHealth& node, const char* what,
                     const std::function<std::optional<std::string>(const GpuHealth&)>& value_of) {
    std::map<std::string, int> seen;
    for (const auto& g : node.gpus) {
        if (const auto v = value_of(g)) {
            ++seen[*v];
        }
    }
    if (seen.size() < 2) {
        return "";
    }
    std::string common;
    int most = 0;
    for (const auto& [v, n] : seen) {
        if (n > most) {
            common = v;
            most = n;
        }
    }
    std::string out;
    for (const auto& g : node.gpus) {
        const auto v = value_of(g);
        if (v && *v != common) {
            out += fmt::format("{}{} has {} {}", out.empty() ? "" : ", ", gpu_label(g), what, *v);
        }
    }
    return out + fmt::format(" (its siblings {})", common);
}

// "00000000:18:00.0" (NVML) and "0000:18:00.0" (sysfs) name one address.
std::string address_key(const std::string& bdf) {
    const auto colon = bdf.find(':');
    if (colon == std::string::npos) {
        return bdf;
    }
    std::string domain = bdf.substr(0, colon);
    domain.erase(0, std::min(domain.find_first_not_of('0'), domain.size()));
    std::string key = domain + bdf.substr(colon);
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
    return key;
}

// The bus addresses no GPU of the reading has, "0000:3b:00.0, 0000:5d:00.0".
std::string missing_addresses(const NodeHealth& node) {
    std::set<std::string> seen;
    for (const auto& g : node.gpus) {
        seen.insert(address_key(g.pci_bus_id));
    }
    std::string out;
    for (const auto& bdf : node.pci_bdfs) {
        if (seen.count(address_key(bdf)) == 0) {
            out += (out.empty() ? "" : ", ") + bdf;
        }
    }
    return out;
}

std::string mode_notes(const NodeHealth& node, HealthVerdict& v) {
    std::vector<std::string> notes;
    for (const auto& g : node.gpus) {
        const std::string who = gpu_label(g);
        if (g.compute_mode.ok() && *g.compute_mode.value == nvml::k_compute_prohibited) {
            worsen(v, Status::Warn, who + " compute mode Prohibited",
                   "set compute mode Default (nvidia-smi -c 0): Prohibited refuses every CUDA context");
        } else if (g.compute_mode.ok() && *g.compute_mode.value != nvml::k_compute_default) {
            notes.push_back(who + " compute mode Exclusive_Process");
        }
        if (g.mig_current.ok() && *g.mig_current.value) {
            notes.push_back(who + " MIG enabled");
        }
        if (g.persistence.ok() && !*g.persistence.value) {
            notes.push_back(who + " persistence mode off");
        }
    }
    std::string out;
    for (const auto& n : notes) {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

}  // namespace

HealthVerdict judge_inventory(const NodeHealth& node, std::optional<int> expected_gpus) {
    const int seen = static_cast<int>(node.gpus.size());
    if (!node.error.empty()) {
        if (expected_gpus && *expected_gpus > 0 && node.pci_gpus == 0) {
            return {Status::Fail,
                    fmt::format("0 of {} expected GPUs: none on the PCI bus, and {} could not be read ({})",
                                *expected_gpus, node.source, node.error),
                    "find the missing GPUs (lspci, the kernel log for Xid 79 'fallen off the bus'), then reseat or "
                    "replace them",
                    fmt::format("0 of {} expected GPUs seen", *expected_gpus)};
        }
        if (node.pci_gpus == 0) {
            return {Status::Skip, fmt::format("no NVIDIA or AMD GPU on the PCI bus ({}: {})", node.source, node.error),
                    "", ""};
        }
        return {Status::Error,
                fmt::format("{} could not be read ({}); {} such GPU(s) on the PCI bus", node.source, node.error,
                            node.pci_gpus),
                "install or load the GPU driver (see host.kernel_driver)", ""};
    }
    HealthVerdict v;
    if (expected_gpus && seen < *expected_gpus) {
        worsen(v, Status::Fail, fmt::format("{} of {} expected GPUs seen", seen, *expected_gpus),
               "find the missing GPU(s) (lspci, the kernel log for Xid 79 'fallen off the bus'), then reseat or "
               "replace them");
    } else if (expected_gpus && seen > *expected_gpus) {
        worsen(v, Status::Warn, fmt::format("{} GPUs seen, {} expected", seen, *expected_gpus),
               "correct expected_gpus in the profile for this node type");
    }
    std::string restricted;
    if (seen < node.pci_gpus) {
        const std::string missing = missing_addresses(node);
        const std::string which = missing.empty() ? "" : " (not seen: " + missing + ")";
        if (!node.visibility.empty()) {
            // A container given some GPUs: the rest are not ours to judge.
            restricted = fmt::format("{} gives this process {} of the {} GPUs on the PCI bus{}", node.visibility, seen,
                                     node.pci_gpus, which);
        } else {
            worsen(v, Status::Fail,
                   fmt::format("{} sees {} of the {} GPUs on the PCI bus{}", node.source, seen, node.pci_gpus, which),
                   "a GPU on the bus that the driver does not see fell off or failed to initialise: read the kernel "
                   "log (Xid 79), reset or reseat it");
        }
    }
    const auto text_of = [](const Read<std::string>& r) { return r.value; };
    const std::string models = odd_ones(node, "model", [](const GpuHealth& g) {
        return g.name.empty() ? std::nullopt : std::optional<std::string>(g.name);
    });
    if (!models.empty()) {
        worsen(v, Status::Warn, "mixed models: " + models, "one model per node keeps sibling comparisons valid");
    }
    for (const auto& [what, member] :
         {std::pair{"VBIOS", &GpuHealth::vbios}, std::pair{"InfoROM image", &GpuHealth::inforom}}) {
        // A copy: clang before 16 cannot capture a structured binding (the fuzz build uses clang).
        const auto field = member;
        const std::string odd = odd_ones(node, what, [&](const GpuHealth& g) { return text_of(g.*field); });
        if (!odd.empty()) {
            worsen(v, Status::Warn, odd, fmt::format("bring every GPU to one {} (the vendor's firmware update)", what));
        }
    }
    std::string notes = mode_notes(node, v);
    if (!restricted.empty()) {
        notes = restricted + (notes.empty() ? "" : "; " + notes);
    }
    std::string line = fmt::format("{} GPU(s) seen by {}, {} on the PCI bus", seen, node.source, node.pci_gpus);
    if (expected_gpus) {
        line += fmt::format(", {} expected", *expected_gpus);
    }
    if (seen == 0 && node.pci_gpus == 0 && !expected_gpus) {
        return {Status::Skip, "no NVIDIA or AMD GPU on the PCI bus (" + line + ")", "", ""};
    }
    v.summary = (v.finding.empty() ? "" : v.finding + "; ") + line + (notes.empty() ? "" : "; " + notes);
    return v;
}

}  // namespace gpuconform
