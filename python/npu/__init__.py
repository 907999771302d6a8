"""The NPU toolchain from Python: compile a model once, then run, verify and export it.

    import npu
    model = npu.compile(npu.bundled_model(), hw="npu-s")
    result = model.run({"input": x})            # numpy in, numpy out, cycles, stats
    result.outputs["logits"], result.cycles, result.bit_exact

    report = npu.bench(filter="^gap_fc_head$")   # the subnetwork benchmark, as `npu bench`
    report.passed, report.subnets[0].cycles, report.subnets[0].cycle_verdict

Every failure raises npu.Error with the message the `npu` command prints (docs/python.md).
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import zipfile
from typing import Any, Mapping, Sequence

import numpy as np

from . import _npu

Error = _npu.Error
__version__ = _npu.version()

__all__ = ["Error", "Model", "RunResult", "BenchResult", "SubnetResult", "GenerateResult",
           "compile", "bench", "generate",
           "data_dir", "bundled_model", "hardware_path", "__version__"]


def data_dir() -> str:
    """The data folder (hardware presets, the bundled model, suites); $NPU_DATA_DIR overrides."""
    return _npu.data_dir()


def bundled_model() -> str:
    """Path of the bundled digits model (examples/digits/model.onnx in the data folder)."""
    return _npu.bundled_model()


def hardware_path(name_or_path: str) -> str:
    """The YAML file of a hardware preset name (npu-s, npu-l) or a path, as `--hw` resolves it."""
    return _npu.hardware_path(str(name_or_path))


@dataclasses.dataclass
class RunResult:
    """One inference: outputs by name (float32 arrays: the NPU run, host segments in fp32),
    int8_outputs by name for every value an NPU segment hands on, graph outputs among them
    ((int8 array in the value's fp32 shape and order, scale, zero point)), cycles summed over the NPU segments (0 in functional mode), per-segment stats
    (docs/timing.md keys), and whether the final DDR of every segment matched golden."""

    outputs: dict[str, np.ndarray]
    int8_outputs: dict[str, tuple[np.ndarray, float, int]]
    cycles: int
    stats: list[dict[str, Any]]
    verified: bool
    bit_exact: bool
    mismatches: list[str]


def _input_dict(model: "Model", inputs: Mapping[str, np.ndarray] | np.ndarray) -> dict:
    if isinstance(inputs, Mapping):
        return {str(k): v for k, v in inputs.items()}
    names = [name for name, _ in model.inputs]
    if len(names) != 1:
        raise Error(f"the model has {len(names)} inputs {names}: pass a dict of arrays")
    return {names[0]: inputs}


class Model:
    """A compiled model (npu.compile). It keeps its programs, its fp32 interpreter and golden
    reference, so every call reuses the compile."""

    def __init__(self, core: Any, path: str | None = None, hw: str = "npu-s"):
        self._core = core
        self._path = path
        self._hw = hw

    @property
    def inputs(self) -> list[tuple[str, tuple[int, ...]]]:
        """(name, shape) of every graph input, as run() expects them."""
        return self._core.inputs

    @property
    def outputs(self) -> list[tuple[str, tuple[int, ...]]]:
        """(name, shape) of every graph output."""
        return self._core.outputs

    @property
    def hardware(self) -> str:
        return self._core.hardware

    @property
    def npu_segments(self) -> int:
        return self._core.npu_segments

    @property
    def instructions(self) -> list[int]:
        """Instruction count of each NPU segment's program."""
        return self._core.instructions

    @property
    def calibration_source(self) -> str:
        return self._core.calibration_source

    @property
    def notes(self) -> list[str]:
        """What quantization decided that a user should know (`npu: note:` lines)."""
        return self._core.notes

    def run(self, inputs: Mapping[str, np.ndarray] | np.ndarray, mode: str = "timed",
            verify: bool = True) -> RunResult:
        """One inference on the simulator (mode "timed": cycle-accurate SystemC, or
        "functional"), each NPU segment's final DDR compared byte for byte with golden when
        verify. A single array is enough for a single-input model. Shapes must match inputs."""
        raw = self._core.run(_input_dict(self, inputs), mode, verify)
        return RunResult(outputs=raw["outputs"], int8_outputs=raw["int8_outputs"],
                         cycles=raw["cycles"],
                         stats=[json.loads(s) for s in raw["segment_stats"]],
                         verified=raw["verified"], bit_exact=raw["bit_exact"],
                         mismatches=[m for m in raw["mismatches"] if m])

    simulate = run

    def verify(self, inputs: Mapping[str, np.ndarray] | np.ndarray,
               mode: str = "functional") -> RunResult:
        """run() with golden verification; raises npu.Error naming the first mismatch (tensor,
        coordinate, instruction) unless every segment is bit-exact."""
        result = self.run(inputs, mode=mode, verify=True)
        if not result.bit_exact:
            raise Error(result.mismatches[0] if result.mismatches else "not bit-exact")
        return result

    def reference(self, inputs: Mapping[str, np.ndarray] | np.ndarray) -> dict[str, np.ndarray]:
        """The fp32 model's outputs for the same inputs (what the NPU run approximates)."""
        return self._core.reference(_input_dict(self, inputs))

    def export(self, out: str | os.PathLike,
               inputs: Mapping[str, np.ndarray] | np.ndarray | None = None) -> list[dict]:
        """Writes the bring-up bundle (docs/main-job.md, `npu export`) for one input, by default
        the first calibration input; the folder appears whole or not at all. Returns per NPU
        segment its folder, instruction count and expected cycles."""
        arrays = None if inputs is None else _input_dict(self, inputs)
        return self._core.export(os.fspath(out), arrays)

    def generate(self, prompt: Sequence[int] | np.ndarray, max_new_tokens: int = 16,
                 **options: Any) -> "GenerateResult":
        """The token loop with this model's graph as the decode step: npu.generate(path, prompt,
        max_new_tokens, hw=this model's hardware, **options). The loop compiles the graph for
        itself (its maximum context, its calibration: npu.generate's defaults unless given), so
        a model compiled from ONNX bytes cannot generate."""
        if self._path is None:
            raise Error("this model was compiled from bytes: call npu.generate with the "
                        "decode-step graph's path")
        options.setdefault("hw", self._hw)
        return generate(self._path, prompt, max_new_tokens, **options)


def _bundled_or_none() -> str | None:
    try:
        return os.path.realpath(bundled_model())
    except Error:  # no data folder: the model given cannot be the bundled one
        return None


def _quant_yaml(quant_config: str | os.PathLike | Mapping | None) -> str:
    if quant_config is None:
        return ""
    if isinstance(quant_config, Mapping):
        import yaml  # python3-yaml
        return yaml.safe_dump(dict(quant_config), sort_keys=False)
    with open(quant_config, encoding="utf-8") as f:
        return f.read()


def _npz_array(values: Any) -> np.ndarray:
    """An array as the .npz reader takes it: integers (token ids) as int64, the rest float32."""
    array = np.asarray(values)
    return np.ascontiguousarray(array, dtype=np.int64 if array.dtype.kind in "iub" else np.float32)


def _write_npz(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    """What numpy.savez(path, **arrays) writes, for any input name (savez's own parameter
    `file` cannot be one of its keywords)."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, array in arrays.items():
            with archive.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array)


def _calibration(calibration: Any) -> Any:
    if calibration is None or isinstance(calibration, (str, os.PathLike)):
        return None if calibration is None else os.fspath(calibration)
    if isinstance(calibration, np.ndarray):  # a batch [N, ...] of a single-input model
        return calibration
    if isinstance(calibration, Mapping):  # {input name: batch [N, ...]}, written as a .npz
        return {str(k): _npz_array(v) for k, v in calibration.items()}
    return [{str(k): np.ascontiguousarray(v, dtype=np.float32) for k, v in sample.items()}
            for sample in calibration]


def compile(model: str | os.PathLike | bytes, hw: str = "npu-s",
            quant_config: str | os.PathLike | Mapping | None = None,
            calibration: str | os.PathLike | Sequence[Mapping[str, np.ndarray]]
            | Mapping[str, np.ndarray] | np.ndarray | None = None,
            calib_table: str | os.PathLike | None = None) -> Model:
    """Compiles a model for the NPU: import, passes, partition, calibration, int8 quantization,
    codegen (the `npu compile` flow).

    model: an .onnx or graph .yaml path, or ONNX bytes (e.g. from torch.onnx.export to BytesIO).
    hw: hardware preset name or YAML path. quant_config: a YAML path or a dict
    (docs/quant-config.md). calibration: a path as `npu compile --calib` takes it (a .npy file,
    a folder of .npy files, one folder per input for several inputs, or a .npz with one array
    per input), a list of {input name: array} samples, a dict {input name: array [N, *input
    shape]} of N samples per input (read as a .npz), or for a single-input model an array
    [N, *input shape] of N samples; by default the bundled model's calibration set for the
    bundled model, else 8 synthetic N(0,1) inputs.
    calib_table: a calibration table file (docs/quantized-models.md)."""
    if isinstance(model, (bytes, bytearray, memoryview)):
        model_arg: Any = bytes(model)
    else:
        model_arg = os.fspath(model)
        if calibration is None and os.path.realpath(model_arg) == _bundled_or_none():
            calibration = os.path.join(os.path.dirname(model_arg), "calib")
    calib = _calibration(calibration)
    with tempfile.TemporaryDirectory(prefix="npu-calib-") as tmp:
        if isinstance(calib, np.ndarray):
            # A batch goes through the CLI's own reader (calibration_data.h): the same splitting
            # of [N, ...] and the same errors as `npu compile --calib batch.npy`.
            path = os.path.join(tmp, "calibration.npy")
            np.save(path, np.ascontiguousarray(calib, dtype=np.float32))
            calib = path
        elif isinstance(calib, dict):
            # One batch per input: the same reader as `npu compile --calib data.npz`.
            path = os.path.join(tmp, "calibration.npz")
            _write_npz(path, calib)
            calib = path
        core = _npu.compile(model_arg, str(hw), _quant_yaml(quant_config),
                            "" if calib_table is None else os.fspath(calib_table), calib)
    return Model(core, None if isinstance(model_arg, bytes) else model_arg, str(hw))



@dataclasses.dataclass
class GenerateResult:
    """What npu.generate did: the generated token ids after the prompt, whether every run was
    bit-exact against golden (and the RTL equal, with rtl=True), and the report (report.json's
    document: per-run cycles, DDR bytes, logit cosine vs fp32; docs/llm.md) with its markdown and
    html forms."""

    prompt: list[int]
    tokens: list[int]
    passed: bool
    report: dict[str, Any]
    markdown: str
    html: str

    def save(self, out: str | os.PathLike) -> None:
        """Writes report.md, report.json and report.html into `out` (created if missing)."""
        os.makedirs(out, exist_ok=True)
        for name, text in (("report.md", self.markdown), ("report.html", self.html),
                           ("report.json", json.dumps(self.report, indent=2) + "\n")):
            with open(os.path.join(out, name), "w", encoding="utf-8") as f:
                f.write(text)


def generate(decode: str | os.PathLike, prompt: Sequence[int] | np.ndarray,
             max_new_tokens: int = 16, prefill: str | os.PathLike | None = None,
             hw: str = "npu-s", max_context: int | None = None, sample: str = "greedy",
             top_k: int = 40, seed: int = 0, kv_pairs: Mapping[str, str] | None = None,
             calibration: str | os.PathLike | None = None,
             calibration_prompt: Sequence[int] | np.ndarray | None = None,
             quant_config: str | os.PathLike | Mapping | None = None, mode: str = "timed",
             rtl: bool = False) -> GenerateResult:
    """Generates tokens with a decoder-only language model (`npu generate`, docs/llm.md).

    decode: the decode-step ONNX graph (input_ids, attention_mask, position_ids and
    past_key_values.N.key/value in; logits and present.N.key/value out). prefill: the prefill
    graph; without it the prompt runs through the decode step one token at a time. prompt: token
    ids. max_context binds a dynamic past axis (default: the graph's own, or prompt plus new
    tokens). sample: "greedy" or "top-k" (top_k, seed). kv_pairs: {past input: present output}
    when the names are not the exporters'. calibration: decode-step inputs as `--calib` takes
    them; by default the fp32 model's own greedy generation from the prompt, or from
    calibration_prompt (token ids) when given. Every run is
    verified against golden over the whole DDR; rtl co-simulates the first decode step."""
    ids = [int(t) for t in np.asarray(prompt, dtype=np.int64).reshape(-1)]
    with tempfile.TemporaryDirectory(prefix="npu-generate-") as tmp:
        config = ""
        if quant_config is not None:
            config = os.path.join(tmp, "quant.yaml")
            with open(config, "w", encoding="utf-8") as f:
                f.write(_quant_yaml(quant_config))
        text, markdown, html = _npu.generate(
            os.fspath(decode), "" if prefill is None else os.fspath(prefill), str(hw), ids,
            max_new_tokens, 0 if max_context is None else max_context, sample, top_k, seed,
            list((kv_pairs or {}).items()), "" if calibration is None else os.fspath(calibration),
            [] if calibration_prompt is None
            else [int(t) for t in np.asarray(calibration_prompt, dtype=np.int64).reshape(-1)],
            config, mode, rtl)
    report = json.loads(text)
    return GenerateResult(prompt=ids, tokens=report["generated"], passed=report["pass"],
                          report=report, markdown=markdown, html=html)


@dataclasses.dataclass
class SubnetResult:
    """One subnet of a bench run (a `subnets` entry of bench.json, docs/bench.md): whether it
    passed and why not (failures, error), bit-exactness against golden, cycles and their
    baseline comparison (baseline_cycles and cycle_change are None without a baseline;
    cycle_verdict "within", "regression", "improvement" or "no baseline"), MACs, MAC
    utilization, output cosine vs fp32, and the per-layer rows of report.json."""

    name: str
    passed: bool
    failures: list[str]
    error: str
    bit_exact: bool | None
    cycles: int | None
    baseline_cycles: int | None
    cycle_change: float | None
    cycle_verdict: str | None
    macs: int | None
    utilization: float | None
    cosine: float | None
    seconds: float
    layers: list[dict[str, Any]]


@dataclasses.dataclass
class BenchResult:
    """A bench run: the suite, hardware and mode, whether every subnet passed, the subnets in
    suite order, and the whole bench.json document (`report`) for anything else."""

    suite: str
    hardware: str
    mode: str
    passed: bool
    subnets: list[SubnetResult]
    report: dict[str, Any]


def bench(suite: str | os.PathLike | None = None, hw: str = "npu-s", mode: str = "timed",
          filter: str = "", jobs: int = 1, shard: str = "1/1",
          baseline: str | os.PathLike | None = None,
          out: str | os.PathLike | None = None) -> BenchResult:
    """Runs the subnetwork benchmark as `npu bench` does (docs/bench.md): every subnet of the
    suite (default: subnet_bench/suites/default.yaml) whose name matches the regex `filter`, in
    shard `shard` ("i/n"), compiled for `hw`, simulated in `mode` on `jobs` threads, verified
    bit-exact against golden and compared with the baseline file (default: the suite's
    baselines/<hw name>.yaml, which must hold every selected subnet). With `out`, the reports
    (bench.md, bench.json, bench.html, junit.xml) are written there too. Baselines are never
    updated from Python (use `npu bench --update-baselines`)."""
    text = _npu.bench("" if suite is None else os.fspath(suite), str(hw), str(mode), str(filter),
                      str(shard), int(jobs), "" if baseline is None else os.fspath(baseline),
                      "" if out is None else os.fspath(out))
    report = json.loads(text)
    subnets = [SubnetResult(name=s["name"], passed=s["pass"], failures=s["failures"],
                            error=s["error"], bit_exact=s.get("bit_exact"),
                            cycles=s.get("cycles"), baseline_cycles=s.get("baseline_cycles"),
                            cycle_change=s.get("cycle_change"),
                            cycle_verdict=s.get("cycle_verdict"), macs=s.get("macs"),
                            utilization=s.get("mac_utilization"), cosine=s.get("cosine"),
                            seconds=s["seconds"], layers=s.get("layers", []))
               for s in report["subnets"]]
    return BenchResult(suite=report["suite"], hardware=report["hardware"], mode=report["mode"],
                       passed=report["pass"], subnets=subnets, report=report)
