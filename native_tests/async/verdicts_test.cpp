#include <gtest/gtest.h>

#include "async/bandwidth.hpp"
#include "async/copy_common.hpp"
#include "async/toolkit.hpp"
#include "runtime/driver_compat.hpp"

namespace gpuconform {
namespace {

using namespace async;

GatedCall call(double call_ms, bool busy, double gate_ms = 20) {
    GatedCall g;
    g.call_ms = call_ms;
    g.queue_busy = busy;
    g.gate_ms = gate_ms;
    return g;
}

TEST(Classify, TellsEarlyWaitedSynchronousAndUndecidedApart) {
    EXPECT_EQ(classify(call(0.02, true)), CallClass::ReturnedEarly);
    EXPECT_EQ(classify(call(20.5, true)), CallClass::WaitedThenAsync);
    EXPECT_EQ(classify(call(21.0, false)), CallClass::Synchronous);
    // A quick return onto an idle queue proves nothing: the spin ended too soon.
    EXPECT_EQ(classify(call(0.02, false)), CallClass::Undecided);
    // A spin whose own launch waited for it (launches that block) queued nothing ahead of the call.
    GatedCall blocked = call(0.02, true);
    blocked.gate_launch_ms = 20.0;
    EXPECT_EQ(classify(blocked), CallClass::Undecided);
}

GatedCopy copy(CallClass k, std::uint64_t wrong = 0, bool ok = true) {
    GatedCopy c;
    c.bytes = 1 << 20;
    c.klass = k;
    c.wrong_words = wrong;
    if (!ok) {
        c.call.call_result = {1, "cudaErrorInvalidValue", "invalid argument"};
    }
    return c;
}

struct EarlyCase {
    std::vector<GatedCopy> copies;
    Status expected;
};

class MustReturnEarly : public ::testing::TestWithParam<EarlyCase> {};

TEST_P(MustReturnEarly, Verdict) {
    CheckResult r;
    judge_must_return_early(r, GetParam().copies, "pinned");
    EXPECT_EQ(r.status, GetParam().expected) << r.summary;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MustReturnEarly,
    ::testing::Values(EarlyCase{{copy(CallClass::ReturnedEarly), copy(CallClass::ReturnedEarly)}, Status::Pass},
                      EarlyCase{{copy(CallClass::ReturnedEarly), copy(CallClass::Synchronous)}, Status::Fail},
                      EarlyCase{{copy(CallClass::WaitedThenAsync)}, Status::Fail},
                      EarlyCase{{copy(CallClass::ReturnedEarly, 5)}, Status::Fail},
                      EarlyCase{{copy(CallClass::ReturnedEarly, 0, false)}, Status::Fail},
                      // No evidence is never a pass.
                      EarlyCase{{copy(CallClass::ReturnedEarly), copy(CallClass::Undecided)}, Status::Error}));

struct LinkCase {
    double h2d, d2h, link;
    std::optional<double> efficiency, floor;
    Status expected;
};

class PinnedBandwidth : public ::testing::TestWithParam<LinkCase> {};

TEST_P(PinnedBandwidth, Verdict) {
    const auto& c = GetParam();
    LinkJudgement in;
    in.pinned_h2d_gbps = c.h2d;
    in.pinned_d2h_gbps = c.d2h;
    in.link_gbps = c.link;
    in.link_label = "PCIe Gen5 x16";
    in.efficiency_min = c.efficiency;
    in.absolute_min_gbps = c.floor;
    EXPECT_EQ(judge_pinned_bandwidth(in).status, c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PinnedBandwidth,
    ::testing::Values(LinkCase{55.1, 55.3, 63.0, 0.7, std::nullopt, Status::Pass},  // the H200 seen
                      LinkCase{27.0, 55.3, 63.0, 0.7, std::nullopt, Status::Fail},  // one direction at Gen4 rates
                      LinkCase{55.1, 55.3, 0.0, 0.7, std::nullopt, Status::Info},   // no link figure: not judged
                      LinkCase{3.0, 3.0, 0.0, 0.7, 4.0, Status::Fail},              // below the fleet's floor
                      LinkCase{20.0, 20.0, 0.0, std::nullopt, 4.0, Status::Pass}));

struct CompatCase {
    int driver, runtime;
    const char* module;
    Status expected;
};

class CudaCompat : public ::testing::TestWithParam<CompatCase> {};

TEST_P(CudaCompat, Verdict) {
    const auto& c = GetParam();
    EXPECT_EQ(judge_cuda_compat(c.driver, c.runtime, c.module).status, c.expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, CudaCompat,
                         ::testing::Values(CompatCase{13000, 13000, "580.159.04", Status::Pass},
                                           CompatCase{13010, 13000, "590.10", Status::Pass},
                                           // Minor-version compatibility: same major, module at or above 580.65.06.
                                           CompatCase{13000, 13020, "580.65.06", Status::Pass},
                                           CompatCase{13000, 13020, "580.60.01", Status::Fail},
                                           // Debian 13's 550 driver (CUDA 12.4) cannot run a CUDA 13 runtime.
                                           CompatCase{12040, 13000, "550.163.01", Status::Fail},
                                           CompatCase{0, 13000, "", Status::Fail}));

TEST(CompareDotted, ComparesNumericallyNotAsText) {
    EXPECT_LT(compare_dotted("580.65.06", "580.159.04"), 0);
    EXPECT_GT(compare_dotted("590", "580.159.04"), 0);
    EXPECT_EQ(compare_dotted("525.60.13", "525.60.13"), 0);
}

}  // namespace
}  // namespace gpuconform
