#!/usr/bin/env node
// After tsc: the default worker URL in the library entry names the TypeScript source (which
// Vite builds in this repo); in the package it names the prebuilt worker (scripts/build-worker.mjs),
// dist/worker/memory.worker.js. The index's helper worker is named by its compiled file.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const entry = resolve(import.meta.dirname, '../dist/lib/src/index.js');
const before = readFileSync(entry, 'utf8');
const after = before.replaceAll("'../worker/memory.worker.ts'", "'../../worker/memory.worker.js'");
if (after === before) throw new Error('finish-lib: worker URL not found in dist/lib/src/index.js');
writeFileSync(entry, after);
console.log('finish-lib: worker URL points at dist/worker/memory.worker.js');

// The index kernel's helper worker: tsc compiled it beside the module that starts it.
const threads = resolve(import.meta.dirname, '../dist/lib/src/adapters/hnsw-i8/kernel-threads.js');
const code = readFileSync(threads, 'utf8');
const helper = code.replaceAll("'./kernel-helper.worker.ts'", "'./kernel-helper.worker.js'");
if (helper === code) throw new Error('finish-lib: helper worker URL not found in kernel-threads.js');
writeFileSync(threads, helper);
