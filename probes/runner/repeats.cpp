#include "runner/repeats.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

namespace gpuconform {

namespace {

void fold_measurements(CheckResult& into, const std::vector<const CheckResult*>& repeats) {
    for (Measurement& m : into.measurements) {
        std::vector<double> values;
        int n = 0;
        std::optional<double> lo, hi;
        for (const CheckResult* r : repeats) {
            for (const Measurement& other : r->measurements) {
                if (other.name != m.name || !other.value) {
                    continue;
                }
                values.push_back(*other.value);
                n += other.n;
                const double omin = other.min.value_or(*other.value);
                const double omax = other.max.value_or(*other.value);
                lo = lo ? std::min(*lo, omin) : omin;
                hi = hi ? std::max(*hi, omax) : omax;
            }
        }
        if (values.size() < 2) {
            continue;  // measured once: nothing to fold
        }
        m.samples = values;
        m.value = median(values);
        m.n = n;
        m.min = lo;
        m.max = hi;
    }
}

}  // namespace

std::vector<CheckResult> fold_repeats(std::vector<CheckResult> results, int repetitions) {
    if (repetitions <= 1) {
        return results;
    }
    using Key = std::tuple<std::string, std::string, int>;
    std::map<Key, std::vector<const CheckResult*>> groups;
    std::vector<Key> order;
    for (const CheckResult& r : results) {
        const Key k{r.id, r.backend, r.device.value_or(-1)};
        if (groups[k].empty()) {
            order.push_back(k);
        }
        groups[k].push_back(&r);
    }
    std::vector<CheckResult> out;
    for (const Key& k : order) {
        const auto& repeats = groups[k];
        const CheckResult* worst = repeats.front();
        for (const CheckResult* r : repeats) {
            if (severity(r->status) > severity(worst->status)) {
                worst = r;
            }
        }
        CheckResult folded = *worst;
        fold_measurements(folded, repeats);
        folded.duration_s = 0;
        for (const CheckResult* r : repeats) {
            folded.duration_s += r->duration_s;
        }
        if (repeats.size() > 1) {
            folded.facts["repetitions"] = repeats.size();
            folded.summary += fmt::format(" (worst of {} repetitions)", repeats.size());
        }
        out.push_back(std::move(folded));
    }
    return out;
}

}  // namespace gpuconform
