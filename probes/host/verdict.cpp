#include "host/verdict.hpp"

#include "core/byte_sizes.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace gpuconform {

int count_pci_gpus(const Environment& env, const std::string& vendor) {
    return static_cast<int>(
        std::count_if(env.pci_gpus.begin(), env.pci_gpus.end(), [&](const PciGpu& g) { return g.vendor == vendor; }));
}

std::string format_bytes(std::optional<std::uint64_t> bytes) {
    if (!bytes) {
        return "unlimited";
    }
    return size_words(*bytes);
}

CheckDef host_check(std::string id, std::string description, std::function<void(CheckContext&, CheckResult&)> run) {
    CheckDef def;
    def.id = std::move(id);
    def.layer = "host";
    def.description = std::move(description);
    def.scope = Scope::Host;
    def.timeout_s = 5.0;
    def.quick = true;
    def.run = std::move(run);
    return def;
}

}  // namespace gpuconform
