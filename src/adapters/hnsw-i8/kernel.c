/*
 * houkai-web's int8 HNSW kernel: a hierarchical navigable small-world graph over int8-quantised,
 * unit-normalised vectors, compiled to freestanding WebAssembly (no libc, SIMD128) by
 * scripts/build-index-wasm.mjs. One instance holds one index; JavaScript owns persistence. The
 * threaded build (the same source with atomics) may have helper instances on the same shared
 * memory, which only search the graph for batches of insertions ("Batches", at the end).
 *
 * Memory is laid out in fixed-size chunks of CHUNK slots, allocated once and never moved, so
 * JavaScript can copy a chunk's persistent bytes straight out of (and back into) linear memory:
 *
 *   [ vectors i8[CHUNK·dpad] | scales f32[CHUNK] | labels u32[CHUNK] | levels u8[CHUNK] |
 *     flags u8[CHUNK] ]                                    ← the "vector block" (persisted)
 *   [ level-0 links u32[CHUNK·(1+M0)] ]                     ← the "link block" (persisted, plus
 *                                                             the upper-level links serialised)
 *   [ upper-link pointers u32[CHUNK] | visited marks u32[CHUNK] ]   ← runtime only (the marks
 *                                                             are the main thread's; a helper
 *                                                             keeps its own)
 *
 * A write marks what it changed: the vector block of the slot it adds, and the link block of
 * every slot whose neighbour lists it edits. JavaScript persists exactly the dirty blocks.
 *
 * Quantisation: each vector is normalised, then scaled so its largest component maps to ±127:
 * v ≈ scale · q. Cosine similarity ≈ scale_a · scale_b · Σ q_a·q_b (an exact integer dot).
 *
 * The algorithm follows Malkov & Yashunin (2016): greedy descent through the upper layers,
 * a beam search of width ef on each layer, neighbours chosen by the diversity heuristic, and
 * reverse links pruned by the same heuristic when a list overflows. Removal marks a slot
 * deleted: it keeps routing searches but is never returned; re-adding a label writes a new slot.
 */

typedef unsigned int u32;
typedef int i32;
typedef unsigned char u8;
typedef signed char i8;
typedef float f32;
typedef unsigned long long u64;
typedef unsigned long usize;

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#define EXPORT(name) __attribute__((export_name(#name)))
#define IMPORT(name) __attribute__((import_module("env"), import_name(#name)))

/** Asks JavaScript whether a label passes the caller's filter (only while filtering). */
IMPORT(admit) extern i32 js_admit(u32 label);

#define CHUNK 1024u
#define MAX_CHUNKS 8192u
#define MAX_LEVEL 15u
#define FLAG_DELETED 1u
#define NONE 0xffffffffu
/** The most links a slot has on an upper level (M); level 0 has twice as many. */
#define MAX_M 100u

extern u8 __heap_base;

/* ------------------------------------------------------------------------------------------ */
/* Memory: a bump allocator over linear memory. Nothing is freed; a cleared index is a new instance. */

static usize heap_top;

static void *alloc(usize bytes) {
  if (heap_top == 0) heap_top = ((usize)&__heap_base + 15u) & ~(usize)15u;
  usize start = heap_top;
  usize end = (start + bytes + 15u) & ~(usize)15u;
  usize have = __builtin_wasm_memory_size(0) * 65536u;
  if (end > have) {
    usize pages = (end - have + 65535u) / 65536u;
    if (__builtin_wasm_memory_grow(0, pages) == (usize)-1) return 0;
  }
  heap_top = end;
  return (void *)start;
}

static void zero(void *p, usize n) { __builtin_memset(p, 0, n); }

/* ------------------------------------------------------------------------------------------ */
/* Parameters and layout */

static u32 dim, dpad, M, M0, ef_construction;
static u64 rng;
static u32 off_scale, off_label, off_level, off_flags, vec_block_bytes;
static u32 off_link0, link_stride, off_upper, off_visited, chunk_bytes;

static u8 *chunks[MAX_CHUNKS];
static u32 nchunks, nslots, live, entry = NONE, max_level;
static u8 dirty_vec[MAX_CHUNKS], dirty_link[MAX_CHUNKS];

/* Buffers JavaScript reads and writes. */
static f32 *io_vec;        /* a float vector in (add, search) */
static i8 *q8;             /* the quantised query */
static f32 q_scale;
static u32 *out_label;     /* results out */
static f32 *out_dist;
static u32 out_cap;
static u8 *scratch_buf;
static usize scratch_cap;

static inline u8 *chunk_of(u32 s) { return chunks[s / CHUNK]; }
static inline i8 *vec_of(u32 s) { return (i8 *)(chunk_of(s) + (s % CHUNK) * dpad); }
static inline f32 *scale_of(u32 s) { return (f32 *)(chunk_of(s) + off_scale) + s % CHUNK; }
static inline u32 *label_of(u32 s) { return (u32 *)(chunk_of(s) + off_label) + s % CHUNK; }
static inline u8 *level_of(u32 s) { return chunk_of(s) + off_level + s % CHUNK; }
static inline u8 *flags_of(u32 s) { return chunk_of(s) + off_flags + s % CHUNK; }
static inline u32 **upper_slot(u32 s) { return (u32 **)(chunk_of(s) + off_upper) + s % CHUNK; }
/** The neighbour list of `s` on `level`: [count, ids…]. */
static inline u32 *links_of(u32 s, u32 level) {
  if (level == 0) return (u32 *)(chunk_of(s) + off_link0) + (s % CHUNK) * (1 + M0);
  return *upper_slot(s) + (level - 1) * (1 + M);
}

/* ------------------------------------------------------------------------------------------ */
/* Label → slot: open addressing with linear probing and backward-shift deletion. */

static u32 *map_keys, *map_vals; /* vals: slot + 1, 0 = empty */
static u32 map_cap, map_count;

static inline u32 hash32(u32 x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return x;
}

static i32 map_init(u32 cap) {
  u32 c = 1024;
  while (c < cap) c <<= 1;
  u32 *k = alloc((usize)c * 4), *v = alloc((usize)c * 4);
  if (!k || !v) return 0;
  zero(v, (usize)c * 4);
  map_keys = k; map_vals = v; map_cap = c; map_count = 0;
  return 1;
}

static u32 map_get(u32 key) {
  u32 mask = map_cap - 1;
  for (u32 i = hash32(key) & mask;; i = (i + 1) & mask) {
    if (map_vals[i] == 0) return NONE;
    if (map_keys[i] == key) return map_vals[i] - 1;
  }
}

static i32 map_put(u32 key, u32 slot);

static i32 map_grow(void) {
  u32 *ok = map_keys, *ov = map_vals, oc = map_cap;
  if (!map_init(oc * 2)) return 0;
  for (u32 i = 0; i < oc; i++) if (ov[i]) map_put(ok[i], ov[i] - 1);
  return 1;
}

static i32 map_put(u32 key, u32 slot) {
  if ((map_count + 1) * 10 > map_cap * 7 && !map_grow()) return 0;
  u32 mask = map_cap - 1;
  for (u32 i = hash32(key) & mask;; i = (i + 1) & mask) {
    if (map_vals[i] == 0) { map_keys[i] = key; map_vals[i] = slot + 1; map_count++; return 1; }
    if (map_keys[i] == key) { map_vals[i] = slot + 1; return 1; }
  }
}

static void map_del(u32 key) {
  u32 mask = map_cap - 1, i = hash32(key) & mask;
  for (;; i = (i + 1) & mask) {
    if (map_vals[i] == 0) return;
    if (map_keys[i] == key) break;
  }
  map_vals[i] = 0;
  map_count--;
  /* Shift later members of the run back so every probe sequence stays unbroken. */
  for (u32 j = (i + 1) & mask; map_vals[j]; j = (j + 1) & mask) {
    u32 home = hash32(map_keys[j]) & mask;
    if (((j - home) & mask) >= ((j - i) & mask)) {
      map_keys[i] = map_keys[j]; map_vals[i] = map_vals[j]; map_vals[j] = 0;
      i = j;
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Distances */

static inline i32 dot8(const i8 *a, const i8 *b) {
#ifdef __wasm_simd128__
  v128_t acc0 = wasm_i32x4_splat(0), acc1 = wasm_i32x4_splat(0);
  for (u32 i = 0; i < dpad; i += 16) {
    v128_t va = wasm_v128_load(a + i), vb = wasm_v128_load(b + i);
    acc0 = wasm_i32x4_add(acc0, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(va), wasm_i16x8_extend_low_i8x16(vb)));
    acc1 = wasm_i32x4_add(acc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(va), wasm_i16x8_extend_high_i8x16(vb)));
  }
  v128_t acc = wasm_i32x4_add(acc0, acc1);
  return wasm_i32x4_extract_lane(acc, 0) + wasm_i32x4_extract_lane(acc, 1) + wasm_i32x4_extract_lane(acc, 2) +
         wasm_i32x4_extract_lane(acc, 3);
#else
  i32 s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (u32 i = 0; i < dpad; i += 4) {
    s0 += a[i] * b[i]; s1 += a[i + 1] * b[i + 1]; s2 += a[i + 2] * b[i + 2]; s3 += a[i + 3] * b[i + 3];
  }
  return s0 + s1 + s2 + s3;
#endif
}

/** Σ q16·b over the padded length: a 16-bit query against an int8 code (same cost as dot8). */
static inline i32 dot16(const short *a, const i8 *b) {
#ifdef __wasm_simd128__
  v128_t acc0 = wasm_i32x4_splat(0), acc1 = wasm_i32x4_splat(0);
  for (u32 i = 0; i < dpad; i += 16) {
    v128_t vb = wasm_v128_load(b + i);
    acc0 = wasm_i32x4_add(acc0, wasm_i32x4_dot_i16x8(wasm_v128_load(a + i), wasm_i16x8_extend_low_i8x16(vb)));
    acc1 = wasm_i32x4_add(acc1, wasm_i32x4_dot_i16x8(wasm_v128_load(a + i + 8), wasm_i16x8_extend_high_i8x16(vb)));
  }
  v128_t acc = wasm_i32x4_add(acc0, acc1);
  return wasm_i32x4_extract_lane(acc, 0) + wasm_i32x4_extract_lane(acc, 1) + wasm_i32x4_extract_lane(acc, 2) +
         wasm_i32x4_extract_lane(acc, 3);
#else
  i32 s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (u32 i = 0; i < dpad; i += 4) {
    s0 += a[i] * b[i]; s1 += a[i + 1] * b[i + 1]; s2 += a[i + 2] * b[i + 2]; s3 += a[i + 3] * b[i + 3];
  }
  return s0 + s1 + s2 + s3;
#endif
}

/** 1 − cosine between a quantised vector (q, qs) and slot s. */
static short *q16;   /* the query at 16-bit precision (searches) */
static i32 use16;    /* distances from q16 instead of an int8 code */
static inline f32 dist_to(const i8 *q, f32 qs, u32 s) {
  i32 dot = use16 ? dot16(q16, vec_of(s)) : dot8(q, vec_of(s));
  return 1.0f - qs * *scale_of(s) * (f32)dot;
}
static inline f32 dist_slots(u32 a, u32 b) { return dist_to(vec_of(a), *scale_of(a), b); }

/** Normalises `src` (dim floats) and writes its int8 code into `dst` (dpad bytes); returns the scale. */
static f32 quantise(const f32 *src, i8 *dst) {
  f32 norm2 = 0, peak = 0;
  for (u32 i = 0; i < dim; i++) {
    f32 x = src[i];
    norm2 += x * x;
    f32 ax = x < 0 ? -x : x;
    if (ax > peak) peak = ax;
  }
  zero(dst, dpad);
  if (norm2 <= 0 || peak <= 0) return 0;
  f32 inv_norm = 1.0f / __builtin_sqrtf(norm2);
  f32 scale = peak * inv_norm / 127.0f; /* the unit vector's largest component maps to ±127 */
  f32 to_code = 127.0f / peak;
  for (u32 i = 0; i < dim; i++) {
    f32 c = src[i] * to_code;
    i32 r = (i32)(c < 0 ? c - 0.5f : c + 0.5f);
    if (r > 127) r = 127;
    if (r < -127) r = -127;
    dst[i] = (i8)r;
  }
  return scale;
}

/**
 * The query side at 16-bit precision: searches compare it with the int8 codes at the cost of an
 * int8 dot, and its own rounding error vanishes next to the codes'. The peak is bounded so the
 * int32 sums cannot overflow (|Σ| ≤ dim · peak · 127).
 */
static f32 quantise16(const f32 *src, short *dst) {
  f32 norm2 = 0, peak = 0;
  for (u32 i = 0; i < dim; i++) {
    f32 x = src[i];
    norm2 += x * x;
    f32 ax = x < 0 ? -x : x;
    if (ax > peak) peak = ax;
  }
  zero(dst, (usize)dpad * 2);
  if (norm2 <= 0 || peak <= 0) return 0;
  f32 top = 2147483647.0f / ((f32)dim * 127.0f);
  if (top > 32767.0f) top = 32767.0f;
  f32 inv_norm = 1.0f / __builtin_sqrtf(norm2);
  f32 to_code = top / peak;
  for (u32 i = 0; i < dim; i++) {
    f32 c = src[i] * to_code;
    i32 r = (i32)(c < 0 ? c - 0.5f : c + 0.5f);
    if (r > 32767) r = 32767;
    if (r < -32767) r = -32767;
    dst[i] = (short)r;
  }
  return peak * inv_norm / top;
}

/* ------------------------------------------------------------------------------------------ */
/* Heaps of (distance, slot). `far` is a max-heap (worst on top), `near` a min-heap. */

typedef struct { f32 d; u32 s; } Pair;
/** `fixed`: the heap may not grow (it belongs to a thread that must not allocate). */
typedef struct { Pair *a; u32 n, cap, fixed; } Heap;

#define MAX_THREADS 4u
#define BATCH_MAX 256u

/**
 * What one thread's searches use: its heaps, its candidate buffer and its visited marks (one u32
 * a slot, chunk by chunk; the main thread's live inside the chunks). Only the main thread
 * allocates; a helper's buffers are reserved for it before a batch starts.
 */
typedef struct {
  Heap far_heap, near_heap;
  Heap sel; /* candidates nearest first: a buffer grown like a heap (its n stays 0) */
  u32 epoch;
  u32 items; /* batch items this thread searched (a count for tests and benchmarks) */
  volatile u32 touched; /* what touch() read, kept so the reads are not optimised away */
  f32 cross[BATCH_MAX];
  u32 *vis[MAX_CHUNKS];
} Ctx;

static Ctx ctxs[MAX_THREADS];
static Heap tmp_heap;

static i32 heap_reserve(Heap *h, u32 cap) {
  if (cap <= h->cap) return 1;
  if (h->fixed) return 0;
  u32 c = h->cap ? h->cap : 256;
  while (c < cap) c *= 2;
  Pair *a = alloc((usize)c * sizeof(Pair));
  if (!a) return 0;
  if (h->n) __builtin_memcpy(a, h->a, (usize)h->n * sizeof(Pair));
  h->a = a; h->cap = c;
  return 1;
}

/* sign = +1: max-heap on d; sign = -1: min-heap on d. */
static inline int above(Pair x, Pair y, int max) { return max ? x.d > y.d : x.d < y.d; }

static i32 heap_push(Heap *h, f32 d, u32 s, int max) {
  if (h->n == h->cap && !heap_reserve(h, h->n + 1)) return 0;
  Pair p = {d, s};
  u32 i = h->n++;
  while (i > 0) {
    u32 parent = (i - 1) / 2;
    if (!above(p, h->a[parent], max)) break;
    h->a[i] = h->a[parent];
    i = parent;
  }
  h->a[i] = p;
  return 1;
}

static Pair heap_pop(Heap *h, int max) {
  Pair top = h->a[0], last = h->a[--h->n];
  u32 i = 0, n = h->n;
  for (;;) {
    u32 l = 2 * i + 1;
    if (l >= n) break;
    u32 c = (l + 1 < n && above(h->a[l + 1], h->a[l], max)) ? l + 1 : l;
    if (!above(h->a[c], last, max)) break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (n) h->a[i] = last;
  return top;
}

/* ------------------------------------------------------------------------------------------ */
/* Chunks */

static i32 ensure_slots(u32 slots) {
  while (nchunks * CHUNK < slots) {
    if (nchunks == MAX_CHUNKS) return 0;
    u8 *c = alloc(chunk_bytes);
    if (!c) return 0;
    zero(c, chunk_bytes);
    ctxs[0].vis[nchunks] = (u32 *)(c + off_visited);
    chunks[nchunks++] = c;
  }
  return 1;
}

static inline void mark_links(u32 s) { dirty_link[s / CHUNK] = 1; }

static void next_epoch(Ctx *x) {
  if (++x->epoch == 0) {
    for (u32 c = 0; c < nchunks; c++) zero(x->vis[c], CHUNK * 4);
    x->epoch = 1;
  }
}

static inline u32 *visited_in(Ctx *x, u32 s) { return x->vis[s / CHUNK] + s % CHUNK; }

static u32 random_level(void) {
  /* P(level ≥ l) = M^-l, i.e. floor(−ln U / ln M): the level distribution of the paper. */
  u32 level = 0;
  for (;;) {
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    u64 r = rng * 0x2545F4914F6CDD1Dull;
    f32 u = (f32)(r >> 40) / 16777216.0f;
    if (u * (f32)M >= 1.0f || level >= MAX_LEVEL) return level;
    level++;
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Search */

static i32 filtering;

static inline int admissible(u32 s) {
  if (*flags_of(s) & FLAG_DELETED) return 0;
  return !filtering || js_admit(*label_of(s));
}

/**
 * Reads a byte of every cache line of these slots' codes, and their scales, before any distance
 * is computed. WebAssembly has no prefetch instruction; these loads do not depend on each other,
 * so the CPU has them all in flight at once, where the distances one after another would wait for
 * memory one slot at a time. A graph larger than the caches spends its search waiting for memory:
 * at a million slots, this takes a third off a search (BENCHMARKS.md, "the neighbours' codes
 * fetched together").
 */
static void touch(Ctx *x, const u32 *slots, u32 m) {
  u32 t = 0;
  for (u32 i = 0; i < m; i++) {
    const u8 *v = (const u8 *)vec_of(slots[i]);
    for (u32 o = 0; o < dpad; o += 64) t += v[o];
    t += *(const u8 *)scale_of(slots[i]);
  }
  x->touched = t;
}

/**
 * Beam search on one layer from `ep`. Leaves up to `ef` best slots in far_heap (a max-heap).
 * `results_only_admissible`: deleted and filtered-out slots route but are not collected.
 */
static i32 search_layer(Ctx *x, const i8 *q, f32 qs, u32 ep, u32 ef, u32 level, int results_only_admissible) {
  Heap *far = &x->far_heap, *near = &x->near_heap;
  u32 epoch;
  next_epoch(x);
  epoch = x->epoch;
  if (!heap_reserve(far, ef + 1) || !heap_reserve(near, 64)) return 0;
  far->n = 0;
  near->n = 0;
  f32 d = dist_to(q, qs, ep);
  *visited_in(x, ep) = epoch;
  f32 bound = 3.0f; /* above any distance: 1 − cosine ≤ 2 */
  if (!results_only_admissible || admissible(ep)) {
    heap_push(far, d, ep, 1);
    bound = d;
  }
  if (!heap_push(near, d, ep, 0)) return 0;
  while (near->n) {
    Pair c = heap_pop(near, 0);
    if (c.d > bound && far->n >= ef) break;
    u32 *links = links_of(c.s, level);
    u32 n = links[0], fresh[2 * MAX_M], m = 0;
    for (u32 i = 1; i <= n; i++) {
      u32 e = links[i];
      u32 *mark = visited_in(x, e);
      if (*mark == epoch) continue;
      *mark = epoch;
      fresh[m++] = e;
    }
    touch(x, fresh, m);
    for (u32 i = 0; i < m; i++) {
      u32 e = fresh[i];
      f32 de = dist_to(q, qs, e);
      if (far->n < ef || de < bound) {
        if (!heap_push(near, de, e, 0)) return 0;
        if (!results_only_admissible || admissible(e)) {
          heap_push(far, de, e, 1);
          if (far->n > ef) heap_pop(far, 1);
          bound = far->a[0].d;
        }
      }
    }
  }
  return 1;
}

/** Greedy descent from `from` (on `top`) to `stop_level` + 1; returns the closest slot found. */
static u32 descend(const i8 *q, f32 qs, u32 from, u32 top, u32 stop_level) {
  u32 cur = from;
  f32 cur_d = dist_to(q, qs, cur);
  for (u32 level = top; level > stop_level; level--) {
    for (int changed = 1; changed;) {
      changed = 0;
      u32 *links = links_of(cur, level);
      u32 n = links[0];
      for (u32 i = 1; i <= n; i++) {
        f32 d = dist_to(q, qs, links[i]);
        if (d < cur_d) { cur_d = d; cur = links[i]; changed = 1; }
      }
    }
  }
  return cur;
}

/* ------------------------------------------------------------------------------------------ */
/* Insertion */

/** Pops the thread's far heap into its candidate buffer, nearest first; returns the count, or −1. */
static i32 drain_ascending(Ctx *x) {
  u32 n = x->far_heap.n;
  if (!heap_reserve(&x->sel, n)) return -1;
  for (u32 i = n; i > 0; i--) x->sel.a[i - 1] = heap_pop(&x->far_heap, 1);
  return (i32)n;
}

/**
 * The diversity heuristic: walk candidates nearest first and keep one only if it is closer to
 * the base than to every neighbour kept so far. Compacts `cand` in place; returns how many stay.
 */
static u32 select_neighbours(Pair *cand, u32 n, u32 keep) {
  u32 kept = 0;
  for (u32 i = 0; i < n && kept < keep; i++) {
    int good = 1;
    for (u32 j = 0; j < kept; j++) {
      if (dist_slots(cand[i].s, cand[j].s) < cand[i].d) { good = 0; break; }
    }
    if (good) cand[kept++] = cand[i];
  }
  return kept;
}

/** Adds `from` to the neighbour list of `to` on `level`, pruning by the heuristic when full. */
static void link_back(u32 to, u32 from, f32 d, u32 level) {
  u32 cap = level == 0 ? M0 : M;
  u32 *links = links_of(to, level);
  u32 n = links[0];
  for (u32 i = 1; i <= n; i++) if (links[i] == from) return;
  mark_links(to);
  if (n < cap) {
    links[1 + n] = from;
    links[0] = n + 1;
    return;
  }
  /* Full: choose `cap` of the n + 1 by the heuristic, measured from `to`. */
  tmp_heap.n = 0;
  heap_reserve(&tmp_heap, n + 1);
  heap_push(&tmp_heap, d, from, 0);
  for (u32 i = 1; i <= n; i++) heap_push(&tmp_heap, dist_slots(to, links[i]), links[i], 0);
  Pair buf[2 * 100 + 2];
  u32 m = 0;
  while (tmp_heap.n) buf[m++] = heap_pop(&tmp_heap, 0);
  u32 kept = select_neighbours(buf, m, cap);
  for (u32 i = 0; i < kept; i++) links[1 + i] = buf[i].s;
  links[0] = kept;
}

static i32 insert_slot(u32 s) {
  u32 level = *level_of(s);
  if (entry == NONE) {
    entry = s;
    max_level = level;
    return 1;
  }
  Ctx *x = &ctxs[0];
  const i8 *q = vec_of(s);
  f32 qs = *scale_of(s);
  u32 top = level < max_level ? level : max_level;
  u32 cur = descend(q, qs, entry, max_level, top);
  for (i32 l = (i32)top; l >= 0; l--) {
    if (!search_layer(x, q, qs, cur, ef_construction, (u32)l, 0)) return 0;
    i32 n = drain_ascending(x);
    if (n < 0) return 0;
    Pair *sel_buf = x->sel.a;
    cur = sel_buf[0].s;
    u32 kept = select_neighbours(sel_buf, (u32)n, M);
    u32 *mine = links_of(s, (u32)l);
    for (u32 i = 0; i < kept; i++) mine[1 + i] = sel_buf[i].s;
    mine[0] = kept;
    /* link_back may reuse the heaps, so copy the chosen neighbours first. */
    Pair chosen[101];
    for (u32 i = 0; i < kept; i++) chosen[i] = sel_buf[i];
    for (u32 i = 0; i < kept; i++) link_back(chosen[i].s, s, chosen[i].d, (u32)l);
  }
  if (level > max_level) {
    entry = s;
    max_level = level;
  }
  return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* Exports */

static void batch_reset(void);
/** A batch was handed to the threads and is not linked yet (batch_finish links it). */
static u32 b_pending;
i32 batch_finish(void);
/** A call that reads or changes the graph first finishes a batch still with the threads. */
#define SETTLE() do { if (b_pending) batch_finish(); } while (0)

/** Sets up an empty index; returns 0 when the parameters are out of range or memory is short. */
EXPORT(init) i32 init(u32 d, u32 m, u32 efc, u32 seed, u32 capacity_hint) {
  if (d < 1 || d > 65536 || m < 2 || m > MAX_M || efc < 1) return 0;
  dim = d;
  dpad = (d + 15u) & ~15u;
  M = m;
  M0 = 2 * m;
  ef_construction = efc;
  rng = 0x9E3779B97F4A7C15ull ^ ((u64)seed << 1 | 1);
  off_scale = CHUNK * dpad;
  off_label = off_scale + CHUNK * 4;
  off_level = off_label + CHUNK * 4;
  off_flags = off_level + CHUNK;
  vec_block_bytes = off_flags + CHUNK;
  off_link0 = vec_block_bytes;
  link_stride = 1 + M0;
  off_upper = off_link0 + CHUNK * link_stride * 4;
  off_visited = off_upper + CHUNK * 4;
  chunk_bytes = off_visited + CHUNK * 4;
  io_vec = alloc((usize)dim * 4);
  q8 = alloc(dpad);
  q16 = alloc((usize)dpad * 2);
  out_cap = 0;
  if (!io_vec || !q8 || !q16 || !map_init(capacity_hint * 2)) return 0;
  return 1;
}

/** Forgets everything (JavaScript calls init again); linear memory is reused, never shrunk. */
EXPORT(reset) void reset(void) {
  SETTLE();
  heap_top = 0;
  nchunks = nslots = live = max_level = 0;
  entry = NONE;
  zero(dirty_vec, sizeof dirty_vec);
  zero(dirty_link, sizeof dirty_link);
  zero(ctxs, sizeof ctxs);
  tmp_heap.n = tmp_heap.cap = tmp_heap.fixed = 0;
  batch_reset();
  out_cap = 0;
  scratch_cap = 0;
  map_cap = map_count = 0;
}

EXPORT(io_vector) f32 *io_vector(void) { return io_vec; }
EXPORT(vec_block_size) u32 vec_block_size(void) { return vec_block_bytes; }
EXPORT(link0_block_size) u32 link0_block_size(void) { return CHUNK * link_stride * 4; }
EXPORT(chunk_slots) u32 chunk_slots(void) { return CHUNK; }
EXPORT(chunk_ptr) u8 *chunk_ptr(u32 c) { return c < nchunks ? chunks[c] : 0; }
EXPORT(link0_ptr) u8 *link0_ptr(u32 c) { SETTLE(); return c < nchunks ? chunks[c] + off_link0 : 0; }
EXPORT(slot_count) u32 slot_count(void) { return nslots; }
EXPORT(chunk_count) u32 chunk_count(void) { return nchunks; }
EXPORT(live_count) u32 live_count(void) { return live; }
EXPORT(entry_point) u32 entry_point(void) { SETTLE(); return entry; }
EXPORT(top_level) u32 top_level(void) { SETTLE(); return max_level; }
EXPORT(dirty_vectors) u8 *dirty_vectors(void) { SETTLE(); return dirty_vec; }
EXPORT(dirty_links) u8 *dirty_links(void) { SETTLE(); return dirty_link; }
EXPORT(memory_used) u32 memory_used(void) { return (u32)heap_top; }
EXPORT(rng_state_lo) u32 rng_state_lo(void) { return (u32)rng; }
EXPORT(rng_state_hi) u32 rng_state_hi(void) { return (u32)(rng >> 32); }
EXPORT(set_rng_state) void set_rng_state(u32 lo, u32 hi) { rng = ((u64)hi << 32) | lo; if (!rng) rng = 1; }

/** A reusable buffer of at least `bytes` (its address may change between calls). */
EXPORT(scratch) u8 *scratch(u32 bytes) {
  if (bytes > scratch_cap) {
    usize c = scratch_cap ? scratch_cap : 65536;
    while (c < bytes) c *= 2;
    u8 *p = alloc(c);
    if (!p) return 0;
    scratch_buf = p;
    scratch_cap = c;
  }
  return scratch_buf;
}

/** Slot of a live label, or −1. */
EXPORT(find) i32 find(u32 label) {
  u32 s = map_get(label);
  return s == NONE ? -1 : (i32)s;
}

/**
 * Adds (or replaces) `label` with the vector in io_vector. Returns 1, or 0 when memory ran out
 * (nothing changed then).
 */
/**
 * Gives `label` a new slot holding vector `v` (not yet linked into the graph); a slot it held
 * before is marked deleted. Returns the slot, or NONE when memory ran out (nothing changed then).
 */
static u32 place(u32 label, const f32 *v) {
  u32 s = nslots;
  if (!ensure_slots(s + 1)) return NONE;
  u32 level = random_level();
  if (level > 0) {
    u32 *up = alloc((usize)level * (1 + M) * 4);
    if (!up) return NONE;
    zero(up, (usize)level * (1 + M) * 4);
    *upper_slot(s) = up;
  }
  u32 old = map_get(label);
  if (!map_put(label, s)) return NONE;
  if (old != NONE) {
    *flags_of(old) |= FLAG_DELETED;
    dirty_vec[old / CHUNK] = 1;
    live--;
  }
  nslots = s + 1;
  *scale_of(s) = quantise(v, vec_of(s));
  *label_of(s) = label;
  *level_of(s) = (u8)level;
  *flags_of(s) = 0;
  dirty_vec[s / CHUNK] = 1;
  mark_links(s);
  live++;
  return s;
}

EXPORT(add) i32 add(u32 label) {
  SETTLE();
  u32 s = place(label, io_vec);
  return s == NONE ? 0 : insert_slot(s);
}

/** Marks `label` deleted; returns 1 when it was live. */
EXPORT(remove_label) i32 remove_label(u32 label) {
  SETTLE();
  u32 s = map_get(label);
  if (s == NONE) return 0;
  map_del(label);
  *flags_of(s) |= FLAG_DELETED;
  dirty_vec[s / CHUNK] = 1;
  live--;
  return 1;
}

static i32 reserve_out(u32 k) {
  if (k <= out_cap) return 1;
  u32 c = out_cap ? out_cap : 64;
  while (c < k) c *= 2;
  u32 *l = alloc((usize)c * 4);
  f32 *d = alloc((usize)c * 4);
  if (!l || !d) return 0;
  out_label = l; out_dist = d; out_cap = c;
  return 1;
}

EXPORT(out_labels) u32 *out_labels(void) { return out_label; }
EXPORT(out_distances) f32 *out_distances(void) { return out_dist; }

static u32 emit(u32 k) {
  Heap *far = &ctxs[0].far_heap;
  while (far->n > k) heap_pop(far, 1);
  u32 n = far->n;
  for (u32 i = n; i > 0; i--) {
    Pair p = heap_pop(far, 1);
    out_label[i - 1] = *label_of(p.s);
    out_dist[i - 1] = p.d;
  }
  return n;
}

/**
 * The best `k` live slots for the query in io_vector (beam width max(ef, k)); `filter` asks
 * js_admit per candidate. Writes labels and distances (1 − cosine, ascending); returns the count.
 */
EXPORT(search) i32 search(u32 k, u32 ef, i32 filter) {
  SETTLE();
  if (k == 0 || entry == NONE || live == 0) return 0;
  if (!reserve_out(k)) return -1;
  q_scale = quantise16(io_vec, q16);
  use16 = 1;
  filtering = filter;
  u32 cur = descend(q8, q_scale, entry, max_level, 0);
  u32 width = ef > k ? ef : k;
  i32 ok = search_layer(&ctxs[0], q8, q_scale, cur, width, 0, 1);
  filtering = 0;
  use16 = 0;
  if (!ok) return -1;
  return (i32)emit(k);
}

/** Exact scan over the int8 codes (for very selective filters). Same outputs as `search`. */
EXPORT(scan) i32 scan(u32 k, i32 filter) {
  SETTLE();
  if (k == 0 || live == 0) return 0;
  Heap *far = &ctxs[0].far_heap;
  if (!reserve_out(k) || !heap_reserve(far, k + 1)) return -1;
  q_scale = quantise16(io_vec, q16);
  use16 = 1;
  filtering = filter;
  far->n = 0;
  for (u32 s = 0; s < nslots; s++) {
    if (!admissible(s)) continue;
    f32 d = dist_to(q8, q_scale, s);
    if (far->n < k) heap_push(far, d, s, 1);
    else if (d < far->a[0].d) {
      heap_pop(far, 1);
      heap_push(far, d, s, 1);
    }
  }
  filtering = 0;
  use16 = 0;
  return (i32)emit(k);
}

/** Clears the dirty marks (after JavaScript persisted the blocks). */
EXPORT(clear_dirty) void clear_dirty(void) {
  SETTLE();
  zero(dirty_vec, sizeof dirty_vec);
  zero(dirty_link, sizeof dirty_link);
}

/** Bytes of chunk c's upper-level links when serialised (slot order, each level's list). */
EXPORT(upper_size) u32 upper_size(u32 c) {
  SETTLE();
  u32 bytes = 0, first = c * CHUNK, end = first + CHUNK;
  if (end > nslots) end = nslots;
  for (u32 s = first; s < end; s++) bytes += (u32)*level_of(s) * (1 + M) * 4;
  return bytes;
}

/** Serialises chunk c's upper-level links into `dst`. */
EXPORT(upper_write) void upper_write(u32 c, u32 *dst) {
  SETTLE();
  u32 first = c * CHUNK, end = first + CHUNK;
  if (end > nslots) end = nslots;
  for (u32 s = first; s < end; s++) {
    u32 words = (u32)*level_of(s) * (1 + M);
    if (words) {
      __builtin_memcpy(dst, *upper_slot(s), (usize)words * 4);
      dst += words;
    }
  }
}

/**
 * Loading: allocates chunks for `slots` slots (JavaScript then copies the blocks in). Returns
 * 0 when memory is short.
 */
EXPORT(load_begin) i32 load_begin(u32 slots) {
  SETTLE();
  if (nslots != 0 || !ensure_slots(slots)) return 0;
  return 1;
}

/** Reads chunk c's upper-level links from `src` (`bytes` long); returns 0 when they do not fit. */
EXPORT(upper_read) i32 upper_read(u32 c, const u32 *src, u32 bytes) {
  u32 first = c * CHUNK, end = first + CHUNK, used = 0;
  for (u32 s = first; s < end; s++) {
    u32 level = *level_of(s);
    if (level > MAX_LEVEL) return 0;
    u32 words = level * (1 + M);
    if (!words) { *upper_slot(s) = 0; continue; }
    if (used + words * 4 > bytes) return 0;
    u32 *up = alloc((usize)words * 4);
    if (!up) return 0;
    __builtin_memcpy(up, src + used / 4, (usize)words * 4);
    *upper_slot(s) = up;
    used += words * 4;
  }
  return used == bytes;
}

/**
 * Finishes a load of `slots` slots: checks every link and level, rebuilds the label map and the
 * live count. Returns the live count, or −1 when the data is inconsistent.
 */
EXPORT(load_end) i32 load_end(u32 slots, u32 ep, u32 top) {
  SETTLE();
  if (slots > nchunks * CHUNK) return -1;
  if (slots > 0 && (ep >= slots || top > MAX_LEVEL || *level_of(ep) != top)) return -1;
  nslots = slots;
  live = 0;
  for (u32 s = 0; s < slots; s++) {
    u32 level = *level_of(s);
    if (level > MAX_LEVEL || *scale_of(s) != *scale_of(s)) return -1;
    /* Level 0: every slot has it, so a link needs only to name a slot (a sequential pass, where
       looking up each neighbour's level would be a random read per link: most of a million-slot
       load's time). Upper levels: the neighbour must reach the level too. */
    u32 *links0 = links_of(s, 0);
    if (links0[0] > M0) return -1;
    for (u32 i = 1; i <= links0[0]; i++) if (links0[i] >= slots) return -1;
    for (u32 l = 1; l <= level; l++) {
      u32 *links = links_of(s, l);
      u32 n = links[0];
      if (n > M) return -1;
      for (u32 i = 1; i <= n; i++) {
        u32 e = links[i];
        if (e >= slots || *level_of(e) < l) return -1;
      }
    }
    if (!(*flags_of(s) & FLAG_DELETED)) {
      u32 before = map_count;
      if (!map_put(*label_of(s), s) || map_count == before) return -1; /* a label twice */
      live++;
    }
  }
  entry = slots ? ep : NONE;
  max_level = slots ? top : 0;
  return (i32)live;
}

/* ------------------------------------------------------------------------------------------ */
/*
 * Batches: insertion on several threads. A batch of up to BATCH_MAX vectors is placed in slots
 * (in order, as `add` would), then each one's neighbours are found by a search of the graph as it
 * was when the batch began (read-only, so any thread may do any item), merged with the batch's
 * earlier members (exact distances: the search cannot reach them yet) and chosen by the
 * heuristic. Then the main thread links them in order, back-links and pruning included. The
 * graph depends only on the vectors, their order and the batch boundaries, never on the threads:
 * a single-threaded build makes the same one.
 *
 * Helper threads are other instances of this module on the same shared memory (built with
 * atomics). They wait on `job_gen`; `job_word` holds (generation, items, next item to claim), so
 * a claim is valid only for the batch it was made in. The main thread waits for `job_done` to
 * reach the item count (or for `helper_dead`, when a helper trapped: its unfinished item is then
 * inserted the sequential way).
 */

/** A batch searches in parallel only over a graph of at least this many slots. */
#define BATCH_MIN_GRAPH 4096u
/** Room for a search's candidate queue in a helper (more makes the item fall back to sequential). */
#define NEAR_RESERVE 16384u
#define HELPER_STACK 262144u

static f32 *batch_vecs;
static u32 *batch_labels;
static u32 bslot[BATCH_MAX], bstatus[BATCH_MAX], boff[BATCH_MAX];
static u32 bcount, b_entry, b_top;
static Pair *bres;
static u32 bres_cap;
static u32 threads = 1;
static u64 job_word;
static u32 job_gen, job_done, job_stop, helper_dead, helpers_in;

enum { ITEM_WAITING = 0, ITEM_CLAIMED = 1, ITEM_DONE = 2, ITEM_FAILED = 3 };

#ifdef __wasm_atomics__
#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define WAKE(p, n) __builtin_wasm_memory_atomic_notify((int *)(p), (n))
#define SLEEP(p, v, ns) __builtin_wasm_memory_atomic_wait32((int *)(p), (int)(v), (ns))
#else
#define LOAD(p) (*(p))
#define STORE(p, v) (*(p) = (v))
#define WAKE(p, n) ((void)(p), (void)(n))
#define SLEEP(p, v, ns) ((void)(p), (void)(v), (void)(ns))
#endif

static void batch_reset(void) {
  b_pending = 0;
  batch_vecs = 0;
  batch_labels = 0;
  bres = 0;
  bres_cap = bcount = 0;
  STORE(&job_word, (u64)LOAD(&job_gen) << 32);
}

/** Where JavaScript writes a batch: BATCH_MAX vectors of `dim` floats, then BATCH_MAX labels. */
EXPORT(batch_io) f32 *batch_io(void) {
  if (!batch_vecs) {
    f32 *v = alloc((usize)BATCH_MAX * dim * 4);
    u32 *l = alloc((usize)BATCH_MAX * 4);
    if (!v || !l) return 0;
    batch_vecs = v;
    batch_labels = l;
  }
  return batch_vecs;
}
EXPORT(batch_labels_ptr) u32 *batch_labels_ptr(void) { return batch_labels; }
EXPORT(batch_max) u32 batch_max(void) { return BATCH_MAX; }
EXPORT(max_threads) u32 max_threads(void) { return MAX_THREADS; }
/** Helper threads running (started and not yet returned). */
EXPORT(helpers_started) u32 helpers_started(void) { return LOAD(&helpers_in); }
EXPORT(helpers_started_ptr) u32 *helpers_started_ptr(void) { return &helpers_in; }
/** Batch items thread t searched since the index was last emptied. */
EXPORT(thread_items) u32 thread_items(u32 t) { return t < MAX_THREADS ? ctxs[t].items : 0; }
/** Where a helper's JavaScript marks it dead (bit t of a u32) when it trapped. */
EXPORT(helper_dead_ptr) u32 *helper_dead_ptr(void) { return &helper_dead; }

/** Threads that may work on batches (the main one included); set before helpers start. */
EXPORT(set_threads) void set_threads(u32 n) {
#ifdef __wasm_atomics__
  threads = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
  if (threads > 1) { /* helpers about to start: they may stay, and none of them has died */
    STORE(&job_stop, 0);
    STORE(&helper_dead, 0);
  }
#else
  (void)n; /* no helpers without shared memory */
#endif
}

/** A stack for helper thread `t` (its top), allocated once per index. */
EXPORT(helper_stack) u32 helper_stack(void) {
  u8 *p = alloc(HELPER_STACK);
  return p ? (u32)(usize)p + HELPER_STACK : 0;
}

/** Whether a thread's buffers may grow (a helper's must not: it never allocates). */
static void fix_ctx(Ctx *x, u32 fixed) { x->far_heap.fixed = x->near_heap.fixed = x->sel.fixed = fixed; }

/** Everything thread `t` needs for a batch, allocated now (helpers never allocate); 0 if short. */
static i32 ready_ctx(u32 t) {
  Ctx *x = &ctxs[t];
  fix_ctx(x, 0);
  if (!heap_reserve(&x->far_heap, ef_construction + 1) || !heap_reserve(&x->near_heap, NEAR_RESERVE) ||
      !heap_reserve(&x->sel, ef_construction + BATCH_MAX + 1))
    return 0;
  for (u32 c = 0; c < nchunks; c++) {
    if (x->vis[c]) continue;
    u32 *v = alloc(CHUNK * 4);
    if (!v) return 0;
    zero(v, CHUNK * 4);
    x->vis[c] = v;
  }
  fix_ctx(x, 1);
  return 1;
}

static void unfix_ctx(u32 t) { fix_ctx(&ctxs[t], 0); }

/** Inserts `c` (distance d) into the ascending list `a` of n (at most cap); returns the new n. */
static u32 insert_sorted(Pair *a, u32 n, u32 cap, f32 d, u32 s) {
  if (n == cap && d >= a[n - 1].d) return n;
  u32 i = n < cap ? n : cap - 1;
  while (i > 0 && a[i - 1].d > d) {
    a[i] = a[i - 1];
    i--;
  }
  a[i].d = d;
  a[i].s = s;
  return n < cap ? n + 1 : n;
}

/** Item i's chosen neighbours on each of its levels: rows of (1 + M) pairs, row[0].s = count. */
static inline Pair *item_row(u32 i, u32 level) { return bres + (usize)(boff[i] + level) * (1 + M); }

/** Finds item i's neighbours on every level of its slot (thread context x); 0 when it could not. */
static i32 batch_item(Ctx *x, u32 i) {
  u32 s = bslot[i];
  u32 level = *level_of(s);
  const i8 *q = vec_of(s);
  f32 qs = *scale_of(s);
  for (u32 j = 0; j < i; j++) x->cross[j] = dist_to(q, qs, bslot[j]);
  u32 top = level < b_top ? level : b_top;
  u32 cur = descend(q, qs, b_entry, b_top, top);
  u32 cap = ef_construction;
  for (i32 l = (i32)level; l >= 0; l--) {
    u32 n = 0;
    if ((u32)l <= top) {
      if (!search_layer(x, q, qs, cur, ef_construction, (u32)l, 0)) return 0;
      i32 got = drain_ascending(x);
      if (got <= 0) return 0;
      n = (u32)got;
      cur = x->sel.a[0].s;
    }
    for (u32 j = 0; j < i; j++) {
      if (*level_of(bslot[j]) >= (u32)l) n = insert_sorted(x->sel.a, n, cap, x->cross[j], bslot[j]);
    }
    u32 kept = select_neighbours(x->sel.a, n, M);
    Pair *row = item_row(i, (u32)l);
    row[0].s = kept;
    for (u32 k = 0; k < kept; k++) row[1 + k] = x->sel.a[k];
  }
  return 1;
}

/** Claims the next item of the current batch; returns it, or NONE when none is left. */
static u32 claim(void) {
#ifdef __wasm_atomics__
  u64 v = __atomic_load_n(&job_word, __ATOMIC_ACQUIRE);
  for (;;) {
    u32 next = (u32)v & 0xffffu, n = ((u32)v >> 16) & 0xffffu;
    if (next >= n) return NONE;
    if (__atomic_compare_exchange_n(&job_word, &v, v + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return next;
  }
#else
  u32 next = (u32)job_word & 0xffffu, n = ((u32)job_word >> 16) & 0xffffu;
  if (next >= n) return NONE;
  job_word++;
  return next;
#endif
}

/** Works on the current batch's items until none is left to claim; thread t. */
static void work(u32 t) {
  for (u32 i; (i = claim()) != NONE;) {
    STORE(&bstatus[i], ITEM_CLAIMED | t << 4);
    u32 ok = (u32)batch_item(&ctxs[t], i);
    ctxs[t].items++;
    STORE(&bstatus[i], ok ? ITEM_DONE : ITEM_FAILED);
#ifdef __wasm_atomics__
    __atomic_fetch_add(&job_done, 1, __ATOMIC_ACQ_REL);
#else
    job_done++;
#endif
    WAKE(&job_done, 1);
  }
}

/** A helper thread's life: work on each batch as it comes, until told to stop. */
EXPORT(helper_loop) void helper_loop(u32 t) {
  if (t == 0 || t >= MAX_THREADS) return;
#ifdef __wasm_atomics__
  __atomic_fetch_add(&helpers_in, 1, __ATOMIC_ACQ_REL);
#endif
  for (;;) {
    u32 seen = LOAD(&job_gen);
    if (LOAD(&job_stop)) break;
    work(t);
    SLEEP(&job_gen, seen, -1);
  }
#ifdef __wasm_atomics__
  __atomic_fetch_sub(&helpers_in, 1, __ATOMIC_ACQ_REL);
#endif
  WAKE(&helpers_in, 1);
}

/** Tells the helpers to return; JavaScript waits for helpers_started() to reach 0, then ends their workers. */
EXPORT(stop_helpers) void stop_helpers(void) {
  STORE(&job_stop, 1);
#ifdef __wasm_atomics__
  __atomic_fetch_add(&job_gen, 1, __ATOMIC_ACQ_REL);
#endif
  WAKE(&job_gen, MAX_THREADS);
}

/**
 * Every item of the batch is finished, or was claimed by a helper that died (a trap: JavaScript
 * sets its bit in helper_dead), so no thread still writes into the batch.
 */
static int batch_settled(u32 n) {
  if (LOAD(&job_done) >= n) return 1;
  u32 dead = LOAD(&helper_dead);
  if (!dead) return 0;
  for (u32 i = 0; i < n; i++) {
    u32 st = LOAD(&bstatus[i]);
    if (st == ITEM_DONE || st == ITEM_FAILED) continue;
    if ((st & 0xfu) == ITEM_CLAIMED && (dead >> (st >> 4)) & 1u) continue;
    return 0;
  }
  return 1;
}

/** Links the batch's items in order (items no thread finished are inserted the sequential way). */
static i32 batch_link(void) {
  for (u32 i = 0; i < bcount; i++) {
    u32 s = bslot[i];
    if (LOAD(&bstatus[i]) != ITEM_DONE) {
      if (!insert_slot(s)) return 0;
      continue;
    }
    u32 level = *level_of(s);
    for (u32 l = 0; l <= level; l++) {
      Pair *row = item_row(i, l);
      u32 kept = row[0].s;
      u32 *mine = links_of(s, l);
      for (u32 k = 0; k < kept; k++) mine[1 + k] = row[1 + k].s;
      mine[0] = kept;
    }
    for (i32 l = (i32)level; l >= 0; l--) {
      Pair *row = item_row(i, (u32)l);
      u32 kept = row[0].s;
      for (u32 k = 0; k < kept; k++) link_back(row[1 + k].s, s, row[1 + k].d, (u32)l);
    }
    if (entry == NONE || level > max_level) {
      entry = s;
      max_level = level;
    }
  }
  return 1;
}

/**
 * Starts adding the `n` (≤ BATCH_MAX) vectors and labels in batch_io: places them in slots (the
 * label map and counts see them at once), then either inserts them here and now (a small graph,
 * or memory short for a batch) or hands them to the threads: the helpers start searching, and
 * the caller may do other work (not with this kernel) before batch_finish. Returns how many were
 * placed: fewer than n when memory ran out (those before are added whole).
 */
EXPORT(batch_begin) i32 batch_begin(u32 n) {
  SETTLE();
  if (n > BATCH_MAX || !batch_vecs) return 0;
  u32 start_slots = nslots, start_entry = entry, start_top = max_level;
  u32 placed = 0;
  for (; placed < n; placed++) {
    u32 s = place(batch_labels[placed], batch_vecs + (usize)placed * dim);
    if (s == NONE) break;
    bslot[placed] = s;
  }
  int parallel = start_entry != NONE && start_slots >= BATCH_MIN_GRAPH && placed > 0;
  if (parallel) {
    usize rows = 0;
    for (u32 i = 0; i < placed; i++) {
      boff[i] = (u32)rows;
      rows += 1u + *level_of(bslot[i]);
    }
    if (rows * (1 + M) > bres_cap) {
      Pair *r = alloc(rows * (1 + M) * sizeof(Pair));
      if (r) {
        bres = r;
        bres_cap = (u32)(rows * (1 + M));
      } else parallel = 0;
    }
    for (u32 t = 0; parallel && t < threads; t++) if (!ready_ctx(t)) parallel = 0;
  }
  if (!parallel) {
    for (u32 t = 0; t < threads; t++) unfix_ctx(t);
    for (u32 i = 0; i < placed; i++) if (!insert_slot(bslot[i])) return (i32)i;
    return (i32)placed;
  }
  bcount = placed;
  b_entry = start_entry;
  b_top = start_top;
  for (u32 i = 0; i < placed; i++) bstatus[i] = ITEM_WAITING;
  job_done = 0;
  u32 gen = LOAD(&job_gen) + 1;
  STORE(&job_word, ((u64)gen << 32) | ((u64)placed << 16));
  STORE(&job_gen, gen);
  WAKE(&job_gen, MAX_THREADS);
  b_pending = 1;
  return (i32)placed;
}

EXPORT(batch_pending) u32 batch_pending(void) { return b_pending; }

/**
 * Finishes the batch batch_begin handed out: this thread takes the items no one has claimed,
 * waits for the helpers' items, and links them all in order. Returns 1, or 0 when memory ran
 * out while linking.
 */
EXPORT(batch_finish) i32 batch_finish(void) {
  if (!b_pending) return 1;
  b_pending = 0;
  work(0);
  while (!batch_settled(bcount)) SLEEP(&job_done, LOAD(&job_done), 1000000ll);
  /* Close the batch: a helper that claims late finds nothing left. */
  STORE(&job_word, (u64)LOAD(&job_gen) << 32);
  for (u32 t = 0; t < threads; t++) unfix_ctx(t);
  i32 ok = batch_link();
  bcount = 0;
  return ok;
}
