"""gpuconform's framework layer: PyTorch asked the `async` layer's questions.

Modules without torch (checks, verdicts_*, attribution, results, thresholds) hold the logic and
are unit-tested on any Python; torch_env and gating touch torch and run only in the checks.
"""
