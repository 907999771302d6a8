"""npu.Error carries the CLI's messages; export writes a bundle the CLI accepts; hardware and
quantization configs reach the compiler."""

import numpy as np
import pytest

import npu


def cli_error(result):
    assert result.returncode != 0
    line, = result.stderr.strip().splitlines()
    assert line.startswith("npu: error: ")
    return line[len("npu: error: "):]


def test_a_missing_model_gives_the_cli_message(cli, tmp_path):
    missing = tmp_path / "missing.onnx"
    with pytest.raises(npu.Error) as error:
        npu.compile(missing)
    expected = cli_error(cli("compile", missing, "-o", tmp_path / "x.npub", check=False))
    assert str(error.value) == expected
    assert error.value.kind == "bad input"


def test_an_unknown_hardware_preset_gives_the_cli_message(cli, tmp_path):
    with pytest.raises(npu.Error) as error:
        npu.compile(npu.bundled_model(), hw="npu-nope")
    expected = cli_error(cli("compile", "--hw", "npu-nope", "-o", tmp_path / "x.npub",
                             check=False))
    assert str(error.value) == expected


def test_a_bad_input_shape_names_the_input(digits):
    (name, shape), = digits.inputs
    with pytest.raises(npu.Error, match=f"input '{name}' is \\[2, 3\\], the model expects"):
        digits.run({name: np.zeros((2, 3), np.float32)})
    with pytest.raises(npu.Error, match="the model has no input 'nope'"):
        digits.run({name: np.zeros(shape, np.float32), "nope": np.zeros(1, np.float32)})


def test_export_writes_a_bundle_the_cli_verifies(digits, cli, tmp_path):
    written = digits.export(tmp_path / "bundle")
    assert len(written) == digits.npu_segments
    assert written[0]["instructions"] == digits.instructions[0] and written[0]["cycles"] > 0
    for segment in written:
        cli("verify-bundle", segment["folder"])
    cli("export", "--out", tmp_path / "cli-bundle")
    assert (tmp_path / "bundle" / "manifest.yaml").read_text() == \
        (tmp_path / "cli-bundle" / "manifest.yaml").read_text()


def test_hardware_and_quant_config_reach_the_compiler(digits, digits_inputs):
    large = npu.compile(npu.bundled_model(), hw="npu-l")
    assert large.hardware == "npu-l" and digits.hardware == "npu-s"
    x = digits_inputs[0][0:1].reshape(digits.inputs[0][1])
    assert large.run(x, mode="timed").cycles < digits.run(x, mode="timed").cycles
    minmax = npu.compile(npu.bundled_model(), quant_config={"activations": {"method": "minmax"}})
    with pytest.raises(npu.Error, match="unknown method 'magic'"):
        npu.compile(npu.bundled_model(), quant_config={"activations": {"method": "magic"}})
    assert minmax.run(x, mode="functional").bit_exact
