#include "runner/siblings.hpp"

#include <map>

#include <fmt/format.h>

namespace gpuconform {

void apply_sibling_rule(std::vector<CheckResult*>& results, const std::vector<std::string>& models,
                        const std::vector<std::string>& keys, double max_shortfall_ratio) {
    for (const auto& key : keys) {
        std::map<std::string, std::vector<std::pair<CheckResult*, double>>> by_model;
        for (CheckResult* r : results) {
            const Measurement* m = r->find(key);
            if (m == nullptr || !m->value || !r->device || *r->device >= static_cast<int>(models.size())) {
                continue;
            }
            by_model[models[static_cast<std::size_t>(*r->device)]].emplace_back(r, *m->value);
        }
        for (auto& [model, values] : by_model) {
            if (values.size() < 3) {
                continue;  // with two, neither can be called the odd one out
            }
            std::vector<double> figures;
            for (const auto& v : values) {
                figures.push_back(v.second);
            }
            const double mid = median(figures);
            for (auto& [r, value] : values) {
                r->facts["siblings"][key] = {{"median", mid}, {"devices", values.size()}, {"model", model}};
                if (value >= mid * (1.0 - max_shortfall_ratio) || r->status == Status::Error) {
                    continue;
                }
                r->status = Status::Fail;
                r->summary = fmt::format("outlier: {} {:.1f} is {:.0f}% below the median {:.1f} of {} sibling {}s; {}",
                                         key, value, (1.0 - value / mid) * 100, mid, values.size(), model, r->summary);
                r->remediation =
                    "one GPU slower than identical siblings: reseat it, check its riser and PCIe link "
                    "(host.pcie.link), and compare NUMA placement";
                r->expectation["sibling_max_shortfall_ratio"] = max_shortfall_ratio;
            }
        }
    }
}

bool mark_siblings_not_judged(std::vector<CheckResult*>& results, const std::vector<std::string>& models) {
    std::map<std::string, int> on_node;
    for (const auto& m : models) {
        ++on_node[m];
    }
    std::map<std::string, int> chosen;
    for (const CheckResult* r : results) {
        if (r->device && *r->device >= 0 && *r->device < static_cast<int>(models.size())) {
            ++chosen[models[static_cast<std::size_t>(*r->device)]];
        }
    }
    bool any = false;
    for (CheckResult* r : results) {
        if (!r->device || *r->device < 0 || *r->device >= static_cast<int>(models.size())) {
            continue;
        }
        const std::string& model = models[static_cast<std::size_t>(*r->device)];
        const int node = on_node[model];
        const int here = chosen[model];
        if (node < 3 || here >= 3) {
            continue;  // the rule never applies to this model, or it can compare the chosen ones
        }
        const std::string reason =
            here == 1 ? "--device selected one GPU; the sibling rule needs all identical GPUs"
                      : fmt::format(
                            "--device selected {} of the {} identical GPUs; the sibling rule needs all "
                            "identical GPUs",
                            here, node);
        r->facts["siblings"]["not_judged"] = reason;
        if (r->status == Status::Pass) {
            r->status = Status::Skip;
            r->summary = fmt::format("{} (run without --device to compare it with its {} {} siblings); on its own: {}",
                                     reason, node - 1, model, r->summary);
        }
        any = true;
    }
    return any;
}

}  // namespace gpuconform
