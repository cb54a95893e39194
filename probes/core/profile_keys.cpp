#include "core/profile_keys.hpp"

#include <utility>

namespace gpuconform {

namespace keys {

namespace {
constexpr double k_max_ms = 60'000;    // one minute: longer than any check's time limit
constexpr double k_min_gate_ms = 0.1;  // below this the host sees the spin end before it looks
constexpr double k_max_gbps = 10'000;
constexpr double k_max_bytes = 1ull << 50;
}  // namespace

KeySpec ms(std::string key) { return {std::move(key), k_min_gate_ms, k_max_ms, false}; }
KeySpec ratio(std::string key, double max) { return {std::move(key), 0, max, false}; }
KeySpec gbps(std::string key) { return {std::move(key), 0, k_max_gbps, false}; }
KeySpec bytes(std::string key) { return {std::move(key), 0, k_max_bytes, true}; }
KeySpec count(std::string key) { return {std::move(key), 1, 10'000, true}; }
KeySpec copy_bytes() { return {"copy_bytes", 1 << 20, 1ull << 32, true}; }
KeySpec range(std::string key, double min, double max, bool integer) { return {std::move(key), min, max, integer}; }

}  // namespace keys

const ProfileKey* ProfileCatalogue::find(const std::string& check, const std::string& key) const {
    for (const auto& k : keys) {
        if (k.check == check && k.key == key) {
            return &k;
        }
    }
    return nullptr;
}

std::vector<std::string> ProfileCatalogue::keys_of(const std::string& check) const {
    std::vector<std::string> out;
    for (const auto& k : keys) {
        if (k.check == check) {
            out.push_back(k.key);
        }
    }
    return out;
}

}  // namespace gpuconform
