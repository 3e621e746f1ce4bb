// The kernel pre-pass: what it rewrites and the errors a kernel author sees.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/prepass/translator.h"

namespace marlin::prepass {
namespace {

std::string translate_text(const std::string& name, const std::string& text,
                           TranslateOptions options = {}) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return translate_file(path.string(), options).cpp;
}

std::string error_of(const std::string& name, const std::string& text) {
  try {
    translate_text(name, text);
  } catch (const TranslateError& e) {
    return e.what();
  }
  return "";
}

TEST(PrepassTest, RewritesAddressSpacesLiteralsAndThreadgroupArrays) {
  const std::string cpp = translate_text("prepass_ok.metal", R"(#include <metal_stdlib>
using namespace metal;
constant uint kN = 4;
kernel void k(device const half* a [[buffer(0)]], const device float* b [[buffer(1)]],
              constant float& s [[buffer(2)]], uint i [[thread_position_in_grid]]) {
  threadgroup half tile[kN][8];
  thread half x = 1.5h;
  tile[0][i] = x;
}
)");
  EXPECT_NE(cpp.find("::metal::space_ptr<const half, ::metal::Space::kDevice>"), std::string::npos);
  EXPECT_NE(cpp.find("::metal::space_ptr<const float, ::metal::Space::kDevice>"),
            std::string::npos);
  EXPECT_NE(cpp.find("const float &"), std::string::npos);
  EXPECT_NE(cpp.find("const uint kN = 4"), std::string::npos);
  EXPECT_NE(cpp.find("::metal::half::round(1.5f)"), std::string::npos);
  EXPECT_NE(cpp.find("threadgroup_decl<half[kN][8]>(0, \"tile\")"), std::string::npos);
  EXPECT_NE(cpp.find("{sizeof(half[kN][8]), alignof(half[kN][8]), \"tile\"}"), std::string::npos);
  EXPECT_NE(cpp.find(".name = \"k\""), std::string::npos);
  EXPECT_NE(cpp.find(".synchronizes = false"), std::string::npos);
  EXPECT_NE(cpp.find("bind_builtin<::metal::counted_uint>(marlin_ctx, "
                     "::marlin::sim::Builtin::kThreadPositionInGrid)"),
            std::string::npos);
}

TEST(PrepassTest, TemplateKernelsRegisterEachHostName) {
  const std::string cpp = translate_text("prepass_template.metal", R"(#include <metal_stdlib>
using namespace metal;
template <uint N>
kernel void fill(device float* out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
  threadgroup float scratch[N];
  scratch[i % N] = 1.0f;
  out[i] = float(N);
}
template [[host_name("fill_4")]] kernel void fill<4>(device float* out [[buffer(0)]],
                                                     uint i [[thread_position_in_grid]]);
)");
  EXPECT_NE(cpp.find("template <uint N> struct marlin_tgl_fill"), std::string::npos);
  EXPECT_NE(cpp.find(".name = \"fill_4\""), std::string::npos);
  EXPECT_NE(cpp.find("marlin_tgl_fill<4>::decls()"), std::string::npos);
  EXPECT_NE(cpp.find("fill<4>(::marlin::sim::bind_buffer"), std::string::npos);
}

TEST(PrepassTest, ErrorsNameFileAndLine) {
  EXPECT_NE(error_of("prepass_e1.metal", "kernel void k(device float* a) {}\n")
                .find("prepass_e1.metal:1: error: kernel parameter without a Metal attribute"),
            std::string::npos);
  EXPECT_NE(error_of("prepass_e2.metal", "void helper() {\n  threadgroup float t[4];\n}\n")
                .find("prepass_e2.metal:2: error: threadgroup variables must be declared at "
                      "kernel scope"),
            std::string::npos);
  EXPECT_NE(error_of("prepass_e3.metal", "#include <vector>\n")
                .find("kernels may include only Metal standard headers"),
            std::string::npos);
  EXPECT_NE(error_of("prepass_e4.metal",
                     "kernel void k(device float* a [[buffer(0)]], uint x [[stage_in]]) {}\n")
                .find("unsupported kernel parameter attribute on 'x'"),
            std::string::npos);
  EXPECT_NE(error_of("prepass_e5.metal", "kernel int k() { return 0; }\n")
                .find("a kernel must return void"),
            std::string::npos);
  EXPECT_NE(error_of("prepass_e6.metal", "void f(thread int& x) {\n#pragma unroll\n  x = 1;\n}\n")
                .find("prepass_e6.metal:2: error: a loop pragma must be followed by a for, while "
                      "or do loop"),
            std::string::npos);
}

// Scalar types become counted types in function code only, never where C++ needs the
// built-in type (docs/kernel-dialect.md, "Counted scalar types").
TEST(PrepassTest, DeclaresFunctionCodeScalarsAsCountedTypes) {
  const std::string cpp = translate_text("prepass_counted.metal", R"(#include <metal_stdlib>
using namespace metal;
constant uint kSize = 4;
struct Params { uint n; float scale; };
template <uint TM, int TN>
inline uint scaled(uint x, thread float& acc, device const uint* codes) {
  simdgroup_matrix<float, 8, 8> m;
  for (int j = 0; j < 4; ++j) acc += float(x) * as_type<float>(codes[j]);
  return static_cast<uint>(x * TM) + sizeof(short) + (unsigned int)1;
}
kernel void k(device const uint* in [[buffer(0)]], constant uint& n [[buffer(1)]],
              uint i [[thread_position_in_grid]]) {
  threadgroup uint shared[kSize];
  float acc = 0.0f;
  const half h = half(acc);
  shared[i] = scaled<8, 2>(in[i], acc, in) + uint(h);
}
)");
  // Namespace-scope constants, struct members and template parameters stay built-in.
  EXPECT_NE(cpp.find("const uint kSize = 4;"), std::string::npos);
  EXPECT_NE(cpp.find("struct Params { uint n; float scale; };"), std::string::npos);
  EXPECT_NE(cpp.find("template <uint TM, int TN>"), std::string::npos);
  // Parameters, return types and locals are counted.
  EXPECT_NE(cpp.find("inline ::metal::counted_uint scaled(::metal::counted_uint x,"),
            std::string::npos);
  EXPECT_NE(cpp.find("::metal::counted_float& acc"), std::string::npos);
  EXPECT_NE(cpp.find("for (::metal::counted_int j = 0;"), std::string::npos);
  EXPECT_NE(cpp.find("acc += ::metal::counted_float(x)"), std::string::npos);
  EXPECT_NE(cpp.find("::metal::counted_float acc = 0.0f;"), std::string::npos);
  EXPECT_NE(cpp.find("const ::metal::counted_half h = ::metal::counted_half(acc);"),
            std::string::npos);
  // The operand of sizeof stays built-in: sizeof(short) is 2.
  EXPECT_NE(cpp.find("sizeof(short)"), std::string::npos);
  EXPECT_NE(cpp.find("bind_builtin<::metal::counted_uint>"), std::string::npos);
  // static_cast and as_type targets are counted; other template arguments are not.
  EXPECT_NE(cpp.find("as_type<::metal::counted_float>"), std::string::npos);
  EXPECT_NE(cpp.find("static_cast<::metal::counted_uint>"), std::string::npos);
  EXPECT_NE(cpp.find("simdgroup_matrix<float, 8, 8> m;"), std::string::npos);
  // Memory stays built-in (address-space pointees, threadgroup arrays), and so do multi-word
  // type names.
  EXPECT_NE(cpp.find("::metal::space_ptr<const uint, ::metal::Space::kDevice>"), std::string::npos);
  EXPECT_NE(cpp.find("const uint &"), std::string::npos);
  EXPECT_NE(cpp.find("threadgroup_decl<uint[kSize]>"), std::string::npos);
  EXPECT_NE(cpp.find("(unsigned int)1"), std::string::npos);
}

TEST(PrepassTest, UnrollPragmasMarkTheLoopIndexAndLeaveTheOutput) {
  const std::string cpp = translate_text("prepass_unroll.metal", R"(#include <metal_stdlib>
using namespace metal;
template <uint N>
inline uint sum(uint x) {
#pragma clang loop unroll(full)  // the index is a constant in each copy
  for (uint i = 0; i < N / 2; i += 2) x += i;
  #pragma unroll
  for (int j = 8; j >= 0; j--) { x += uint(j); }
#pragma unroll 4
  for (uint k = 0; k < x; ++k) x ^= k;
#pragma clang loop unroll(full)
  for (uint m = 0; m < 4; ++m) { m += 1u; }
#pragma clang loop unroll(full)
  for (uint q = 0; q < 8 && q < x; ++q) x += q;
  return x;
}
)");
  EXPECT_NE(cpp.find("for (::metal::unrolled_index<::metal::counted_uint, (__builtin_constant_p(0) "
                     "&& __builtin_constant_p(N / 2) && __builtin_constant_p(2))> i = 0; "
                     "i < ::metal::unrolled_bound<decltype(i)>(N / 2); "
                     "i += ::metal::unrolled_bound<decltype(i)>(2))"),
            std::string::npos);
  EXPECT_NE(cpp.find("for (::metal::unrolled_index<::metal::counted_int, (__builtin_constant_p(8) "
                     "&& __builtin_constant_p(0) && __builtin_constant_p(1))> j = 8; "
                     "j >= ::metal::unrolled_bound<decltype(j)>(0); j--)"),
            std::string::npos);
  // A partial unroll, a body that assigns its index and a bound that reads it keep the counted
  // index.
  EXPECT_NE(cpp.find("for (::metal::counted_uint k = 0;"), std::string::npos);
  EXPECT_NE(cpp.find("for (::metal::counted_uint m = 0;"), std::string::npos);
  EXPECT_NE(cpp.find("for (::metal::counted_uint q = 0; q < 8 && q < x; ++q)"), std::string::npos);
  // GCC does not know the pragmas: they are removed, lines kept.
  EXPECT_EQ(cpp.find("#pragma unroll"), std::string::npos);
  EXPECT_EQ(cpp.find("#pragma clang"), std::string::npos);
}

TEST(PrepassTest, InlinesQuotedIncludes) {
  const auto dir = std::filesystem::temp_directory_path();
  std::ofstream(dir / "prepass_common.h")
      << "#pragma once\ninline float twice(device float* p) { return p[0] * 2.0f; }\n";
  const std::string cpp =
      translate_text("prepass_inc.metal",
                     "#include \"prepass_common.h\"\n#include \"prepass_common.h\"\n"
                     "kernel void k(device float* a [[buffer(0)]]) { a[1] = twice(a); }\n");
  EXPECT_NE(cpp.find("inline ::metal::counted_float twice(::metal::space_ptr<float, "
                     "::metal::Space::kDevice>"),
            std::string::npos);
  // #pragma once: inlined a single time.
  EXPECT_EQ(cpp.find("inline float twice"), cpp.rfind("inline float twice"));
}

}  // namespace
}  // namespace marlin::prepass

namespace marlin::prepass {
namespace {

// The batched build (--batch): the plain build's translation in the batched shim's namespace,
// with function code's vector names, template type parameters and half literals batched, and a
// batched entry point and registration instead of the plain ones.
TEST(PrepassTest, BatchedBuildNamesTheBatchedShim) {
  const std::string source = R"(#include <metal_stdlib>
using namespace metal;
struct P { uint2 shape; half h; };
template <typename OUT>
inline void put(device OUT* out, float v, uint i) { out[i] = OUT(v) + OUT(0.5h); }
kernel void k(device half* out [[buffer(0)]], constant P& p [[buffer(1)]],
              uint2 tg [[threadgroup_position_in_grid]], uint lane [[thread_index_in_simdgroup]]) {
  const half2 w = half2(1.0h);
  put<half>(out, float(w.x), tg.x + lane);
  threadgroup_barrier(mem_flags::mem_threadgroup);
}
)";
  const std::string cpp = translate_text("prepass_batch.metal", source, {.batch = true});
  EXPECT_NE(cpp.find("#include <metal_batch_stdlib>"), std::string::npos);
  EXPECT_NE(cpp.find("#include \"sim/runtime/batch_binding.h\""), std::string::npos);
  EXPECT_NE(cpp.find("using namespace metal_batch;"), std::string::npos);
  EXPECT_EQ(cpp.find("::metal::"), std::string::npos);
  // Struct members stay plain; function code's scalars and vectors are batched.
  EXPECT_NE(cpp.find("struct P { uint2 shape; half h; };"), std::string::npos);
  EXPECT_NE(cpp.find("const ::metal_batch::counted_half2 w = ::metal_batch::counted_half2("),
            std::string::npos);
  EXPECT_NE(cpp.find("::metal_batch::counted_uint2 tg"), std::string::npos);
  // A template type parameter names a batched value in function code, a plain pointee.
  EXPECT_NE(cpp.find("::metal_batch::space_ptr<OUT, ::metal_batch::Space::kDevice>"),
            std::string::npos);
  EXPECT_NE(cpp.find("out[i] = ::metal_batch::batched_t<OUT>(v) + ::metal_batch::batched_t<OUT>("
                     "::metal_batch::counted_half(::metal_batch::half::round(0.5f)))"),
            std::string::npos);
  EXPECT_NE(cpp.find("put<half>(out"), std::string::npos);
  // The batched entry point and its registration.
  EXPECT_NE(cpp.find("void marlin_batch_entry_k(::marlin::sim::BatchBindContext& marlin_ctx)"),
            std::string::npos);
  EXPECT_NE(cpp.find("::marlin::sim::bind_batch_builtin<::metal_batch::counted_uint2>(marlin_ctx, "
                     "::marlin::sim::Builtin::kThreadgroupPositionInGrid)"),
            std::string::npos);
  EXPECT_NE(cpp.find("::marlin::sim::BatchKernelRegistrar marlin_batch_registrar_k{\"k\", "
                     "&marlin_batch_entry_k};"),
            std::string::npos);
  EXPECT_EQ(cpp.find("KernelInfo{"), std::string::npos);

  // The plain build of the same source is unchanged by the batched one's rules.
  const std::string plain = translate_text("prepass_plain.metal", source);
  EXPECT_NE(plain.find("const half2 w = half2(::metal::half::round(1.0f));"), std::string::npos);
  EXPECT_NE(plain.find("out[i] = OUT(v) + OUT(::metal::half::round(0.5f));"), std::string::npos);
  EXPECT_EQ(plain.find("metal_batch"), std::string::npos);
}

}  // namespace
}  // namespace marlin::prepass
