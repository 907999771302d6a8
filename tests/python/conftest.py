"""Shared fixtures of the Python module's tests: the CLI next to the module, and the digits
model compiled once per session (compiling is what the module lets callers do once)."""

import os
import subprocess

import numpy as np
import pytest

import npu


@pytest.fixture(scope="session")
def cli():
    """Runs the `npu` CLI of the same build ($NPU_CLI); returns the CompletedProcess."""
    path = os.environ["NPU_CLI"]

    def run(*args, check=True, cwd=None):
        return subprocess.run([path, *map(str, args)], capture_output=True, text=True,
                              check=check, cwd=cwd)
    return run


@pytest.fixture(scope="session")
def digits():
    return npu.compile(npu.bundled_model(), hw="npu-s")


@pytest.fixture(scope="session")
def digits_inputs():
    folder = os.path.dirname(npu.bundled_model())
    return (np.load(os.path.join(folder, "test_inputs.npy")),
            np.load(os.path.join(folder, "test_labels.npy")))
