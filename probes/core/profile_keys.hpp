// Expectation keys: each check declares the keys it reads, with the range a value may take
// (CheckDef::profile_keys, in the check's own file). The registry's view of every declaration,
// a ProfileCatalogue (checks/declarations.hpp), is what the profile reader holds a file to: it
// rejects any other key (naming the nearest declared one), and CheckContext::expect throws for an
// undeclared key, so a check cannot read a key the reader would refuse.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace gpuconform {

// One key a check reads. The unit is in the name: _ms, _ratio, _gbps, _bytes, _flag.
struct KeySpec {
    std::string key;
    double min = 0;  // inclusive
    double max = 0;  // inclusive
    bool integer = false;
};

// Ranges are generous bounds on sense, not expectations: a gate of 0 ms cannot hold a call back,
// a ratio above 1 cannot be met, a launch cap beyond ten million never ends in the time limit.
namespace keys {
KeySpec ms(std::string key);                     // 0.1 ms (the host sees a shorter spin end) to a minute
KeySpec ratio(std::string key, double max = 1);  // 0 to max
KeySpec gbps(std::string key);                   // 0 to 10,000 GB/s
KeySpec bytes(std::string key);                  // whole bytes, up to 1 PiB
KeySpec count(std::string key);                  // trials, repetitions: 1 to 10,000
KeySpec copy_bytes();                            // a copy buffer: 1 MiB (less is launch overhead) to 4 GiB
KeySpec range(std::string key, double min, double max, bool integer);
}  // namespace keys

// A key as the profile reader sees it: the check that reads it and its range.
struct ProfileKey {
    std::string check;
    std::string key;
    double min = 0;
    double max = 0;
    bool integer = false;
};

// What a profile may name: the check ids, and every key a check reads. With no ids (a file read on
// its own) any id is taken, but keys are still held to `keys`.
struct ProfileCatalogue {
    std::set<std::string> check_ids;
    std::vector<ProfileKey> keys;

    const ProfileKey* find(const std::string& check, const std::string& key) const;
    // The keys declared for `check` (empty when it reads none).
    std::vector<std::string> keys_of(const std::string& check) const;
};

}  // namespace gpuconform
