// Budget::another_round: a loop of long rounds ends inside its share; the first round always runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "acceptance/common.hpp"
#include "checks/declarations.hpp"
#include "core/check.hpp"
#include "core/environment.hpp"
#include "core/profile.hpp"

namespace gpuconform::acceptance {
namespace {

struct Context {
    Environment env;
    Profile profile = Profile::builtin(profile_catalogue());
    RunOptions options;
    CheckContext ctx{env, profile, options};
    explicit Context(double budget_s) { options.budget_s = budget_s; }
};

TEST(Budget, LongRoundsEndInsideTheShare) {
    const Context c(1.0);
    Budget budget(c.ctx, 1.0);  // 1 s; rounds of 0.3 s or more: three fit at most
    int rounds = 0;
    double longest_s = 0;
    for (; budget.another_round(); ++rounds) {
        const auto start = std::chrono::steady_clock::now();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        longest_s =
            std::max(longest_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    EXPECT_GE(rounds, 1);
    EXPECT_LE(rounds, 3);
    // Checking only whether time is left would start a fourth round at 0.9 s and end at 1.2 s or
    // later; a round longer than those before it (a loaded host) may still overrun a little.
    if (rounds > 1) {
        EXPECT_LT(budget.elapsed_s(), 1.15) << "a round started that could not end inside the share";
    }
    EXPECT_LT(budget.left_s(), longest_s) << "the loop stopped while another round still fitted";
}

TEST(Budget, TheFirstRoundRunsEvenWithNothingLeft) {
    const Context c(0.0);
    Budget budget(c.ctx, 1.0);
    EXPECT_TRUE(budget.another_round());
    EXPECT_FALSE(budget.another_round());
}

}  // namespace
}  // namespace gpuconform::acceptance
