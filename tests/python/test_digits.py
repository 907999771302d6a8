"""The digits model through the Python module against the CLI: the same numpy outputs as
`npu run --save-outputs`, bit-exact runs, the same cycles, reuse across calls."""

import json
import os

import numpy as np
import pytest

import npu

COUNT = 8


@pytest.fixture(scope="module")
def saved(cli, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    cli("run", "--count", COUNT, "--mode", "timed", "--out", out / "report",
        "--save-outputs", out / "outputs")
    index = json.loads((out / "outputs" / "outputs.json").read_text())
    report = json.loads((out / "report" / "report.json").read_text())
    return out / "outputs", index, report


def test_outputs_equal_the_cli_save_outputs(digits, digits_inputs, saved):
    folder, index, _ = saved
    inputs, _ = digits_inputs
    (name, shape), = digits.outputs
    output, = index["outputs"]
    assert output["name"] == name and output["shape"] == [COUNT, *shape]
    npu_saved = np.load(folder / output["npu"])
    fp32_saved = np.load(folder / output["fp32"])
    # The digits model is one NPU segment, softmax included (the reshape before it is an alias):
    # the graph output is the NPU's, so it has an int8 file too, and nothing else is handed on.
    assert index["npu_segment_outputs"] == []
    segment_output = output
    int8_saved = np.load(folder / segment_output["int8"])
    assert int8_saved.dtype == np.int8 and int8_saved.shape[0] == COUNT
    (input_name, input_shape), = digits.inputs
    for k in range(COUNT):
        x = inputs[k:k + 1].reshape(input_shape).astype(np.float32)
        result = digits.run({input_name: x}, mode="functional")
        assert result.verified and result.bit_exact, result.mismatches
        assert result.outputs[name].dtype == np.float32
        np.testing.assert_array_equal(result.outputs[name], npu_saved[k])
        np.testing.assert_array_equal(digits.reference({input_name: x})[name], fp32_saved[k])
        q, scale, zero_point = result.int8_outputs[segment_output["name"]]
        np.testing.assert_array_equal(q, int8_saved[k])
        assert scale == segment_output["scale"] and zero_point == segment_output["zero_point"]


def test_saved_int8_dequantizes_near_the_fp32_model(saved):
    folder, index, _ = saved
    entry, = index["outputs"]
    q = np.load(folder / entry["int8"]).astype(np.float64)
    dequantized = (q - entry["zero_point"]) * entry["scale"]
    fp32 = np.load(folder / entry["fp32"]).astype(np.float64)
    # Within a few quantization steps of the fp32 probabilities (the NPU's softmax writes them at
    # scale 1/256), and the same class for every input.
    assert np.max(np.abs(dequantized - fp32)) < 8 * entry["scale"]
    np.testing.assert_array_equal(dequantized.reshape(COUNT, -1).argmax(1),
                                  fp32.reshape(COUNT, -1).argmax(1))


def test_timed_cycles_and_labels_agree_with_the_cli(digits, digits_inputs, saved):
    _, _, report = saved
    inputs, labels = digits_inputs
    (input_name, input_shape), = digits.inputs
    (name, _), = digits.outputs
    first = digits.run(inputs[0:1].reshape(input_shape), mode="timed")
    assert first.bit_exact and first.cycles == report["performance"]["total_cycles"]
    assert first.stats[0]["total_cycles"] == first.cycles
    correct = 0
    for k in range(COUNT):
        out = digits.run({input_name: inputs[k:k + 1].reshape(input_shape)}, mode="functional")
        correct += int(np.argmax(out.outputs[name]) == labels[k])
    assert 100.0 * correct / COUNT == pytest.approx(report["accuracy"]["int8_top1"])


def test_a_compiled_model_is_reusable_and_deterministic(digits, digits_inputs):
    inputs, _ = digits_inputs
    (_, input_shape), = digits.inputs
    x = inputs[3:4].reshape(input_shape)
    a = digits.run(x, mode="timed")
    b = digits.run(x, mode="timed")
    c = digits.simulate(inputs[4:5].reshape(input_shape), mode="timed")
    assert a.cycles == b.cycles and a.stats == b.stats
    for name in a.outputs:
        np.testing.assert_array_equal(a.outputs[name], b.outputs[name])
    assert c.bit_exact and not all(np.array_equal(a.outputs[n], c.outputs[n]) for n in a.outputs)
    assert digits.verify(x).bit_exact


def test_onnx_bytes_and_calibration_arrays_compile_the_same_model(digits, digits_inputs):
    model_path = npu.bundled_model()
    calib_dir = os.path.join(os.path.dirname(model_path), "calib")
    files = sorted(f for f in os.listdir(calib_dir) if f.endswith(".npy"))
    batch = np.concatenate([np.load(os.path.join(calib_dir, f)) for f in files])
    with open(model_path, "rb") as f:
        from_bytes = npu.compile(f.read(), hw="npu-s", calibration=batch)
    inputs, _ = digits_inputs
    (_, input_shape), = digits.inputs
    x = inputs[5:6].reshape(input_shape)
    a, b = digits.run(x, mode="functional"), from_bytes.run(x, mode="functional")
    assert b.bit_exact and digits.instructions == from_bytes.instructions
    for name in a.outputs:
        np.testing.assert_array_equal(a.outputs[name], b.outputs[name])
