// A check owns its declarations: its id, keys and measurements' meaning are written in its own
// file, and the shared layers never name it. core/ is the vocabulary every layer uses and the
// results store reads reports of any check: a check id written there is a central list again.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "checks/declarations.hpp"
#include "test_paths.hpp"

namespace gpuconform {
namespace {

std::string read_all(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(DeclarationsOwned, NoSharedFolderNamesACheckId) {
    const std::filesystem::path root = test_paths::source_dir;
    int files = 0;
    for (const char* folder : {"probes/core", "probes/checks", "probes/store"}) {
        for (const auto& entry : std::filesystem::directory_iterator(root / folder)) {
            const auto ext = entry.path().extension();
            if (ext != ".cpp" && ext != ".hpp") {
                continue;
            }
            ++files;
            const std::string text = read_all(entry.path());
            for (const CheckDef& c : declared_checks()) {
                EXPECT_EQ(text.find('"' + c.id + '"'), std::string::npos)
                    << entry.path().lexically_relative(root) << " names " << c.id
                    << ": declare what the check owns in its CheckDef instead";
            }
        }
    }
    EXPECT_GT(files, 20);
}

TEST(DeclarationsOwned, EveryCheckIdIsDeclaredOnce) {
    std::set<std::string> seen;
    for (const CheckDef& c : declared_checks()) {
        EXPECT_TRUE(seen.insert(c.id).second) << c.id << " is declared twice";
    }
    EXPECT_GT(seen.size(), 60u);
}

TEST(DeclarationsOwned, AMeasurementMeansWhatItsOwnCheckDeclares) {
    // Both checks record "overlap_ratio"; each says what it means for itself.
    ASSERT_TRUE(declared_meaning("async.overlap.copy_compute", "overlap_ratio"));
    EXPECT_EQ(declared_meaning("async.overlap.copy_compute", "overlap_ratio")->role, Role::Key);
    EXPECT_FALSE(declared_meaning("async.no.such_check", "overlap_ratio"));
    EXPECT_FALSE(declared_meaning("async.copy.bandwidth", "no_such_figure"));
    // The first matching pattern wins: 64 KiB pinned copies are diagnostics, 256 MiB ones key.
    EXPECT_EQ(declared_meaning("async.copy.bandwidth", "bw_pinned_H2D_64KiB")->role, Role::Diagnostic);
    EXPECT_EQ(declared_meaning("async.copy.bandwidth", "bw_pinned_H2D_256MiB")->role, Role::Key);
}

}  // namespace
}  // namespace gpuconform
