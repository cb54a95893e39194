// Where the tests find the checkout's files and the build's outputs. The values live in one source
// that CMake writes into the build tree (test_paths.cpp.in), so no other test file's compile command
// names a path of this checkout and ccache reuses their objects in any other clone.
#pragma once

namespace gpuconform::test_paths {

extern const char source_dir[];  // the checkout's top folder
extern const char binary_dir[];  // the build tree: gpuconform, backends/, CMakeCache.txt
extern const char data_dir[];    // native_tests/data

}  // namespace gpuconform::test_paths
