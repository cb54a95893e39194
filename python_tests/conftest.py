# gpuconform's pytest plugin (options --gpuconform-*, result files) for every test here.
pytest_plugins = ("gpuconform_torch.plugin",)
