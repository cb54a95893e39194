#include "runner/worker_child.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "async/toolkit.hpp"
#include "core/buffer_cache.hpp"
#include "runner/call_profile.hpp"
#include "runner/module_loader.hpp"

namespace gpuconform {

namespace {

void write_line(int fd, const nlohmann::json& j) {
    const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) {
            _exit(3);  // the parent is gone: nothing left to report to
        }
        done += static_cast<std::size_t>(n);
    }
}

bool read_line(int fd, std::string& buffer, std::string* line) {
    for (;;) {
        const auto pos = buffer.find('\n');
        if (pos != std::string::npos) {
            *line = buffer.substr(0, pos);
            buffer.erase(0, pos + 1);
            return true;
        }
        char chunk[4096];
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n <= 0) {
            return false;
        }
        buffer.append(chunk, static_cast<std::size_t>(n));
    }
}

BackendInfo describe(const WorkerSetup& setup, LoadedBackend& loaded) {
    BackendInfo info;
    info.name = setup.backend;
    info.module_path = loaded.path;
    info.loaded = loaded.backend != nullptr;
    info.load_error = loaded.error;
    if (!info.loaded) {
        return info;
    }
    Backend& b = *loaded.backend;
    info.vendor = b.vendor();
    info.versions = b.versions();
    info.count_status = b.device_count(&info.device_count);
    if (!info.count_status.ok()) {
        info.device_count = 0;
    }
    for (int d = 0; d < info.device_count; ++d) {
        DeviceProps props;
        info.device_errors.push_back(b.device_props(d, &props));
        info.devices.push_back(props);
    }
    return info;
}

}  // namespace

CheckResult run_check_in_process(const CheckDef& def, CheckContext& ctx) {
    CheckResult r;
    r.id = def.id;
    r.layer = def.layer;
    r.backend = ctx.backend != nullptr ? ctx.backend->name() : "";
    if (def.scope == Scope::Device) {
        r.device = ctx.device;
    }
    const auto start = std::chrono::steady_clock::now();
    try {
        if (ctx.backend != nullptr && def.scope == Scope::Device) {
            GC_CHECK(ctx.backend->set_device(ctx.device));
        }
        def.run(ctx, r);
    } catch (const SkipCheck& e) {
        r.status = Status::Skip;
        r.summary = e.what();
    } catch (const WrongData& e) {
        r.status = Status::Fail;
        r.summary = std::string("wrong data after synchronize: ") + e.what();
        r.remediation =
            "the runtime reported success for work that delivered wrong data: report the driver and "
            "runtime versions; look for PCIe or memory errors (dmesg, nvidia-smi -q / rocm-smi) and "
            "the IOMMU settings";
    } catch (const ApiError& e) {
        r.status = Status::Error;
        r.summary = std::string("API error: ") + e.what();
    } catch (const std::exception& e) {
        r.status = Status::Error;
        r.summary = std::string("check failed to run: ") + e.what();
    }
    r.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

void worker_child_main(const WorkerSetup& setup, int in_fd, int out_fd) {
    LoadedBackend loaded = load_backend(setup.backend, setup.options);
    const BackendInfo info = describe(setup, loaded);
    write_line(out_fd, info);
    if (!info.loaded) {
        _exit(0);
    }
    // GPUCONFORM_CALL_PROFILE=FILE: every check's calls counted and timed, one line per check.
    const char* profile_path = std::getenv("GPUCONFORM_CALL_PROFILE");
    std::unique_ptr<ProfiledBackend> profiled;
    int profile_fd = -1;
    if (profile_path != nullptr && *profile_path != '\0') {
        profile_fd = ::open(profile_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (profile_fd >= 0) {
            profiled = std::make_unique<ProfiledBackend>(*loaded.backend);
        }
    }
    Backend& backend = profiled ? *profiled : *loaded.backend;
    async::use_host_clock_of(&backend);  // the checks' host clock is the backend's
    BufferCache buffers(backend);        // kept across checks; the worker ends with _exit
    std::string buffer;
    std::string line;
    while (read_line(in_fd, buffer, &line)) {
        const auto request = nlohmann::json::parse(line, nullptr, false);
        if (request.is_discarded() || !request.contains("check")) {
            _exit(0);
        }
        const CheckDef* def = find_check(request.at("check").get<std::string>());
        const int device = request.value("device", 0);
        CheckContext ctx{*setup.env, *setup.profile, *setup.options_run, &backend, &info, device, {}};
        ctx.buffers = &buffers;
        if (device >= 0 && device < static_cast<int>(info.devices.size())) {
            ctx.props = info.devices[static_cast<std::size_t>(device)];
        }
        CheckResult r;
        if (def == nullptr) {
            r.id = request.at("check").get<std::string>();
            r.status = Status::Error;
            r.summary = "unknown check id in worker request";
        } else {
            if (profiled) {
                profiled->reset();
            }
            r = run_check_in_process(*def, ctx);
            if (profiled) {
                // One write per line (O_APPEND): workers of several devices may share the file.
                const std::string text = profiled->line(r.id, device, r.duration_s).dump() + "\n";
                (void)!::write(profile_fd, text.data(), text.size());
            }
        }
        // A sticky error poisons the context for every later check: report it and let the
        // parent start a fresh worker.
        const ApiResult health = loaded.backend->device_synchronize();
        write_line(out_fd, {{"result", r}, {"healthy", health.ok()}, {"health", health}});
        if (!health.ok()) {
            _exit(0);
        }
    }
    _exit(0);
}

}  // namespace gpuconform
