// What a timing-sensitive check does when another user is on its GPU (README "Busy GPUs").
// Pure functions of the policy and the readings, so the verdict table is unit-tested.
#pragma once

#include <optional>
#include <string>

#include "core/result.hpp"
#include "occupancy/occupancy.hpp"

namespace gpuconform {

enum class WhenBusy {
    Wait,     // default: wait (bounded) for the GPU to go quiet, measure again, else `error`
    Skip,     // do not measure a disturbed check: `skip` naming the other user
    Measure,  // measure anyway; the verdict stands and the summary says who else was there
};

std::optional<WhenBusy> when_busy_from_string(const std::string& text);
std::string to_string(WhenBusy w);

// Before a timing-sensitive check on a GPU that reads busy.
enum class BeforeAction { Run, WaitForQuiet, NotRun };
BeforeAction before_check(WhenBusy policy, bool busy, double wait_left_s);

// The result of a check that was not run because the GPU stayed busy: `error` (wait: the wait
// ran out) or `skip` (skip), naming the other user.
CheckResult busy_not_run(const std::string& id, const std::string& layer, WhenBusy policy, const GpuOccupancy& who,
                         double waited_s);

// A check that ran while someone else used its GPU. Wait and skip: the verdict is withheld
// (status `error`, the measured status and summary kept in facts.withheld); measure: the verdict
// stands and the summary names the other user. Both carry `disturbance`.
void mark_disturbed(CheckResult& r, WhenBusy policy, const GpuOccupancy& who, double waited_s);

}  // namespace gpuconform
