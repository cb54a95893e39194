// The framework layer's checks (pytest, python_tests/framework/): a row each with what it owns,
// its profile keys and its measurements' meaning, as a native check declares them in its CheckDef.
// pytest reads the keys' values through `gpuconform profile --prefix framework.`; `gpuconform list`
// shows the rows; python_tests/gpuconform_torch/checks.py names each id's native twin (a unit test
// holds the two to one set of ids).
#include "framework/framework_checks.hpp"

namespace gpuconform {

namespace {
CheckDef row(std::string id, std::string description, std::vector<KeySpec> keys,
             std::vector<MeasureSpec> measurements) {
    CheckDef d;
    d.id = std::move(id);
    d.layer = "framework";
    d.description = std::move(description);
    d.profile_keys = std::move(keys);
    d.measurements = std::move(measurements);
    return d;
}
}  // namespace

std::vector<CheckDef> framework_checks() {
    return {
        row("framework.torch", "the layer itself: the spin every gated torch check queues is calibrated once",
            {keys::ms("calibration_ms")}, {}),
        row("framework.torch.build", "torch imports, is built for this machine's GPU vendor and can use it", {}, {}),
        row("framework.torch.driver_compat", "torch's CUDA/HIP runtime version fits the installed driver", {}, {}),
        row("framework.torch.devices", "torch sees the same device count and names as the native runtime", {}, {}),
        row("framework.torch.dnn_library", "the cuDNN/MIOpen torch loads fits the one it was built with", {}, {}),
        row("framework.torch.arch_list", "the GPU architecture is among those the torch wheel was compiled for", {},
            {}),
        row("framework.torch.pin_memory", "Tensor.pin_memory() and pin_memory=True give pinned host memory",
            {keys::bytes("size_bytes")}, {}),
        row("framework.torch.dataloader_pinned", "DataLoader(pin_memory=True) yields pinned batches without workers",
            {keys::count("batches")}, {}),
        row("framework.torch.dataloader_pinned_workers",
            "DataLoader(pin_memory=True) yields pinned batches with worker processes",
            {keys::count("batches"), keys::count("workers")}, {}),
        row("framework.torch.launch_returns_early", "a queued torch.cuda._sleep spin returns before it completes",
            {keys::count("trials"), keys::ms("gate_ms")}, {measure::diagnostic("launch_ms", Direction::Lower, 2.00)}),
        row("framework.torch.non_blocking_h2d",
            ".to(device, non_blocking=True) from pinned memory returns before the copy is done",
            {keys::count("trials"), keys::ms("gate_ms"), keys::bytes("size_bytes")},
            {measure::diagnostic("call_ms", Direction::Lower, 2.00)}),
        row("framework.torch.pageable_h2d",
            ".to(device, non_blocking=True) from pageable memory, classified (documented may)",
            {keys::count("trials"), keys::ms("gate_ms"), keys::bytes("small_bytes"), keys::bytes("large_bytes")},
            {measure::diagnostic("call_ms_*", Direction::None, 0.50)}),
        row("framework.torch.non_blocking_d2h",
            ".to('cpu', non_blocking=True): data read before a synchronize is a hazard, after it valid",
            {keys::count("trials"), keys::ms("gate_ms"), keys::bytes("size_bytes")},
            {measure::diagnostic("call_ms", Direction::Lower, 2.00)}),
        row("framework.torch.event_cross_stream",
            "Stream.wait_event orders a consumer stream after a producer: never stale",
            {keys::count("trials"), keys::ms("gate_ms"), keys::bytes("size_bytes")}, {}),
        row("framework.torch.event_timing",
            "Event(enable_timing=True) elapsed_time matches the host clock for a known spin",
            {keys::count("trials"), keys::ms("spin_ms"), keys::ratio("max_relative_error")},
            {measure::diagnostic("relative_error", Direction::Lower, 1.00),
             measure::diagnostic("*_ms", Direction::None, 0.20)}),
        row("framework.torch.overlap_copy_compute", "an H2D copy and a kernel on two torch streams overlap",
            {keys::count("trials"), keys::bytes("size_bytes"), keys::ratio("overlap_min_ratio")},
            {measure::key("overlap_ratio", Direction::Higher, 0.10),
             measure::diagnostic("*_ms", Direction::None, 0.20)}),
        row("framework.torch.record_stream",
            "Tensor.record_stream keeps a tensor freed on the main stream from early reuse",
            {keys::count("trials"), keys::ms("gate_ms"), keys::bytes("size_bytes")}, {}),
    };
}

}  // namespace gpuconform
