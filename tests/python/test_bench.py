"""npu.bench runs the subnetwork benchmark through the same C++ calls as `npu bench`: the same
figures, verdicts, baseline comparison and report files, and the CLI's error messages."""

import json
import os

import pytest

import npu

CHEAP = "^gap_fc_head$"  # the cheapest subnet of the default suite


def cli_error(result):
    assert result.returncode != 0
    line, = result.stderr.strip().splitlines()
    assert line.startswith("npu: error: ")
    return line[len("npu: error: "):]


def test_bench_returns_the_cli_figures_as_objects(cli, tmp_path):
    result = npu.bench(filter=CHEAP, out=tmp_path / "py")
    assert isinstance(result, npu.BenchResult)
    assert result.passed and result.hardware == "npu-s" and result.mode == "timed"
    subnet, = result.subnets
    assert isinstance(subnet, npu.SubnetResult)
    assert subnet.name == "gap_fc_head" and subnet.passed and subnet.bit_exact
    assert subnet.failures == [] and subnet.error == ""
    assert subnet.cycles > 0 and subnet.macs == 512000 and 0 < subnet.utilization <= 1
    assert subnet.cosine > 0.99 and subnet.layers and subnet.layers[0]["device"] == "npu"
    # The baseline comparison against subnet_bench/baselines/npu-s.yaml.
    assert subnet.baseline_cycles is not None and subnet.cycle_verdict == "within"
    assert subnet.cycle_change == pytest.approx(subnet.cycles / subnet.baseline_cycles - 1)

    # The CLI on the same selection: the same figures, and bench.json written by both.
    cli("bench", "--filter", CHEAP, "--out", tmp_path / "cli")
    from_cli, = json.load(open(tmp_path / "cli" / "bench.json"))["subnets"]
    from_py, = json.load(open(tmp_path / "py" / "bench.json"))["subnets"]
    for key in ("cycles", "baseline_cycles", "cycle_verdict", "macs", "mac_utilization",
                "cosine", "bit_exact", "pass", "layers"):
        assert from_py[key] == from_cli[key] == result.report["subnets"][0][key], key
    assert subnet.cycles == from_cli["cycles"]
    assert sorted(os.listdir(tmp_path / "py")) == ["bench.html", "bench.json", "bench.md",
                                                   "junit.xml"]


def test_a_regression_against_the_baseline_fails_the_subnet(tmp_path):
    measured = npu.bench(filter=CHEAP, mode="functional").subnets[0].cycles
    baseline = tmp_path / "base.yaml"
    baseline.write_text("hardware: npu-s\nsubnets:\n"
                        f"  gap_fc_head: {{cycles: {measured // 2}, macs: 1, utilization: 0.1, "
                        "cosine: 0.9}\n")
    result = npu.bench(filter=CHEAP, mode="functional", baseline=baseline)
    subnet, = result.subnets
    assert not result.passed and not subnet.passed
    assert subnet.cycle_verdict == "regression" and subnet.baseline_cycles == measured // 2
    assert subnet.bit_exact  # the run itself was fine
    assert any(f.startswith("cycles:") for f in subnet.failures), subnet.failures


def test_bench_errors_are_the_cli_messages(cli, tmp_path):
    with pytest.raises(npu.Error) as error:
        npu.bench(filter="^no_such_subnet$")
    assert str(error.value) == cli_error(cli("bench", "--filter", "^no_such_subnet$", "--out",
                                             tmp_path / "x", check=False))
    empty = tmp_path / "empty.yaml"
    empty.write_text("hardware: npu-s\nsubnets:\n"
                     "  other: {cycles: 1, macs: 1, utilization: 0.1, cosine: 0.9}\n")
    with pytest.raises(npu.Error) as error:
        npu.bench(filter=CHEAP, baseline=empty)
    assert str(error.value) == cli_error(cli("bench", "--filter", CHEAP, "--baseline", empty,
                                             "--out", tmp_path / "y", check=False))
    assert "no baseline for subnet 'gap_fc_head'" in str(error.value)
    with pytest.raises(npu.Error, match="unknown mode 'fast'"):
        npu.bench(filter=CHEAP, mode="fast")
