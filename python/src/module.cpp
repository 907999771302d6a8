// The `npu._npu` extension: the toolchain's compile, run, verify, export and bench for Python,
// numpy arrays in and out (outputs handed over without a copy); npu/__init__.py is the API.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "bench.h"
#include "model.h"
#include "npu/isa/npu_config.h"
#include "npu/runtime/generate.h"
#include "npu/runtime/main_job.h"
#include "npu/runtime/saved_outputs.h"
#include "npu/subnet_bench/bench_report.h"
#include "npu/support/data_dir.h"
#include "npu/support/error.h"
#include "npu/support/provenance.h"

namespace py = pybind11;

namespace npu::python {
namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

/// A vector's elements as a numpy array that owns them (moved, not copied).
template <typename T>
py::array toArray(std::vector<T>&& data, const std::vector<std::int64_t>& shape) {
  auto* owned = new std::vector<T>(std::move(data));
  py::capsule free(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(std::vector<py::ssize_t>(shape.begin(), shape.end()), owned->data(), free);
}

py::dict toDict(compiler::TensorMap&& tensors) {
  py::dict out;
  for (auto& [name, tensor] : tensors) {
    out[py::str(name)] = toArray(std::move(tensor.data), tensor.shape);
  }
  return out;
}

/// One input set for `graph`: every graph input by name with its declared shape, nothing else.
compiler::TensorMap toInputs(const compiler::Graph& graph, const py::dict& arrays,
                             std::string_view what) {
  compiler::TensorMap inputs;
  for (const compiler::ValueId id : graph.inputs()) {
    const compiler::Value& value = graph.value(id);
    if (value.isConstant()) {
      continue;
    }
    if (!arrays.contains(value.name)) {
      fail("{}: no array for input '{}' {}", what, value.name, compiler::formatShape(value.shape));
    }
    const FloatArray array = arrays[py::str(value.name)].cast<FloatArray>();
    const std::vector<std::int64_t> shape(array.shape(), array.shape() + array.ndim());
    if (shape != value.shape) {
      fail("{}: input '{}' is {}, the model expects {}", what, value.name,
           compiler::formatShape(shape), compiler::formatShape(value.shape));
    }
    inputs.emplace(value.name,
                   golden::FloatTensor{shape, {array.data(), array.data() + array.size()}});
  }
  for (const auto& [key, unused] : arrays) {
    const std::string name = py::str(key);
    if (!inputs.contains(name)) {
      fail("{}: the model has no input '{}'", what, name);
    }
  }
  return inputs;
}

/// Calibration arrays, one dict per sample, before the front-end passes (names are the model's
/// input names, which the passes keep).
std::vector<compiler::TensorMap> toSamples(const py::list& samples) {
  std::vector<compiler::TensorMap> out;
  for (const py::handle sample : samples) {
    compiler::TensorMap tensors;
    for (const auto& [key, value] : sample.cast<py::dict>()) {
      const FloatArray array = value.cast<FloatArray>();
      tensors.emplace(py::str(key),
                      golden::FloatTensor{
                          std::vector<std::int64_t>(array.shape(), array.shape() + array.ndim()),
                          {array.data(), array.data() + array.size()}});
    }
    out.push_back(std::move(tensors));
  }
  return out;
}

py::list describeValues(const compiler::Graph& graph, bool inputs) {
  py::list out;
  for (const compiler::ValueId id : inputs ? graph.inputs() : graph.outputs()) {
    const compiler::Value& value = graph.value(id);
    if (!value.isConstant()) {
      out.append(py::make_tuple(value.name, py::tuple(py::cast(value.shape))));
    }
  }
  return out;
}

std::unique_ptr<Model> compileModel(const py::object& model, const std::string& hw,
                                    const std::string& quantConfigYaml,
                                    const std::string& calibTable, const py::object& calibration) {
  CompileRequest request;
  if (py::isinstance<py::bytes>(model)) {
    const std::string bytes = model.cast<std::string>();
    request.onnxBytes.emplace(bytes.begin(), bytes.end());
  } else {
    request.modelPath = model.cast<std::string>();
  }
  request.hw = hw;
  request.quantConfigYaml = quantConfigYaml;
  request.calibTable = calibTable;
  if (py::isinstance<py::list>(calibration)) {
    request.calibration = toSamples(calibration.cast<py::list>());
  } else if (!calibration.is_none()) {
    request.calibrationPath = calibration.cast<std::string>();
  }
  py::gil_scoped_release unlocked;
  return std::make_unique<Model>(request);
}

py::dict runModel(const Model& model, const py::dict& arrays, const std::string& mode,
                  bool verify) {
  const std::optional<runtime::Engine> engine = runtime::parseEngine(mode);
  if (!engine) {
    fail("run: unknown mode '{}' (functional or timed)", mode);
  }
  const compiler::TensorMap inputs = toInputs(model.compiled().model.graph, arrays, "run");
  ModelRun run;
  {
    py::gil_scoped_release unlocked;
    run = model.run(inputs, *engine, verify);
  }
  // In the element order and shape of each value's fp32 tensor, as --save-outputs writes them.
  const compiler::Graph& graph = model.compiled().model.graph;
  py::dict int8;
  for (auto& [name, out] : run.int8Outputs) {
    const std::vector<std::int64_t>& shape = graph.value(*graph.findValue(name)).shape;
    int8[py::str(name)] = py::make_tuple(
        toArray(runtime::int8InValueOrder(out, shape, name), shape), out.scale, out.zeroPoint);
  }
  py::dict result;
  result["outputs"] = toDict(std::move(run.outputs));
  result["int8_outputs"] = int8;
  result["cycles"] = run.cycles;
  result["segment_stats"] = run.segmentStats;
  result["mismatches"] = run.mismatches;
  result["verified"] = run.verified;
  result["bit_exact"] = run.bitExact;
  return result;
}

/// npu.generate's core: runtime::runGenerate with the module's arguments; its report as
/// (report.json, report.md, report.html) texts, which npu/__init__.py makes a GenerateResult.
py::tuple generateReports(const std::string& decode, const std::string& prefill,
                          const std::string& hw, const std::vector<std::int64_t>& prompt,
                          std::size_t maxNewTokens, std::size_t maxContext,
                          const std::string& sample, std::size_t topK, std::uint64_t seed,
                          const std::vector<std::pair<std::string, std::string>>& kvPairs,
                          const std::string& calib,
                          const std::vector<std::int64_t>& calibrationPrompt,
                          const std::string& quantConfig, const std::string& mode, bool rtl) {
  npu::runtime::GenerateOptions options;
  options.decode = decode;
  options.prefill = prefill;
  options.hw = npu::isa::resolveConfigPath(hw, std::filesystem::current_path());
  options.prompt = prompt;
  options.maxNewTokens = maxNewTokens;
  options.maxContext = maxContext;
  if (sample != "greedy" && sample != "top-k") {
    npu::fail(npu::ErrorKind::Usage, "sample '{}': expected greedy or top-k", sample);
  }
  options.sampling =
      sample == "greedy" ? npu::runtime::Sampling::Greedy : npu::runtime::Sampling::TopK;
  options.topK = topK;
  options.seed = seed;
  for (const auto& [past, present] : kvPairs) {
    options.kvPairs.push_back({past, present});
  }
  options.calib = calib;
  options.calibrationPrompt = calibrationPrompt;
  options.quantConfig = quantConfig;
  const std::optional<npu::runtime::Engine> engine = npu::runtime::parseEngine(mode);
  if (!engine || *engine == npu::runtime::Engine::Rtl) {
    npu::fail(npu::ErrorKind::Usage, "mode '{}': expected timed or functional", mode);
  }
  options.engine = *engine;
  options.rtl = rtl;
  npu::runtime::GenerateReport report;
  {
    py::gil_scoped_release unlocked;
    report = npu::runtime::runGenerate(options);
  }
  return py::make_tuple(npu::runtime::generateReportJson(report),
                        npu::runtime::generateReportMarkdown(report),
                        npu::runtime::generateReportHtml(report));
}

}  // namespace
}  // namespace npu::python

PYBIND11_MODULE(_npu, m) {
  using npu::python::Model;
  m.doc() = "The NPU toolchain's C++ core; use the documented wrapper, `import npu`.";
  // npu.Error: the toolchain's one error type, with its message unchanged and its kind.
  static py::exception<npu::Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) {
        std::rethrow_exception(p);
      }
    } catch (const npu::Error& e) {
      py::object instance = py::reinterpret_borrow<py::object>(error)(py::str(e.what()));
      py::setattr(instance, "kind", py::str(std::string(npu::errorKindName(e.kind()))));
      PyErr_SetObject(error.ptr(), instance.ptr());
    }
  });
  m.def("version", [] { return std::string(npu::toolVersion()); });
  m.def("data_dir", [] { return npu::dataDir().string(); });
  m.def("bundled_model", [] { return npu::runtime::bundledModelPath().string(); });
  m.def("hardware_path", [](const std::string& nameOrPath) {
    return npu::isa::resolveConfigPath(nameOrPath, std::filesystem::current_path()).string();
  });
  m.def("compile", &npu::python::compileModel, py::arg("model"), py::arg("hw"),
        py::arg("quant_config_yaml"), py::arg("calib_table"), py::arg("calibration"));
  m.def("generate", &npu::python::generateReports, py::arg("decode"), py::arg("prefill"),
        py::arg("hw"), py::arg("prompt"), py::arg("max_new_tokens"), py::arg("max_context"),
        py::arg("sample"), py::arg("top_k"), py::arg("seed"), py::arg("kv_pairs"), py::arg("calib"),
        py::arg("calibration_prompt"), py::arg("quant_config"), py::arg("mode"), py::arg("rtl"));
  // The bench report as bench.json's text (the same writer as `npu bench`); npu/__init__.py
  // turns it into BenchResult objects.
  m.def(
      "bench",
      [](const std::string& suite, const std::string& hw, const std::string& mode,
         const std::string& filter, const std::string& shard, std::size_t jobs,
         const std::string& baseline, const std::string& out) {
        npu::python::BenchRequest request;
        request.suite = suite;
        request.hw = hw;
        request.mode = mode;
        request.filter = filter;
        request.shard = shard;
        request.jobs = jobs;
        request.baseline = baseline;
        request.out = out;
        py::gil_scoped_release unlocked;
        return npu::bench::benchJson(npu::python::runBenchRequest(request));
      },
      py::arg("suite"), py::arg("hw"), py::arg("mode"), py::arg("filter"), py::arg("shard"),
      py::arg("jobs"), py::arg("baseline"), py::arg("out"));
  py::class_<Model>(m, "Model")
      .def_property_readonly("source", &Model::source)
      .def_property_readonly("calibration_source", &Model::calibrationSource)
      .def_property_readonly("hardware",
                             [](const Model& model) { return model.compiled().hw.name; })
      .def_property_readonly("inputs",
                             [](const Model& model) {
                               return npu::python::describeValues(model.compiled().model.graph,
                                                                  true);
                             })
      .def_property_readonly("outputs",
                             [](const Model& model) {
                               return npu::python::describeValues(model.compiled().model.graph,
                                                                  false);
                             })
      .def_property_readonly("npu_segments",
                             [](const Model& model) { return model.compiled().programs.size(); })
      .def_property_readonly("notes",
                             [](const Model& model) { return model.compiled().model.notes; })
      .def_property_readonly("instructions",
                             [](const Model& model) {
                               std::vector<std::size_t> counts;
                               for (const auto& program : model.compiled().programs) {
                                 counts.push_back(program.program.instructions.size());
                               }
                               return counts;
                             })
      .def("run", &npu::python::runModel, py::arg("inputs"), py::arg("mode"), py::arg("verify"))
      .def("reference",
           [](const Model& model, const py::dict& arrays) {
             const npu::compiler::TensorMap inputs =
                 npu::python::toInputs(model.compiled().model.graph, arrays, "reference");
             npu::compiler::TensorMap outputs;
             {
               py::gil_scoped_release unlocked;
               outputs = model.reference(inputs);
             }
             return npu::python::toDict(std::move(outputs));
           })
      .def("export", [](const Model& model, const std::string& dir, const py::object& arrays) {
        std::optional<npu::compiler::TensorMap> inputs;
        if (!arrays.is_none()) {
          inputs = npu::python::toInputs(model.compiled().model.graph, arrays.cast<py::dict>(),
                                         "export");
        }
        std::vector<npu::runtime::ExportedSegment> written;
        {
          py::gil_scoped_release unlocked;
          written = model.exportBundles(dir, inputs ? &*inputs : nullptr);
        }
        py::list out;
        for (const auto& segment : written) {
          py::dict d;
          d["folder"] = (std::filesystem::path(dir) / segment.folder).string();
          d["segment"] = segment.npuSegment;
          d["instructions"] = segment.instructions;
          d["cycles"] = segment.cycles;
          out.append(d);
        }
        return out;
      });
}
