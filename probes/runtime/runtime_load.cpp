// runtime.<backend>.load: does the backend module (and through it the vendor runtime) load?
// A GPU on the PCI bus with a runtime that will not load is a fail, not a skip: the node
// has a GPU that nothing can use (skip is for a node with no GPU of that vendor).
#include <fmt/format.h>

#include "runtime/runtime_common.hpp"

namespace gpuconform {

namespace {

void judge_load(const CheckContext& ctx, CheckResult& r, const std::string& backend) {
    const BackendInfo& info = *ctx.backend_info;
    r.facts["module_path"] = info.module_path;
    if (info.loaded) {
        r.status = Status::Pass;
        r.summary = fmt::format("{} backend loaded from {}", display_name(backend), info.module_path);
        return;
    }
    r.facts["load_error"] = info.load_error;
    const auto gpus = gpus_on_bus(ctx.env, backend);
    if (backend == "sim") {
        r.status = Status::Error;
        r.summary = "simulated backend did not load: " + info.load_error;
        return;
    }
    if (gpus.empty()) {
        r.status = Status::Skip;
        r.summary = fmt::format("{} runtime not loadable ({}); no {} GPU on the PCI bus, so none is needed",
                                display_name(backend), info.load_error, pci_vendor_of_backend(backend));
        return;
    }
    r.status = Status::Fail;
    r.summary = fmt::format("{} GPU(s) on the PCI bus but the {} runtime does not load: {}", gpus.size(),
                            display_name(backend), info.load_error);
    r.remediation = install_hint(backend);
}

}  // namespace

CheckDef make_runtime_load(const std::string& backend) {
    CheckDef d;
    d.id = "runtime." + backend + ".load";
    d.layer = "runtime";
    d.description = "The " + display_name(backend) + " backend module and its runtime library load";
    d.scope = Scope::Backend;
    d.backend = backend;
    d.run = [backend](CheckContext& ctx, CheckResult& r) { judge_load(ctx, r, backend); };
    return d;
}

}  // namespace gpuconform
