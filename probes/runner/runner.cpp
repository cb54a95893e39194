#include "runner/runner.hpp"

#include <fnmatch.h>
#include <sched.h>

#include <algorithm>

#include "checks/declarations.hpp"

namespace gpuconform {

const std::vector<std::string>& known_layers() {
    static const std::vector<std::string> layers{"host", "health", "runtime", "async", "framework", "acceptance"};
    return layers;
}

const std::vector<std::string>& opt_in_layers() {
    static const std::vector<std::string> layers{"acceptance"};
    return layers;
}

bool layer_chosen(const std::vector<std::string>& layers, const std::string& layer) {
    if (layers.empty()) {
        return std::find(opt_in_layers().begin(), opt_in_layers().end(), layer) == opt_in_layers().end();
    }
    return std::find(layers.begin(), layers.end(), layer) != layers.end();
}

bool framework_starts_early(FrameworkStart start, int cpus) {
    return start == FrameworkStart::Early || (start == FrameworkStart::Auto && cpus >= k_early_start_min_cpus);
}

int usable_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        return 1;
    }
    return CPU_COUNT(&set);
}

bool only_reaches_layer(const std::vector<std::string>& only, const std::string& layer) {
    if (only.empty()) {
        return true;
    }
    const std::string prefix = layer + ".";
    for (const auto& glob : only) {
        const std::string literal = glob.substr(0, glob.find_first_of("*?["));
        if (prefix.compare(0, literal.size(), literal) == 0 || literal.compare(0, prefix.size(), prefix) == 0) {
            return true;
        }
    }
    return false;
}

bool matches_any(const std::string& id, const std::vector<std::string>& globs) {
    if (globs.empty()) {
        return true;
    }
    for (const auto& g : globs) {
        if (fnmatch(g.c_str(), id.c_str(), 0) == 0) {
            return true;
        }
    }
    return false;
}

Profile load_profile(const std::vector<std::string>& files) {
    const ProfileCatalogue& catalogue = profile_catalogue();
    Profile profile = Profile::builtin(catalogue);
    for (const auto& file : files) {
        profile.merge(Profile::load_file(file, catalogue));
    }
    return profile;
}

}  // namespace gpuconform
