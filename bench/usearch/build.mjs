#!/usr/bin/env node
// Builds the benchmark-only USearch binding (usearch-wasm.cpp) to WebAssembly + SIMD128 with
// Debian's Emscripten 3.1.6, from the C++ headers the `usearch` crate ships on crates.io
// (fetched with cargo into its registry cache). Output: bench/.cache/usearch/usearch.mjs (+ .wasm).
// Never part of the library or the app; `--install` installs emscripten with apt-get when missing.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

const VERSION = '2.26.6';
const root = resolve(import.meta.dirname, '../..');
const out = join(root, 'bench/.cache/usearch');
const target = join(out, 'usearch.mjs');
if (existsSync(target) && !process.argv.includes('--rebuild')) {
  console.log(`usearch: ${target} exists`);
  process.exit(0);
}
const have = (c) => spawnSync('sh', ['-c', `command -v ${c}`], { stdio: 'ignore' }).status === 0;
if (!have('em++')) {
  if (!process.argv.includes('--install')) throw new Error('usearch: em++ missing (Debian: apt-get install emscripten, or pass --install)');
  execFileSync('apt-get', ['install', '-y', '-qq', 'emscripten'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

// Let cargo fetch the crate from crates.io into its registry cache.
const probe = join(out, 'fetch');
mkdirSync(join(probe, 'src'), { recursive: true });
writeFileSync(join(probe, 'Cargo.toml'), `[package]\nname = "fetch-usearch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\nusearch = { version = "=${VERSION}", default-features = false }\n`);
writeFileSync(join(probe, 'src/lib.rs'), '');
execFileSync('cargo', ['fetch', '--manifest-path', join(probe, 'Cargo.toml')], { stdio: 'inherit' });
const registry = join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'registry/src');
const crate = readdirSync(registry)
  .map((d) => join(registry, d, `usearch-${VERSION}`))
  .find((d) => existsSync(join(d, 'include/usearch/index_dense.hpp')));
if (!crate) throw new Error(`usearch: the usearch-${VERSION} crate sources were not found under ${registry}`);

execFileSync(
  'em++',
  [
    '-O3', '-msimd128', '-std=c++17', `-I${join(crate, 'include')}`,
    '-DUSEARCH_USE_OPENMP=0', '-DUSEARCH_USE_NUMKONG=0', '-DUSEARCH_USE_FP16LIB=0', '-fno-exceptions',
    '-sALLOW_MEMORY_GROWTH=1', '-sMAXIMUM_MEMORY=4GB', '-sMODULARIZE=1', '-sEXPORT_ES6=1', '-sENVIRONMENT=node,web,worker',
    '-sEXPORTED_FUNCTIONS=_u_init,_u_reserve,_u_add,_u_search,_u_memory_usage,_u_serialized_length,_u_malloc',
    '-sEXPORTED_RUNTIME_METHODS=HEAPF32,HEAPU8',
    '-o', target, join(root, 'bench/usearch/usearch-wasm.cpp'),
  ],
  // Debian's emscripten finds its acorn under /usr/share/nodejs.
  { stdio: 'inherit', env: { ...process.env, NODE_PATH: ['/usr/share/nodejs', process.env.NODE_PATH].filter(Boolean).join(':') } },
);
console.log(`usearch: built ${target}`);
