// A process that exits while we read its /proc files is absent, never an exception: the
// occupancy scan read /proc/<pid>/stat through an istreambuf_iterator, and a read error there
// (ESRCH from an exiting process; EISDIR stands in for it here, deterministically) threw
// basic_filebuf::underflow out of the run.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "occupancy/occupancy.hpp"
#include "occupancy/proc_names.hpp"

namespace gpuconform {
namespace {

namespace fs = std::filesystem;

TEST(ProcVanish, AProcessWhoseFilesCannotBeReadIsAbsentFromOurTree) {
    const fs::path root = fs::temp_directory_path() / ("gpuconform-proc-vanish-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "proc/100");
    std::ofstream(root / "proc/100/stat") << "100 (our child) S " << ::getpid() << " 1 1\n";
    std::ofstream(root / "proc/100/comm") << "our child\n";
    fs::create_directories(root / "proc/101/stat");  // open succeeds, read fails
    fs::create_directories(root / "proc/101/comm");
    std::set<int> own;
    ASSERT_NO_THROW(own = own_process_tree(root.string()));
    EXPECT_EQ(own.count(100), 1u);
    EXPECT_EQ(own.count(101), 0u);
    EXPECT_EQ(process_name(root.string(), 100), "our child");
    EXPECT_NO_THROW(EXPECT_EQ(process_name(root.string(), 101), ""));
    EXPECT_NO_THROW(EXPECT_EQ(process_name(root.string(), 102), ""));
    fs::remove_all(root);
}

}  // namespace
}  // namespace gpuconform
