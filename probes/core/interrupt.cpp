#include "core/interrupt.hpp"

namespace gpuconform {

std::atomic<bool> g_interrupted{false};

}  // namespace gpuconform
