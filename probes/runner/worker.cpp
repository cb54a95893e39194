#include "runner/worker.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "runner/worker_child.hpp"

namespace gpuconform {

namespace {
// In a forked worker: closes every descriptor above stderr but its two pipe ends. A fork keeps
// what the parent had open (earlier workers' pipes, the framework layer's go socket), and a
// worker holding another's write end would keep that one from ever seeing end of file.
void keep_only_fds(int a, int b) {
    unsigned next = 3;  // the first descriptor not yet dealt with
    for (const int keep : {std::min(a, b), std::max(a, b)}) {
        const auto k = static_cast<unsigned>(keep);
        if (keep >= 0 && k >= next) {  // a pipe end below 3 (a closed stdin) needs no gap
            if (k > next) {
                close_range(next, k - 1, 0);
            }
            next = k + 1;
        }
    }
    close_range(next, ~0u, 0);
}
}  // namespace

std::unique_ptr<Worker> Worker::start(const WorkerSetup& setup, double hello_timeout_s, BackendInfo* info) {
    // fork, dlopen of the module, the runtime's start and its device count, until the hello.
    PhaseLog::Scope stamp(setup.phases, "worker." + setup.backend + ".start");
    std::unique_ptr<Worker> w(new Worker());
    info->name = setup.backend;
    Fd child_reads, parent_writes, parent_reads, child_writes;
    if (!make_pipe(&child_reads, &parent_writes) || !make_pipe(&parent_reads, &child_writes)) {
        info->load_error = fmt::format("cannot create pipes for the worker: {}", std::strerror(errno));
        return w;
    }
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) {
        info->load_error = fmt::format("cannot fork the worker: {}", std::strerror(errno));
        return w;
    }
    if (pid == 0) {
        setpgid(0, 0);            // its own group, so a timeout ends everything it started
        signal(SIGINT, SIG_IGN);  // the parent decides when a worker ends
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_IGN);  // a dropped session reaches the parent, which stops us
        parent_writes.reset();
        parent_reads.reset();
        keep_only_fds(child_reads.get(), child_writes.get());             // no other worker's pipe, no go socket
        worker_child_main(setup, child_reads.get(), child_writes.get());  // ends with _exit
    }
    w->m_child = ChildGroup(pid);
    child_reads.reset();  // the child's ends: held here, a dead child's pipe would never read as closed
    child_writes.reset();
    w->m_to_child = std::move(parent_writes);
    w->m_from_child = std::move(parent_reads);

    std::string line;
    const auto status = w->read_line(hello_timeout_s, &line);
    if (status == ReadStatus::Line) {
        const auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded()) {
            *info = j.get<BackendInfo>();
            if (!info->loaded) {
                w->reap(false);
            }
            return w;
        }
        info->load_error = "worker sent an unreadable hello";
    } else if (status == ReadStatus::Timeout) {
        info->load_error = fmt::format("loading the {} backend and counting devices did not finish within {} s",
                                       setup.backend, hello_timeout_s);
    } else if (status == ReadStatus::Interrupted) {
        info->load_error = "interrupted";
    }
    const std::string how = w->reap(status != ReadStatus::Closed);
    if (info->load_error.empty()) {
        info->load_error = fmt::format("the worker loading the {} backend {}", setup.backend, how);
    }
    info->loaded = false;
    return w;
}

Worker::~Worker() {
    if (alive()) {
        reap(true);
    }
}

Worker::ReadStatus Worker::read_line(double timeout_s, std::string* line) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
        const auto pos = m_buffer.find('\n');
        if (pos != std::string::npos) {
            *line = m_buffer.substr(0, pos);
            m_buffer.erase(0, pos + 1);
            return ReadStatus::Line;
        }
        if (g_interrupted) {
            return ReadStatus::Interrupted;
        }
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            return ReadStatus::Timeout;
        }
        pollfd p{m_from_child.get(), POLLIN, 0};
        const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 100)));
        if (ready <= 0) {
            continue;  // timeout slice or EINTR: check the flag and the deadline again
        }
        char chunk[65536];
        const ssize_t n = ::read(m_from_child.get(), chunk, sizeof chunk);
        if (n <= 0) {
            return ReadStatus::Closed;
        }
        m_buffer.append(chunk, static_cast<std::size_t>(n));
    }
}

std::string Worker::reap(bool kill_first) {
    if (!m_child.running()) {
        return "had already ended";
    }
    if (kill_first) {
        m_child.signal_group(SIGKILL);
    }
    m_to_child.reset();
    m_from_child.reset();
    return m_child.wait().describe();
}

CheckResult Worker::run(const CheckDef& def, int device, double timeout_s) {
    if (!send(def, device)) {
        CheckResult r;
        r.id = def.id;
        r.layer = def.layer;
        r.device = device;
        r.status = Status::Error;
        r.summary = alive() ? "cannot send the check to its worker" : "the worker process had ended before this check";
        reap(true);
        return r;
    }
    return receive(def, device, timeout_s);
}

bool Worker::send(const CheckDef& def, int device) {
    if (!alive()) {
        return false;
    }
    const std::string request = nlohmann::json{{"check", def.id}, {"device", device}}.dump() + "\n";
    return ::write(m_to_child.get(), request.data(), request.size()) == static_cast<ssize_t>(request.size());
}

CheckResult Worker::receive(const CheckDef& def, int device, double timeout_s) {
    CheckResult r;
    r.id = def.id;
    r.layer = def.layer;
    r.device = device;
    r.status = Status::Error;
    const auto start = std::chrono::steady_clock::now();
    auto finish = [&](const std::string& summary) {
        r.summary = summary;
        r.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return r;
    };
    if (!alive()) {
        return finish("the worker process had ended before this check");
    }
    std::string line;
    switch (read_line(timeout_s, &line)) {
        case ReadStatus::Line:
            break;
        case ReadStatus::Timeout:
            reap(true);
            return finish(fmt::format(
                "timed out after {:.0f} s; the worker was killed and a fresh one runs the next checks", timeout_s));
        case ReadStatus::Interrupted:
            reap(true);
            return finish("interrupted (SIGINT/SIGTERM) while this check ran");
        case ReadStatus::Closed:
            return finish("the worker process died during this check: it " + reap(false));
    }
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("result")) {
        reap(true);
        return finish("the worker sent an unreadable result");
    }
    r = j.at("result").get<CheckResult>();
    if (!j.value("healthy", true)) {
        const auto health = j.at("health").get<ApiResult>();
        r.facts["sticky_error"] = health.name;
        // An isolated check provokes such errors on purpose; any other check leaving one is an error.
        if (!def.isolated && r.status != Status::Error && r.status != Status::Fail) {
            r.status = Status::Error;
            r.summary = fmt::format("left the device in a sticky error state ({}: {}); {}", health.name, health.message,
                                    r.summary);
        }
        reap(true);
    }
    return r;
}

}  // namespace gpuconform
