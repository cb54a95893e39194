// Byte strings from the environment, the kernel or a vendor library are not always UTF-8, and
// JSON must be. These turn any bytes into valid UTF-8 without losing what the bytes were.
#pragma once

#include <string>
#include <string_view>

namespace gpuconform {

bool is_valid_utf8(std::string_view bytes);
// Each byte that is not part of a well-formed UTF-8 sequence becomes U+FFFD.
std::string to_valid_utf8(std::string_view bytes);
// Printable ASCII as is, every other byte as \xNN: the raw bytes, readable and reversible.
std::string escape_bytes(std::string_view bytes);

}  // namespace gpuconform
