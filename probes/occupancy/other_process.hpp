// Another process on a GPU, as an occupancy provider saw it (occupancy.hpp, proc_names.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpuconform {

struct OtherProcess {
    int pid = 0;
    std::string name;                           // /proc/<pid>/comm, or what the library said
    std::optional<std::uint64_t> memory_bytes;  // GPU memory it holds, when the library says
};

}  // namespace gpuconform
