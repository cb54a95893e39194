// Device checks run in a child process (a worker) per backend: a hung kernel, a crash or a sticky
// device error ends that check as `error` and the runner starts a fresh worker for the rest.
// The parent never loads a GPU runtime itself, so forking is safe.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <sys/types.h>

#include "core/backend_info.hpp"
#include "core/check.hpp"
#include "core/child_group.hpp"
#include "core/interrupt.hpp"  // g_interrupted: workers are stopped and the run ends with a partial report
#include "core/phase_log.hpp"
#include "runner/worker_setup.hpp"

namespace gpuconform {

class Worker {
public:
    // Forks the child, which loads the module and reports what it sees. Always returns a worker
    // object; when the child could not report, info->loaded is false and load_error says why.
    static std::unique_ptr<Worker> start(const WorkerSetup& setup, double hello_timeout_s, BackendInfo* info);
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    // Runs one device check in the child. A timeout, crash or sticky error yields an `error`
    // result naming it, and the worker is then dead (alive() == false).
    CheckResult run(const CheckDef& def, int device, double timeout_s);
    // The same in two halves, so several workers can run one check on their devices at once.
    bool send(const CheckDef& def, int device);
    CheckResult receive(const CheckDef& def, int device, double timeout_s);
    bool alive() const { return m_child.running(); }

private:
    Worker() = default;
    enum class ReadStatus { Line, Timeout, Closed, Interrupted };
    ReadStatus read_line(double timeout_s, std::string* line);
    std::string reap(bool kill_first);  // ends the child; returns how it ended, in words
    ChildGroup m_child;
    Fd m_to_child;
    Fd m_from_child;
    std::string m_buffer;
};

}  // namespace gpuconform
