"""Pure judges of the async-behaviour checks: measurements in, Verdict out. No torch here."""
from collections import Counter

from .results import Verdict

RETURNED_EARLY = "returned_early"
WAITED = "waited"
INCONCLUSIVE = "inconclusive"

# The half-gate rule, the same as the native layer's (probes/async/toolkit.cpp, classify): a call
# that took at least half the gate's length waited for it. It defines the words, so it is no
# profile value: the two layers must not judge the same evidence two ways.
k_waited_min_gate_fraction = 0.5


def classify_gated_call(busy_before, busy_after, call_ms, gate_ms):
    """Classifies one call made on a stream behind a queued spin (the gate).

    The evidence is the stream itself, not a timing threshold: busy after the call means the
    call came back before the queued work finished. A call that took most of the gate's time
    waited for it even if its own last chunk was still in flight (staged pageable copies).
    If the gate was already over before the call, nothing can be concluded.
    """
    if not busy_before:
        return INCONCLUSIVE
    if busy_after and call_ms < k_waited_min_gate_fraction * gate_ms:
        return RETURNED_EARLY
    return WAITED


def count_classes(classes):
    counts = Counter(classes)
    return {c: counts.get(c, 0) for c in (RETURNED_EARLY, WAITED, INCONCLUSIVE)}


def judge_must_return_early(classes, what, remediation):
    """Documented-required asynchrony: any trial that waited fails; no decisive trial is an error."""
    counts = count_classes(classes)
    decided = counts[RETURNED_EARLY] + counts[WAITED]
    if counts[WAITED]:
        return Verdict("fail", f"{what} waited for queued GPU work in {counts[WAITED]} of "
                       f"{len(classes)} trials; it must return early", remediation)
    if decided == 0:
        return Verdict("error", f"{what}: the gate spin was over before the call in all "
                       f"{len(classes)} trials, so nothing could be concluded",
                       "raise gate_ms for this check in the thresholds file")
    return Verdict("pass", f"{what} returned before queued GPU work finished in "
                   f"{counts[RETURNED_EARLY]} of {len(classes)} trials", None)


def describe_pageable(classes_by_size):
    """Documented-may behaviour: classified and reported, never failed. Keys are byte sizes."""
    parts = []
    for size, classes in sorted(classes_by_size.items()):
        counts = count_classes(classes)
        label = max((RETURNED_EARLY, WAITED), key=lambda c: counts[c]) if any(
            counts[c] for c in (RETURNED_EARLY, WAITED)) else INCONCLUSIVE
        parts.append(f"{size / 1048576:g} MiB {label.replace('_', ' ')} "
                     f"({counts[RETURNED_EARLY]}/{len(classes)} early)")
    return Verdict("info", "pageable .to(device, non_blocking=True): " + ", ".join(parts) +
                   "; pageable copies may be synchronous (documented), pin the source to overlap",
                   "use pin_memory() or DataLoader(pin_memory=True) for copies that must overlap")


def judge_valid_after_sync(valid_after, stale_before):
    """D2H non_blocking: the data must be valid after a synchronize; reading before is a hazard."""
    n = len(valid_after)
    bad = n - sum(bool(v) for v in valid_after)
    hazard = sum(bool(s) for s in stale_before)
    if n == 0:
        return Verdict("error", "no D2H trial ran", "see the check's error output")
    if bad:
        return Verdict("fail", f"D2H .to('cpu', non_blocking=True) gave wrong data after a "
                       f"synchronize in {bad} of {n} trials", "report to the torch build's vendor; "
                       "check the native async layer for the same copy")
    note = (f"read before synchronize was stale in {hazard} of {n} trials (the documented "
            "hazard)" if hazard else "no stale read seen before synchronize in "
            f"{n} trials (the hazard still exists)")
    return Verdict("pass", f"D2H non_blocking data valid after synchronize in {n} of {n} trials; "
                   + note + ": always synchronize before reading", None)


def judge_cross_stream(stale_with_wait, stale_without_wait, trials):
    """Ordering through Stream.wait_event must never give stale data, and a clean ordered read
    proves something only where the race without the wait was seen (as the native
    async.event.cross_stream_order judges)."""
    if trials == 0:
        return Verdict("error", "no cross-stream trial ran", "see the check's error output")
    shown = (f"without wait_event {stale_without_wait} of {trials} reads were stale"
             if stale_without_wait is not None else "race without wait_event not measured")
    if stale_with_wait:
        return Verdict("fail", f"consumer stream read stale data in {stale_with_wait} of {trials} "
                       f"trials despite Stream.wait_event ({shown})",
                       "the event did not order the streams: check the native async layer and "
                       "the driver; do not rely on torch events on this install")
    if not stale_without_wait:
        return Verdict("error", f"could not judge: {shown}, so the consumer never ran ahead of the "
                       f"producer and Stream.wait_event's ordering could not be shown",
                       "do the streams run concurrently (native async.stream.nonblocking_independent)? "
                       "is CUDA_LAUNCH_BLOCKING or AMD_SERIALIZE_KERNEL set?")
    return Verdict("pass", f"Stream.wait_event ordered the consumer in {trials} of {trials} "
                   f"trials; {shown}", None)


def judge_timing(relative_errors, max_relative_error):
    """Event timing against the host clock around a known spin."""
    if not relative_errors:
        return Verdict("error", "no timing trial ran", "see the check's error output")
    worst = max(relative_errors)
    if worst > max_relative_error:
        return Verdict("fail", f"Event.elapsed_time differs from the host clock by up to "
                       f"{worst:.1%} (allowed {max_relative_error:.1%})",
                       "torch event timing is unreliable here: time with the host clock after "
                       "synchronize; check the native async.event.timing_accuracy")
    return Verdict("pass", f"Event.elapsed_time matches the host clock within {worst:.1%} "
                   f"(allowed {max_relative_error:.1%})", None)


def overlap_ratio(t_a, t_b, t_both):
    """(t_a + t_b − t_both) / min(t_a, t_b): 1 is full overlap, 0 none, below 0 interference."""
    shorter = min(t_a, t_b)
    if shorter <= 0:
        raise ValueError("overlap_ratio needs positive durations")
    return (t_a + t_b - t_both) / shorter


def judge_overlap(ratio, min_ratio):
    if ratio >= min_ratio:
        return Verdict("pass", f"copy and compute on two torch streams overlapped: ratio "
                       f"{ratio:.2f} (required ≥ {min_ratio:.2f})", None)
    return Verdict("fail", f"copy and compute on two torch streams barely overlapped: ratio "
                   f"{ratio:.2f} (required ≥ {min_ratio:.2f})",
                   "copy from pinned memory on its own torch.cuda.Stream; check the native "
                   "async.overlap.copy_compute and CUDA_LAUNCH_BLOCKING/AMD_SERIALIZE_* variables")


def judge_record_stream(corrupt_with, trials, corrupt_without):
    """record_stream must keep the freed block from reuse until the side stream is done."""
    if trials == 0:
        return Verdict("error", "no record_stream trial ran", "see the check's error output")
    shown = (f"without it the side stream read overwritten data in {corrupt_without} of {trials}"
             if corrupt_without is not None else "hazard without it not measured")
    if corrupt_with:
        return Verdict("fail", f"with record_stream the side stream still read overwritten data "
                       f"in {corrupt_with} of {trials} trials ({shown})",
                       "keep such tensors alive until the side stream synchronizes; report the "
                       "caching allocator bug to the torch build's vendor")
    return Verdict("pass", f"record_stream kept the block from early reuse in {trials} of "
                   f"{trials} trials; {shown}", None)


def wrong_data(valid_flags, what):
    """A fail Verdict when any copy gave wrong data after synchronizing, else None."""
    bad = len(valid_flags) - sum(bool(v) for v in valid_flags)
    if not bad:
        return None
    return Verdict("fail", f"{what} gave wrong data after synchronizing in {bad} of "
                   f"{len(valid_flags)} trials", "check the native async copy checks and the "
                   "driver; this install corrupts copies")
