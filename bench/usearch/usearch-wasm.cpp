// Benchmark-only binding of USearch (the header-only C++ library, taken from the `usearch`
// crate's sources on crates.io) for bench/index-compare.ts. Built by bench/usearch/build.mjs
// with Debian's Emscripten 3.1.6 into bench/.cache/; never shipped.
#include <usearch/index_dense.hpp>

using namespace unum::usearch;

static index_dense_t index_;
static bool ready = false;

extern "C" {

// kind: 0 = f32, 1 = f16, 2 = i8. Returns 1 on success.
__attribute__((used)) int u_init(int dim, int kind, int connectivity, int expansion_add, int expansion_search, int capacity) {
    scalar_kind_t scalar = kind == 0 ? scalar_kind_t::f32_k : kind == 1 ? scalar_kind_t::f16_k : scalar_kind_t::i8_k;
    metric_punned_t metric(static_cast<std::size_t>(dim), metric_kind_t::cos_k, scalar);
    index_dense_config_t config(static_cast<std::size_t>(connectivity), static_cast<std::size_t>(expansion_add),
                                static_cast<std::size_t>(expansion_search));
    auto made = index_dense_t::make(metric, config, default_free_value<default_key_t>(), index_limits_t(static_cast<std::size_t>(capacity), 1));
    if (!made) return 0;
    index_ = std::move(made.index);
    ready = true;
    return 1;
}

__attribute__((used)) int u_reserve(int capacity) {
    return index_.try_reserve(index_limits_t(static_cast<std::size_t>(capacity), 1)) ? 1 : 0;
}

__attribute__((used)) int u_add(unsigned key, float const* vector) {
    auto result = index_.add(static_cast<default_key_t>(key), vector, 0);
    return result ? 1 : 0;
}

__attribute__((used)) int u_search(float const* query, int k, unsigned long long* keys, float* distances) {
    auto result = index_.search(query, static_cast<std::size_t>(k), 0);
    if (!result) return -1;
    return static_cast<int>(result.dump_to(reinterpret_cast<default_key_t*>(keys), distances, static_cast<std::size_t>(k)));
}

__attribute__((used)) double u_memory_usage() { return static_cast<double>(index_.memory_usage()); }
__attribute__((used)) double u_serialized_length() { return static_cast<double>(index_.serialized_length()); }
__attribute__((used)) void* u_malloc(int bytes) { return std::malloc(static_cast<std::size_t>(bytes)); }
}
