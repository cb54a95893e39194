// "1 run", "2 runs": a count and its noun, agreeing, the same way in every view.
#pragma once

#include <cstddef>
#include <string>

namespace gpuconform {

// `many` defaults to `one` + "s"; give it for nouns that do not ("1 status", "2 statuses").
inline std::string count_of(std::size_t n, const std::string& one, const std::string& many = "") {
    return std::to_string(n) + " " + (n == 1 ? one : many.empty() ? one + "s" : many);
}

}  // namespace gpuconform
