// Error messages that name the file, the node and its op type.
#pragma once

#include <fmt/format.h>

#include <string>
#include <utility>

#include "npu/compiler/ir/graph.h"
#include "npu/support/error.h"

namespace npu::compiler {

/// "model.onnx: node 'conv1' (Conv)": how every error about a node begins.
std::string nodeContext(const Graph& graph, const Node& node);

/// Throws Error "<file>: node '<name>' (<op>): <message>".
template <typename... Args>
[[noreturn]] void failAtNode(const Graph& graph, const Node& node,
                             fmt::format_string<Args...> format, Args&&... args) {
  fail("{}: {}", nodeContext(graph, node), fmt::format(format, std::forward<Args>(args)...));
}

/// Runs `body`; an Error it throws is rethrown with the node context in front, so op rules and
/// golden kernels can report plain messages.
template <typename Body>
decltype(auto) withNodeContext(const Graph& graph, const Node& node, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const Error& e) {
    fail("{}: {}", nodeContext(graph, node), e.what());
  }
}

}  // namespace npu::compiler
