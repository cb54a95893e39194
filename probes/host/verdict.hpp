// What a host check's pure judge returns, and the small helpers the host checks share.
#pragma once

#include <string>

#include "core/check.hpp"
#include "core/environment.hpp"
#include "core/result.hpp"

namespace gpuconform {

struct Verdict {
    Status status = Status::Info;
    std::string summary;      // one line a person can act on
    std::string remediation;  // what to change, when not pass/info
};

inline void apply(const Verdict& v, CheckResult& r) {
    r.status = v.status;
    r.summary = v.summary;
    r.remediation = v.remediation;
    if (v.status == Status::Fail || v.status == Status::Warn) {
        r.attribution = "host";
    }
}

// GPUs of one vendor ("nvidia", "amd") on the PCI bus.
int count_pci_gpus(const Environment& env, const std::string& vendor);

// size_words ("8 GiB", "64 KiB"), or "unlimited" for an empty optional.
std::string format_bytes(std::optional<std::uint64_t> bytes);

// A check definition for the host layer (Scope::Host, quick, short timeout).
CheckDef host_check(std::string id, std::string description, std::function<void(CheckContext&, CheckResult&)> run);

}  // namespace gpuconform
