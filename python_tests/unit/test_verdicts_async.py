"""The async judges, as tables of cases: each row could fail."""
import pytest

from gpuconform_torch import verdicts_async as va

E, W, I = va.RETURNED_EARLY, va.WAITED, va.INCONCLUSIVE


@pytest.mark.parametrize("busy_before, busy_after, call_ms, gate_ms, expected", [
    (True, True, 0.05, 20, E),     # came back while the gate still ran
    (True, False, 20.5, 20, W),    # blocked until the queue drained
    (True, True, 18.0, 20, W),     # staged copy: waited for the gate, last chunk still in flight
    (False, True, 0.05, 20, I),    # gate already over: nothing to conclude
    (False, False, 0.05, 20, I),
])
def test_classify_gated_call(busy_before, busy_after, call_ms, gate_ms, expected):
    assert va.classify_gated_call(busy_before, busy_after, call_ms, gate_ms) == expected


@pytest.mark.parametrize("classes, status", [
    ([E, E, E], "pass"),
    ([E, I, E], "pass"),
    ([E, W, E], "fail"),
    ([I, I], "error"),
])
def test_must_return_early(classes, status):
    assert va.judge_must_return_early(classes, "copy", "fix").status == status


def test_pageable_is_info_whatever_it_did():
    verdict = va.describe_pageable({1 << 20: [E, E], 64 << 20: [W, W]})
    assert verdict.status == "info"
    assert "1 MiB returned early" in verdict.summary and "64 MiB waited" in verdict.summary


@pytest.mark.parametrize("t_a, t_b, t_both, ratio", [
    (5.0, 5.0, 5.0, 1.0),    # full overlap
    (5.0, 5.0, 10.0, 0.0),   # serialized
    (4.0, 8.0, 10.0, 0.5),   # half of the shorter hidden
    (5.0, 5.0, 12.0, -0.4),  # interference is reported, not clamped
])
def test_overlap_ratio(t_a, t_b, t_both, ratio):
    assert va.overlap_ratio(t_a, t_b, t_both) == pytest.approx(ratio)


def test_overlap_ratio_refuses_zero_durations():
    with pytest.raises(ValueError):
        va.overlap_ratio(0.0, 5.0, 5.0)


@pytest.mark.parametrize("ratio, status", [(0.95, "pass"), (0.5, "pass"), (0.49, "fail"), (-0.2, "fail")])
def test_judge_overlap(ratio, status):
    assert va.judge_overlap(ratio, 0.5).status == status


@pytest.mark.parametrize("errors, status", [([0.001, 0.01], "pass"), ([0.01, 0.2], "fail"), ([], "error")])
def test_judge_timing(errors, status):
    assert va.judge_timing(errors, 0.05).status == status


@pytest.mark.parametrize("with_wait, without, trials, status", [
    (0, 10, 10, "pass"), (0, 1, 10, "pass"), (1, 10, 10, "fail"), (1, 0, 10, "fail"),
    (0, 0, 10, "error"), (0, None, 10, "error"), (0, 0, 0, "error")])
def test_judge_cross_stream(with_wait, without, trials, status):
    assert va.judge_cross_stream(with_wait, without, trials).status == status


@pytest.mark.parametrize("valid, stale, status", [
    ([True] * 3, [True, False, True], "pass"),
    ([True, False, True], [True] * 3, "fail"),
    ([], [], "error"),
])
def test_d2h_valid_after_sync(valid, stale, status):
    assert va.judge_valid_after_sync(valid, stale).status == status


@pytest.mark.parametrize("corrupt_with, trials, corrupt_without, status", [
    (0, 3, 2, "pass"), (1, 3, 2, "fail"), (0, 0, None, "error")])
def test_judge_record_stream(corrupt_with, trials, corrupt_without, status):
    assert va.judge_record_stream(corrupt_with, trials, corrupt_without).status == status


def test_wrong_data_fails_only_on_bad_copies():
    assert va.wrong_data([True, True], "copy") is None
    assert va.wrong_data([True, False], "copy").status == "fail"
