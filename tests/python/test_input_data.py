"""Calibration data of a two-input model from Python: a .npz path, a dict of batches, a folder
per input and a list of samples all give the same model; a .npz that does not fit raises the
CLI's message."""

import os

import numpy as np
import pytest

import npu

MODEL = os.path.join(os.path.dirname(__file__), "..", "data", "multi_input", "two_inputs.yaml")


@pytest.fixture(scope="module")
def batches():
    rng = np.random.default_rng(5)
    return {"x": rng.standard_normal((4, 2, 3, 3)).astype(np.float32),
            "g": rng.uniform(0.5, 2.0, (4, 4, 1, 1)).astype(np.float32)}


def outputs(model, batches):
    sample = {name: batch[:1] for name, batch in batches.items()}
    run = model.run(sample, mode="functional")
    assert run.bit_exact
    return run.outputs["gated"]


def test_every_layout_gives_the_same_model(batches, tmp_path):
    np.savez_compressed(tmp_path / "data.npz", **batches)
    for name, batch in batches.items():
        os.makedirs(tmp_path / "folders" / name)
        np.save(tmp_path / "folders" / name / "all.npy", batch)
    samples = [{name: batch[k:k + 1] for name, batch in batches.items()} for k in range(4)]
    reference = outputs(npu.compile(MODEL, calibration=tmp_path / "data.npz"), batches)
    for calibration in (batches, str(tmp_path / "folders"), samples):
        model = npu.compile(MODEL, calibration=calibration)
        np.testing.assert_array_equal(outputs(model, batches), reference)


def test_a_npz_without_an_input_gives_the_cli_message(cli, batches, tmp_path):
    path = tmp_path / "only_x.npz"
    np.savez(path, x=batches["x"])
    with pytest.raises(npu.Error) as error:
        npu.compile(MODEL, calibration=path)
    result = cli("compile", MODEL, "--calib", path, "-o", tmp_path / "x.npub", check=False)
    line, = result.stderr.strip().splitlines()
    assert line == "npu: error: " + str(error.value)
    assert str(error.value).startswith(f"calibration data '{path}' has no array 'g'; expected "
                                       "one array per graph input, named by it: x f32[1, 2, 3, 3]")
    with pytest.raises(npu.Error, match="has no array 'g'"):
        npu.compile(MODEL, calibration={"x": batches["x"]})
