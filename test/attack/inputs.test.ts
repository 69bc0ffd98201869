/**
 * Hardening suite, API inputs (#16: "619 bad API inputs" re-run). Every public method × every
 * parameter and option × every hostile value the parameter does not accept (HOSTILE: wrong types,
 * NaN/±Infinity, BigInt, symbols, huge and blank strings, `__proto__` keys, throwing getters,
 * revoked and trapping proxies, cycles, 10,000-level nesting, functions, Dates, Maps). Each call
 * must fail with INVALID_ARGUMENT (a MemoryError: never a TypeError, never a hang) and leave the
 * store exactly as it was. The number of calls is printed for the report.
 */
import { describe, expect, it } from 'vitest';
import { pyStrip, utf8Length } from '../../src/core/domain/text.ts';
import { MEMORY_TYPES, TRUST_LEVELS } from '../../src/core/types.ts';
import type { LocalMemory } from '../../src/local.ts';
import { archiveBytes, row } from '../helpers/archive.ts';
import { openTestStore } from '../helpers/store.ts';
import { HOSTILE, expectAllCodes, failure, fingerprint } from './hostile.ts';

type Accept = (v: unknown) => boolean;

const isBool: Accept = (v) => typeof v === 'boolean';
const isInt = (min: number, max = Number.MAX_SAFE_INTEGER): Accept => (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const isNum = (min = -Infinity, max = Infinity): Accept => (v) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max;
const isTs: Accept = isNum(0);
const isStr: Accept = (v) => typeof v === 'string';
const isId: Accept = (v) => typeof v === 'string' && v.length > 0;
const isText: Accept = (v) => typeof v === 'string' && pyStrip(v) !== '' && utf8Length(pyStrip(v)) <= 1_048_576;
const isChoice = (...values: unknown[]): Accept => (v) => values.includes(v);
const isFn: Accept = (v) => typeof v === 'function';
/** Graph depths: any whole number (negative ones count as 0). */
const isWhole: Accept = (v) => typeof v === 'number' && Number.isInteger(v);
const isRel: Accept = (v) => typeof v === 'string' && v.length <= 64 && pyStrip(v) !== '' && !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u.test(v);
const orNull = (accept: Accept): Accept => (v) => v === null || accept(v);
const isTag: Accept = (v) => typeof v === 'string' && v.length <= 200 && pyStrip(v) !== '' && !v.includes(',');
const isTags: Accept = (v) => Array.isArray(v) && v.every(isTag);
const isPatterns: Accept = (v) => Array.isArray(v) && v.length <= 50 && v.every((p) => typeof p === 'string' && p.length <= 500 && pyStrip(p) !== '');
const isSource: Accept = (v) => v === null || (typeof v === 'string' && v.length <= 8192);
/** An options object: absent or empty is fine; every hostile non-object is not. */
const isOptions: Accept = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).length === 0;

/** One parameter of one method: how to call with a value there, and which values it accepts. */
interface Param {
  label: string;
  call(store: LocalMemory, value: unknown): Promise<unknown>;
  accept: Accept;
}

interface Fixture {
  a: string;
  b: string;
  archive: Uint8Array;
}

/**
 * An options object as one argument: the whole object is one parameter (passed as it is), each
 * key another (passed inside `base`, the otherwise valid options of the call).
 */
function options(
  method: string,
  keys: Record<string, Accept>,
  call: (store: LocalMemory, o: unknown) => Promise<unknown>,
  base: Record<string, unknown> = {},
): Param[] {
  const out: Param[] = [{ label: `${method}(options)`, call, accept: isOptions }];
  for (const [key, accept] of Object.entries(keys)) {
    out.push({ label: `${method}({ ${key} })`, call: (store, v) => call(store, { ...base, [key]: v }), accept: (v) => v === undefined || accept(v) });
  }
  return out;
}

const MEMORY_INPUT: Record<string, Accept> = {
  type: isChoice(...MEMORY_TYPES),
  tags: isTags,
  importance: isNum(),
  source: isSource,
  polarity: isChoice(-1, 0, 1),
  expiresAt: isTs,
  pinned: isBool,
  trust: isChoice(...TRUST_LEVELS),
  validFrom: isTs,
  validUntil: isTs,
  surfacesWhen: isPatterns,
};

const RECALL: Record<string, Accept> = {
  k: isInt(1, 10_000),
  type: isChoice(...MEMORY_TYPES),
  tag: isTag,
  minImportance: isNum(),
  source: isSource,
  since: isTs,
  until: isTs,
  minCosine: isNum(-1, 1),
  overfetch: isInt(1, 100),
  includeSuperseded: isBool,
  includeExpired: isBool,
  minTrust: isChoice(...TRUST_LEVELS),
  diversity: isNum(0, 1),
  dedupThreshold: isNum(0, 1),
  touch: isBool,
  mode: isChoice('semantic', 'hybrid'),
  fusion: isChoice('weighted', 'rrf'),
  weights: (v) => isOptions(v),
  explain: isBool,
  lexicalIndex: isChoice('pool', 'corpus'),
  expand: (v) => v === true || v === false || isOptions(v),
};

const PACK: Record<string, Accept> = {
  tokenBudget: isInt(0),
  maxItems: isInt(1),
  tokenCounter: isFn,
  header: isStr,
  compress: isBool,
  compressThreshold: isNum(0, 1),
  compressMinGroup: isInt(1),
};

const DECAY: Record<string, Accept> = {
  decayRate: isNum(0),
  minScore: isNum(0),
  frequencyWeight: isNum(0),
  protectTypes: (v) => Array.isArray(v) && v.every(isChoice(...MEMORY_TYPES)),
};

function params(f: Fixture): Param[] {
  const { a, b, archive } = f;
  const blob = (): Blob => new Blob([archive as BlobPart]);
  const { k: _k, explain: _explain, ...packRecall } = RECALL;
  return [
    // remember / rememberMany / edit
    { label: 'remember(text)', call: (s, v) => s.remember(v as string), accept: isText },
    ...options('remember', { ...MEMORY_INPUT, onConflict: isChoice('ignore', 'warn', 'supersede', 'raise', 'review') }, (s, o) => s.remember('fine text', o as never)),
    { label: 'rememberMany(items)', call: (s, v) => s.rememberMany(v as string[]), accept: (v) => Array.isArray(v) && v.length === 0 },
    { label: 'rememberMany([item])', call: (s, v) => s.rememberMany([v as string]), accept: isText },
    { label: 'rememberMany([{ text }])', call: (s, v) => s.rememberMany([{ text: v as string }]), accept: isText },
    ...Object.entries({ ...MEMORY_INPUT, onConflict: isChoice('ignore', 'warn', 'supersede', 'review') }).map(([key, accept]): Param => ({
      label: `rememberMany([{ ${key} }])`,
      call: (s, v) => s.rememberMany([{ text: 'fine text', [key]: v }]),
      accept,
    })),
    ...options('rememberMany', { batchSize: isInt(1, 10_000), onConflict: isChoice('ignore', 'warn', 'supersede', 'review'), onProgress: isFn, signal: () => false }, (s, o) => s.rememberMany(['fine text'], o as never)),
    { label: 'edit(id)', call: (s, v) => s.edit(v as string, { importance: 0.9 }), accept: isId },
    { label: 'edit(changes)', call: (s, v) => s.edit(a, v as object), accept: isOptions },
    { label: 'edit({ text })', call: (s, v) => s.edit(a, { text: v as string }), accept: isText },
    ...Object.entries(MEMORY_INPUT).map(([key, accept]): Param => ({ label: `edit({ ${key} })`, call: (s, v) => s.edit(a, { [key]: v }), accept })),
    // reads
    { label: 'recall(query)', call: (s, v) => s.recall(v as string, { touch: false }), accept: isText },
    ...options('recall', RECALL, (s, o) => s.recall('fine query', o as never), { touch: false }),
    { label: 'recallPack(query)', call: (s, v) => s.recallPack(v as string, { touch: false }), accept: isText },
    ...options('recallPack', { ...PACK, ...packRecall, includePinned: isBool }, (s, o) => s.recallPack('fine query', o as never), { touch: false }),
    { label: 'contextPack(task)', call: (s, v) => s.contextPack(v as string, { touch: false }), accept: isText },
    ...options(
      'contextPack',
      { ...PACK, maxPhrases: isInt(0, 20), mode: isChoice('semantic', 'hybrid'), minCosine: isNum(-1, 1), minTrust: isChoice(...TRUST_LEVELS), lexicalIndex: isChoice('pool', 'corpus') },
      (s, o) => s.contextPack('fine task', o as never),
      { touch: false },
    ),
    ...options(
      'suggest',
      { filePath: orNull(isStr), errorMessage: orNull(isStr), conversationSnippet: orNull(isStr), limit: isInt(0), minOverlap: isNum(0, 1), minSharedConcepts: isInt(1) },
      (s, o) => s.suggest(o as never),
      { conversationSnippet: 'fine context' },
    ),
    { label: 'evaluate(cases)', call: (s, v) => s.evaluate(v as never), accept: (v) => Array.isArray(v) && v.length === 0 },
    { label: 'evaluate([case])', call: (s, v) => s.evaluate([v] as never), accept: () => false },
    ...options('evaluate', { defaultK: isInt(1), defaultMode: isChoice('semantic', 'hybrid') }, (s, o) => s.evaluate([], o as never)),
    { label: 'get(id)', call: (s, v) => s.get(v as string), accept: isId },
    ...options('listRecent', { limit: isInt(0), before: isTs, beforeId: isId, includeSuperseded: isBool, includeExpired: isBool }, (s, o) => s.listRecent(o as never)),
    ...options('aggregate', { topTags: isInt(0, 10_000), createdEdges: (v) => Array.isArray(v) && v.length === 0, includeSuperseded: isBool }, (s, o) => s.aggregate(o as never)),
    ...options('health', { staleDays: isNum(0) }, (s, o) => s.health(o as never)),
    ...options('durability', { acknowledge: isBool }, (s, o) => s.durability(o as never)),
    // graph
    { label: 'link(src)', call: (s, v) => s.link(v as string, b), accept: isId },
    { label: 'link(dst)', call: (s, v) => s.link(a, v as string), accept: isId },
    { label: 'link(rel)', call: (s, v) => s.link(a, b, v as string), accept: isRel },
    { label: 'unlink(src)', call: (s, v) => s.unlink(v as string, b), accept: isId },
    { label: 'unlink(rel)', call: (s, v) => s.unlink(a, b, v as string), accept: isRel },
    { label: 'neighbors(id)', call: (s, v) => s.neighbors(v as string), accept: isId },
    ...options('neighbors', { rel: isRel, direction: isChoice('out', 'in', 'both'), depth: isWhole }, (s, o) => s.neighbors(a, o as never)),
    { label: 'subgraph(ids)', call: (s, v) => s.subgraph(v as string[]), accept: (v) => Array.isArray(v) && v.length === 0 },
    { label: 'subgraph([id])', call: (s, v) => s.subgraph([v as string]), accept: isId },
    ...options('subgraph', { depth: isWhole }, (s, o) => s.subgraph([a], o as never)),
    { label: 'findPath(from)', call: (s, v) => s.findPath(v as string, b), accept: isId },
    { label: 'findPath(to)', call: (s, v) => s.findPath(a, v as string), accept: isId },
    ...options('findPath', { maxDepth: isWhole }, (s, o) => s.findPath(a, b, o as never)),
    { label: 'supersede(old)', call: (s, v) => s.supersede(v as string, b), accept: isId },
    { label: 'supersede(new)', call: (s, v) => s.supersede(a, v as string), accept: isId },
    { label: 'restore(id)', call: (s, v) => s.restore(v as string), accept: isId },
    ...options('findConflicts', { memoryId: isId, threshold: isNum(-1, 1) }, (s, o) => s.findConflicts(o as never)),
    ...options('listPendingConflicts', { limit: isInt(0, 10_000) }, (s, o) => s.listPendingConflicts(o as never)),
    { label: 'resolveConflict(id)', call: (s, v) => s.resolveConflict(v as string, 'keep_both'), accept: isId },
    { label: 'resolveConflict(resolution)', call: (s, v) => s.resolveConflict('no-such-conflict', v as never), accept: () => false },
    // lifecycle
    ...options('decayScores', { ...DECAY, now: isTs }, (s, o) => s.decayScores(o as never)),
    ...options('prune', { ...DECAY, now: isTs, dryRun: (v) => v === true }, (s, o) => s.prune(o as never), { dryRun: true }),
    ...options('purgeExpired', { now: isTs, dryRun: (v) => v === true }, (s, o) => s.purgeExpired(o as never), { dryRun: true }),
    ...options(
      'reflect',
      { threshold: isNum(-1, 1), minClusterSize: isInt(1), types: (v) => Array.isArray(v) && v.every(isChoice(...MEMORY_TYPES)), maxLevel: isInt(0), consolidate: isChoice('none', 'soft', 'hard'), summarizer: isFn, dryRun: (v) => v === true },
      (s, o) => s.reflect(o as never),
      { dryRun: true },
    ),
    { label: 'runMaintenance(jobs)', call: (s, v) => s.runMaintenance(v as never), accept: (v) => Array.isArray(v) && v.length === 0 },
    { label: 'trashRestore(id)', call: (s, v) => s.trashRestore(v as string), accept: isId },
    { label: 'trashPurge({ id })', call: (s, v) => s.trashPurge({ id: v as string }), accept: isId },
    { label: 'trashPurge({ olderThanDays })', call: (s, v) => s.trashPurge({ olderThanDays: v as number }), accept: isInt(0) },
    { label: 'trashPurge(options)', call: (s, v) => s.trashPurge(v as never), accept: isOptions },
    { label: 'journalTail(n)', call: (s, v) => s.journalTail(v as number), accept: isInt(0, 100_000) },
    { label: 'history(id)', call: (s, v) => s.history(v as string), accept: isId },
    { label: 'undo(seq)', call: (s, v) => s.undo(v as number), accept: isInt(1) },
    { label: 'stateAt(ts)', call: (s, v) => s.stateAt(v as number), accept: isTs },
    ...options('compactJournal', { keepDays: isTs, keepLast: isInt(0) }, (s, o) => s.compactJournal(o as never), { keepDays: 100_000, keepLast: 100_000 }),
    { label: 'forget(id)', call: (s, v) => s.forget(v as string), accept: isId },
    // archives
    { label: 'importArchive(source)', call: (s, v) => s.importArchive(v as Blob), accept: () => false },
    ...options(
      'importArchive',
      { onConflict: isChoice('skip'), regenerateVectors: isBool, dryRun: (v) => v === true, batchSize: isInt(1, 10_000), maxTrust: isChoice(...TRUST_LEVELS), onProgress: isFn, signal: () => false, maxDecompressedBytes: isInt(1), maxLines: isInt(1) },
      (s, o) => s.importArchive(blob(), o as never),
      { dryRun: true },
    ),
    { label: 'archiveInfo(source)', call: (s, v) => s.archiveInfo(v as Blob), accept: () => false },
    ...options('archiveInfo', { maxDecompressedBytes: isInt(1), maxLines: isInt(1) }, (s, o) => s.archiveInfo(blob(), o as never)),
    ...options(
      'exportArchive',
      { includeVectors: isBool, includeSuperseded: isBool, record: isBool, types: (v) => isChoice(...MEMORY_TYPES)(v) || (Array.isArray(v) && v.every(isChoice(...MEMORY_TYPES))), tags: isTags, since: isTs, onProgress: isFn, signal: () => false },
      (s, o) => s.exportArchive(o as never),
    ),
    ...options('reindex', { onProgress: isFn, signal: () => false }, (s, o) => s.reindex(o as never), { signal: AbortSignal.abort() }),
  ];
}

describe('hardening: every method × every parameter × hostile values', () => {
  it('fails with INVALID_ARGUMENT and changes nothing', async () => {
    const store = await openTestStore();
    const a = (await store.remember('alpha memory about deploys', { tags: ['ops'], surfacesWhen: ['*.ts'] })).memory.id;
    const b = (await store.remember('beta memory about reviews', { tags: ['dev'] })).memory.id;
    const c = (await store.remember('gamma memory, superseded')).memory.id;
    await store.link(a, b, 'related');
    await store.supersede(c, b);
    await store.remember('to be trashed', { importance: 0 });
    await store.prune({ dryRun: false, minScore: 0.01, protectTypes: [] });
    const archive = archiveBytes([row('imported-1', 'from an archive')]);
    const fixture: Fixture = { a, b, archive };

    const outcomes: { label: string; outcome: Awaited<ReturnType<typeof failure>>; expected: readonly string[] }[] = [];
    const changed: string[] = [];
    let before = await fingerprint(store);
    const list = params(fixture);
    for (const param of list) {
      for (const hostile of HOSTILE) {
        let value: unknown;
        try {
          value = hostile.make();
          if (param.accept(value)) continue; // a value this parameter takes is not a bad input
        } catch {
          // The predicate itself tripped over the value (a proxy): it is certainly not an accepted one.
        }
        const label = `${param.label} = ${hostile.name}`;
        outcomes.push({ label, outcome: await failure(() => param.call(store, value), label), expected: ['INVALID_ARGUMENT'] });
        const after = await fingerprint(store);
        if (after !== before) {
          changed.push(label);
          before = after;
        }
      }
    }
    expectAllCodes(outcomes);
    expect(changed).toEqual([]);
    const methods = new Set(list.map((p) => p.label.slice(0, p.label.indexOf('('))));
    console.log(`[attack] API inputs: ${outcomes.length} bad calls over ${methods.size} methods and ${list.length} parameters, all INVALID_ARGUMENT, store unchanged`);
    expect(outcomes.length).toBeGreaterThanOrEqual(619);
    await store.close();
  }, 600_000);
});
