// Conv2dLayer: fp32 convolution on oneDNN. The input is reordered from NCHW into the layout the
// chosen kernel wants and the result back; weights are reordered once, at preparation.
#include <optional>

#include "fp32_conv_shape.h"
#include "npu/golden/fp32_conv.h"
#include "npu/golden/plain_kernels.h"
#include "npu/support/error.h"
#include "onednn_runtime.h"

namespace npu::golden {
namespace {

using dnnl::memory;
using onednn::dimsOf;

}  // namespace

struct Conv2dLayer::Prepared {
  std::vector<std::int64_t> inputShape;
  detail::Fp32ConvShape shape;
  /// Unset when the output is empty or oneDNN has no kernel for the shape; the plain loops run.
  std::optional<dnnl::convolution_forward> conv;
  memory::desc userSrc, userDst, convSrc, convDst;
  memory weights, bias;
  std::size_t scratchpadBytes = 0;
  /// For the plain loops, when conv is unset.
  FloatTensor plainWeights;
  std::vector<float> plainBias;
  Conv2dParams params;
};

Conv2dLayer::Conv2dLayer(std::vector<std::int64_t> inputShape, const FloatTensor& w,
                         std::span<const float> bias, const Conv2dParams& params) {
  const onednn::OneThread oneThread;
  auto p = std::make_shared<Prepared>();
  p->shape = detail::checkConv2d(inputShape, w, bias, params);
  p->inputShape = std::move(inputShape);
  p->params = params;
  const detail::Fp32ConvShape& s = p->shape;
  const bool grouped = s.group > 1;
  const memory::dims weightDims = grouped
                                      ? dimsOf({s.group, s.outC / s.group, s.groupInC, s.kH, s.kW})
                                      : dimsOf({s.outC, s.groupInC, s.kH, s.kW});
  if (s.n > 0 && s.outC > 0 && s.outH > 0 && s.outW > 0 && s.groupInC > 0) {
    try {
      using tag = memory::format_tag;
      const auto f32 = memory::data_type::f32;
      p->userSrc = memory::desc(dimsOf({s.n, s.inC, s.inH, s.inW}), f32, tag::nchw);
      p->userDst = memory::desc(dimsOf({s.n, s.outC, s.outH, s.outW}), f32, tag::nchw);
      const memory::desc anySrc(p->userSrc.dims(), f32, tag::any);
      const memory::desc anyDst(p->userDst.dims(), f32, tag::any);
      const memory::desc anyWeights(weightDims, f32, tag::any);
      const memory::desc biasDesc(dimsOf({s.outC}), f32, tag::a);
      const dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, anySrc,
          anyWeights, bias.empty() ? memory::desc() : biasDesc, anyDst, dimsOf({s.sH, s.sW}),
          dimsOf({s.dH - 1, s.dW - 1}), dimsOf({s.padT, s.padL}), dimsOf({s.padB, s.padR}));
      const dnnl::convolution_forward::primitive_desc pd(desc, onednn::primitiveAttributes(),
                                                         onednn::cpuEngine());
      p->convSrc = pd.src_desc();
      p->convDst = pd.dst_desc();
      p->scratchpadBytes = pd.scratchpad_desc().get_size();
      const memory userWeights(memory::desc(weightDims, f32, grouped ? tag::goihw : tag::oihw),
                               onednn::cpuEngine(), const_cast<float*>(w.data.data()));
      p->weights = memory(pd.weights_desc(), onednn::cpuEngine());
      onednn::reorder(userWeights, p->weights);
      if (!bias.empty()) {
        p->bias = memory(biasDesc, onednn::cpuEngine());
        std::copy(bias.begin(), bias.end(), static_cast<float*>(p->bias.get_data_handle()));
      }
      p->conv.emplace(pd);
    } catch (const dnnl::error&) {
      p->conv.reset();
    }
  }
  if (!p->conv) {
    p->plainWeights = w;
    p->plainBias.assign(bias.begin(), bias.end());
  }
  m_prepared = std::move(p);
}

FloatTensor Conv2dLayer::run(const FloatTensor& x) const {
  const onednn::OneThread oneThread;
  const Prepared& p = *m_prepared;
  checkConsistent(x, "conv2d");
  if (x.shape != p.inputShape) {
    fail("conv2d: input {} does not match the shape {} the layer was prepared for",
         shapeString(x.shape), shapeString(p.inputShape));
  }
  if (!p.conv) {
    return plain::conv2d(x, p.plainWeights, p.plainBias, p.params);
  }
  FloatTensor y = makeFloatTensor(p.shape.outputShape());
  const dnnl::engine& engine = onednn::cpuEngine();
  const memory userSrc(p.userSrc, engine, const_cast<float*>(x.data.data()));
  const memory userDst(p.userDst, engine, y.data.data());
  memory src = userSrc;
  // The layouts oneDNN chose live in the calling thread's reused buffers.
  if (p.convSrc != p.userSrc) {
    src = memory(p.convSrc, engine, onednn::threadBuffer(1, p.convSrc.get_size()));
    onednn::reorder(userSrc, src);
  }
  const memory dst = p.convDst == p.userDst
                         ? userDst
                         : memory(p.convDst, engine, onednn::threadBuffer(2, p.convDst.get_size()));
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, p.weights}, {DNNL_ARG_DST, dst}};
  if (p.bias) {
    args.emplace(DNNL_ARG_BIAS, p.bias);
  }
  onednn::execute(*p.conv, std::move(args), p.scratchpadBytes);
  if (p.convDst != p.userDst) {
    onednn::reorder(dst, userDst);
  }
  return y;
}

const std::vector<std::int64_t>& Conv2dLayer::inputShape() const {
  return m_prepared->inputShape;
}

}  // namespace npu::golden
