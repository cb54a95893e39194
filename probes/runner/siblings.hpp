// The sibling rule: on a node of identical GPUs, one whose key figure falls well below its
// siblings' median is flagged even when it meets the absolute expectation. The comparison with
// siblings is the strongest signal a homogeneous node offers (one bad card, riser or engine).
#pragma once

#include <string>
#include <vector>

#include "core/check.hpp"

namespace gpuconform {

// `results` are one check's per-device results of one backend; `models` names each device's
// model by index. Needs three or more devices of one model with the measurement; results of
// other models are compared only among themselves. Rewrites the outliers' status and summary.
void apply_sibling_rule(std::vector<CheckResult*>& results, const std::vector<std::string>& models,
                        const std::vector<std::string>& keys, double max_shortfall_ratio);

// `results` are one check's results for the devices --device chose; `models` names every device
// of the backend. Where the node has three or more GPUs of a result's model but fewer than three
// of them were chosen, the rule cannot judge: a pass becomes a skip saying so (its figures kept),
// and every such result records why in facts.siblings. Returns whether any was marked.
bool mark_siblings_not_judged(std::vector<CheckResult*>& results, const std::vector<std::string>& models);

}  // namespace gpuconform
