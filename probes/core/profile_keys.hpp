// Every expectation key a check reads from a profile, with the range a value may take: the one
// declared list. The profile reader rejects any other key (with the nearest declared one), and
// CheckContext::expect throws for an undeclared key, so a check cannot read a key the reader
// would refuse (every sim run would turn it into `error`; native_tests/core checks the sources).
#pragma once

#include <string>
#include <vector>

namespace gpuconform {

struct ProfileKey {
    std::string check;  // check id
    std::string key;    // unit in the name: _ms, _ratio, _gbps, _bytes, _flag
    double min = 0;     // inclusive
    double max = 0;     // inclusive
    bool integer = false;
};

const std::vector<ProfileKey>& declared_profile_keys();
const ProfileKey* find_profile_key(const std::string& check, const std::string& key);
// The keys declared for `check` (empty when it reads none).
std::vector<std::string> profile_keys_of(const std::string& check);

}  // namespace gpuconform
