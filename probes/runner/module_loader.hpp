// Finds and loads backend modules at run time, so one build starts on every node: a runtime
// library that will not load is a reported result (with the loader's message), never a crash.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"

namespace gpuconform {

struct LoadedBackend {
    std::string path;   // the module file tried; empty when none was found
    std::string error;  // the loader's message when backend is null
    std::unique_ptr<Backend> backend;
};

// Where modules are looked for: $GPUCONFORM_MODULE_DIR alone when set; else module_search_dirs_for
// the executable's folder.
std::vector<std::string> module_search_dirs();
// A build tree (CMakeCache.txt in `exe_dir`): <exe_dir>/backends. Else the installed folder,
// <exe_dir>/../<libdir>/gpuconform; <exe_dir>/backends only where that folder is missing and
// backends/ is there (a build's executable copied out with its modules).
std::vector<std::string> module_search_dirs_for(const std::string& exe_dir);
bool is_build_tree(const std::string& exe_dir);
std::string executable_dir();

// Loads lib<gpuconform-NAME>.so; never throws. The handle stays open for the process's life.
LoadedBackend load_backend(const std::string& name, const std::string& options);

}  // namespace gpuconform

namespace gpuconform {
// The pytest layer's folder: <exe dir>/share/gpuconform/python_tests (build tree) or <exe
// dir>/../share/gpuconform/python_tests.
std::string find_python_tests_dir();
}  // namespace gpuconform
