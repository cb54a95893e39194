// host.pcie.link: each GPU's PCIe link as trained (current_*) against what it can do (max_*).
//
// Idle power saving: GPUs (and ASPM) drop the link *speed* when idle — many read
// 2.5 GT/s and retrain under load — while the *width* stays as trained at boot.
// So: width below capable is a fail (a lane fault: seating, riser, slot, bifurcation); speed
// below capable is a warn, because sysfs cannot tell idle downshift from a slot or riser that
// caps the speed; a profile may make it a fail (`fail_on_speed_downshift_flag: 1`) for
// acceptance runs where the GPUs are busy while the host layer runs.
#pragma once

#include <vector>

#include "core/environment.hpp"
#include "host/verdict.hpp"

namespace gpuconform {

struct LinkJudgement {
    std::string bdf;
    Status status = Status::Skip;
    std::string summary;
};

LinkJudgement judge_pcie_link(const PciGpu& gpu, bool fail_on_speed_downshift);

// Every GPU's judgement folded into one verdict (worst first); skip when no GPU or no link data.
Verdict judge_pcie_links(const std::vector<PciGpu>& gpus, bool fail_on_speed_downshift);

// "Gen5 (32 GT/s) x16"
std::string describe_link(double speed_gts, int width);

}  // namespace gpuconform
