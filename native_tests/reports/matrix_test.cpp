#include <gtest/gtest.h>

#include "reports/matrix.hpp"
#include "report_builder.hpp"

namespace gpuconform {
namespace {

class MatrixTest : public ::testing::Test {
protected:
    test::ScratchDir dir{"matrix"};
    void SetUp() override {
        dir.write("a/n1.json",
                  test::make_report("r1", "n1", "Debian 12", "H200",
                                    {{"host.memlock", "pass"}, {"async.copy", "pass", 0}, {"async.copy", "fail", 1}})
                      .dump());
        dir.write("a/n2.json", test::make_report("r2", "n2", "Debian 12", "H200",
                                                 {{"host.memlock", "pass"}, {"async.copy", "pass", 0}})
                                   .dump());
        dir.write("b/n3.json", test::make_report("r3", "n3", "Debian 13", "H200", {{"host.memlock", "warn"}}).dump());
    }
    Matrix build(const std::vector<GroupKey>& by = k_default_group_keys, unsigned threads = 0) {
        ReadOptions o;
        o.threads = threads;
        return build_matrix(read_reports({dir.path()}, o), by);
    }
    static std::size_t row(const Matrix& m, const std::string& id) {
        return static_cast<std::size_t>(std::find(m.rows.begin(), m.rows.end(), id) - m.rows.begin());
    }
};

TEST_F(MatrixTest, CellsHoldWorstStatusCountsAndTheHostsBehindThem) {
    const Matrix m = build();
    ASSERT_EQ(m.columns.size(), 2u);
    EXPECT_EQ(m.column_title(0), "Debian 12 · H200");
    const Cell& copy = m.cells[row(m, "async.copy")][0];
    EXPECT_EQ(copy.worst(), Status::Fail);
    EXPECT_EQ(copy.text(), "2 pass · 1 fail");
    ASSERT_EQ(copy.hosts.size(), 1u);
    EXPECT_EQ(m.run_hosts[copy.hosts[0]], "n1");
    EXPECT_EQ(m.cells[row(m, "host.memlock")][1].worst(), Status::Warn);
}

TEST_F(MatrixTest, AGroupWithoutAResultShowsNoneNotPass) {
    const Matrix m = build();
    EXPECT_EQ(m.cells[row(m, "async.copy")][1].total(), 0u);
}

TEST_F(MatrixTest, RowsFollowLayerOrder) {
    const Matrix m = build();
    EXPECT_EQ(m.rows, (std::vector<std::string>{"host.memlock", "async.copy"}));
}

TEST_F(MatrixTest, GroupsByAnyKey) {
    const Matrix m = build({GroupKey::Host});
    EXPECT_EQ(m.columns.size(), 3u);
    EXPECT_THROW(parse_group_keys("distro,colour"), std::invalid_argument);
    EXPECT_EQ(parse_group_keys("kernel,torch"), (std::vector<GroupKey>{GroupKey::Kernel, GroupKey::Torch}));
}

TEST_F(MatrixTest, TheResultDoesNotDependOnTheNumberOfThreads) {
    for (int i = 0; i < 150; ++i) {
        dir.write("many/" + std::to_string(i) + ".json",
                  test::make_report("m" + std::to_string(i), "h" + std::to_string(i), i % 2 ? "D1" : "D2", "G",
                                    {{"host.x", i % 7 ? "pass" : "fail"}, {"host.y" + std::to_string(i % 3), "pass"}})
                      .dump());
    }
    const Matrix one = build(k_default_group_keys, 1);
    const Matrix four = build(k_default_group_keys, 4);
    EXPECT_EQ(one.rows, four.rows);
    EXPECT_EQ(one.columns, four.columns);
    EXPECT_EQ(one.run_hosts, four.run_hosts);
    for (std::size_t r = 0; r < one.rows.size(); ++r) {
        for (std::size_t c = 0; c < one.columns.size(); ++c) {
            EXPECT_EQ(one.cells[r][c].counts, four.cells[r][c].counts);
            EXPECT_EQ(one.cells[r][c].hosts, four.cells[r][c].hosts);
        }
    }
}

TEST_F(MatrixTest, BrokenInputsAreNamedAndTheRestRolledUp) {
    dir.write("bad/empty.json", "");
    dir.write("bad/dup.json", test::make_report("r1", "n1-copy", "Debian 12", "H200", {}).dump());
    dir.write("bad/trunc.json", "{\"schema\": \"gpuconform-report\", ");
    const Matrix m = build();
    EXPECT_EQ(m.run_hosts.size(), 3u);
    ASSERT_EQ(m.rejected.size(), 3u);
    std::string reasons;
    for (const Rejected& r : m.rejected) {
        reasons += r.path + ": " + r.reason + "\n";
    }
    EXPECT_NE(reasons.find("empty.json: empty"), std::string::npos) << reasons;
    EXPECT_NE(reasons.find("duplicate run id 'r1'"), std::string::npos) << reasons;
    EXPECT_NE(reasons.find("trunc.json: not valid JSON"), std::string::npos) << reasons;
    EXPECT_EQ(matrix_exit_code(m), 1);  // the failing cell decides over the partial input
}

TEST(MatrixExitCode, SaysCleanFailingPartialOrNothing) {
    Matrix m;
    EXPECT_EQ(matrix_exit_code(m), 2);
    m.run_hosts = {"h"};
    m.rows = {"host.x"};
    m.columns = {{"D"}};
    m.cells = {{Cell{}}};
    m.cells[0][0].counts[severity(Status::Warn)] = 1;
    EXPECT_EQ(matrix_exit_code(m), 0);
    EXPECT_EQ(matrix_exit_code(m, 1), 1) << "a node that could not be judged (an interrupted run) is never exit 0";
    m.rejected.push_back({"x.json", "empty file"});
    EXPECT_EQ(matrix_exit_code(m), 3);
    EXPECT_EQ(matrix_exit_code(m, 1), 1);
    m.cells[0][0].counts[severity(Status::Error)] = 1;
    EXPECT_EQ(matrix_exit_code(m), 1);
}

TEST(MatrixPaths, AMissingInputIsRejectedNotFatal) {
    std::vector<Rejected> rejected;
    EXPECT_TRUE(collect_report_paths({"/nonexistent/gpuconform"}, rejected).empty());
    ASSERT_EQ(rejected.size(), 1u);
    EXPECT_EQ(rejected[0].reason, "no such file or folder");
}

}  // namespace
}  // namespace gpuconform
