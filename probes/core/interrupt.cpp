#include "core/interrupt.hpp"

#include <csignal>

namespace gpuconform {

std::atomic<bool> g_interrupted{false};

namespace {
void on_stop_signal(int) { g_interrupted = true; }
}  // namespace

void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
}

}  // namespace gpuconform
