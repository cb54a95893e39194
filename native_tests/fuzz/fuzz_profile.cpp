// libFuzzer harness over the profile reader: any text is a Profile or a ProfileError (which the
// runner reports as exit 2); any other exception, crash or hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "checks/declarations.hpp"
#include "core/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto profile = gpuconform::Profile::parse(text, "fuzz.yaml", gpuconform::profile_catalogue());
        (void)profile.lookup("async.copy.bandwidth", "pcie_efficiency_min_ratio", "nvidia", "sm_90");
    } catch (const gpuconform::ProfileError&) {
    }
    return 0;
}
