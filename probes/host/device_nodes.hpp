// host.device_nodes: the device files each vendor's runtime opens, and whether this user can.
// NVIDIA: /dev/nvidiactl, /dev/nvidia<N>, /dev/nvidia-uvm. AMD: /dev/kfd, /dev/dri/renderD<N>.
#pragma once

#include <string>
#include <vector>

#include "host/verdict.hpp"

namespace gpuconform {

struct NodeProbe {
    std::string path;    // "/dev/kfd" (as on the host, without the test root)
    std::string vendor;  // "nvidia", "amd"
    bool lazy = false;   // may be created on first use (/dev/nvidia-uvm)
    bool exists = false;
    bool openable = false;  // open(O_RDWR) succeeded
    std::string error;      // strerror of the failed open
    std::string mode;       // "crw-rw----"
    std::string owner;
    std::string group;
};

// Stats and opens (O_RDWR, then closes) one node below `root`.
NodeProbe probe_node(const std::string& root, const std::string& path, const std::string& vendor, bool lazy);

// The nodes a vendor's runtime needs; a missing numbered family appears as its first member.
std::vector<NodeProbe> probe_vendor_nodes(const std::string& root, const std::string& vendor);

struct DeviceNodesInput {
    int nvidia_gpus = 0;
    int amd_gpus = 0;
    std::vector<NodeProbe> nodes;     // for the vendors with GPUs on the bus
    std::vector<std::string> groups;  // groups this process holds
    std::string user;
};

Verdict judge_device_nodes(const DeviceNodesInput& in);

}  // namespace gpuconform
