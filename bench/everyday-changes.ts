/**
 * Everyday and work changes (issue #50 item 3): does the write-time scan call a change an update
 * — moves, employers, managers, cars, prices, passwords, numbers, providers, versions, said or not
 * — a negated statement a contradiction, the same fact reworded a duplicate, and leave unrelated
 * pairs (another holder, another attribute, an added fact) alone?
 *
 * Data: `bench/data/everyday-changes.json` (208 pairs in five styles, each marked `half`). The
 * attribute rule (src/core/domain/attributes.ts) was tuned on the `tune` half only (`--misses`
 * prints that half's misses, never the other's); the `report` half gives the figures. Each pair
 * runs through the store's own scan (`detectConflicts`) at the pair's cosine under each embedder,
 * the older memory the new one's only candidate: what `remember(newer)` would report.
 *
 * Per class (update, contradiction, duplicate, none) precision and recall.
 *
 * `--ranking`: item 1 on the report half's update pairs (see `rankingOfUpdates`).
 *
 * Run: `npx tsx bench/everyday-changes.ts [--misses | --ranking]` (the table is part of `npm run eval`).
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { detectConflicts } from '../src/core/domain/conflicts.ts';
import { cosineInOrder } from '../src/core/domain/vector-math.ts';
import { makeMemory } from '../test/helpers/memory.ts';
import { benchEmbedders, cachedEmbed, servedEmbedder, type BenchEmbedder } from './embedders.ts';
import { createMemory } from '../src/local.ts';

export type ChangeLabel = 'update' | 'contradiction' | 'duplicate' | 'unrelated';
export interface ChangePair {
  style: string;
  label: ChangeLabel;
  older: string;
  newer: string;
  attribute: string;
  half: 'tune' | 'report';
}

export const CHANGE_CLASSES = ['update', 'contradiction', 'duplicate', 'none'] as const;
export type ChangeClass = (typeof CHANGE_CLASSES)[number];

export function loadEverydayChanges(): ChangePair[] {
  return (JSON.parse(readFileSync(new URL('./data/everyday-changes.json', import.meta.url), 'utf8')) as { pairs: ChangePair[] }).pairs;
}

const goldOf = (p: ChangePair): ChangeClass => (p.label === 'unrelated' ? 'none' : p.label);

/** What `remember(newer)` reports about `older` at their cosine. */
export async function changeVerdict(p: Pick<ChangePair, 'older' | 'newer'>, cosine: number): Promise<ChangeClass> {
  const older = makeMemory('older', p.older, { createdAt: 1_000 });
  const newer = makeMemory('newer', p.newer, { createdAt: 2_000 });
  const [c] = await detectConflicts(newer, [{ memory: older, similarity: cosine }]);
  return c ? c.kind : 'none';
}

export interface ClassFigures {
  n: number;
  predicted: number;
  precision: number;
  recall: number;
}
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

export function scoreChanges(pairs: readonly ChangePair[], verdicts: readonly ChangeClass[]): Record<ChangeClass, ClassFigures> {
  const out = {} as Record<ChangeClass, ClassFigures>;
  for (const cls of CHANGE_CLASSES) {
    const gold = pairs.map((p) => goldOf(p) === cls);
    const pred = verdicts.map((v) => v === cls);
    const tp = gold.filter((g, i) => g && pred[i]).length;
    const n = gold.filter(Boolean).length;
    const predicted = pred.filter(Boolean).length;
    out[cls] = { n, predicted, precision: r3(predicted ? tp / predicted : 1), recall: r3(n ? tp / n : 1) };
  }
  return out;
}

export interface EverydayRun {
  [embedder: string]: { tune: Record<ChangeClass, ClassFigures>; report: Record<ChangeClass, ClassFigures>; misses: string[] };
}

async function runOne(embedder: BenchEmbedder, pairs: readonly ChangePair[]): Promise<EverydayRun[string]> {
  const olders = await cachedEmbed(embedder, 'everyday-changes', pairs.map((p) => p.older), 'passage');
  const newers = await cachedEmbed(embedder, 'everyday-changes', pairs.map((p) => p.newer), 'passage');
  const verdicts: ChangeClass[] = [];
  for (const [i, p] of pairs.entries()) verdicts.push(await changeVerdict(p, cosineInOrder(olders[i]!, newers[i]!)));
  const half = (h: ChangePair['half']) => {
    const idx = pairs.map((p, i) => (p.half === h ? i : -1)).filter((i) => i >= 0);
    return scoreChanges(idx.map((i) => pairs[i]!), idx.map((i) => verdicts[i]!));
  };
  // The tuning half's misses only: the report half is never read to change the rule.
  const misses = pairs.flatMap((p, i) => (p.half === 'tune' && goldOf(p) !== verdicts[i] ? [`${p.label}→${verdicts[i]} (${cosineInOrder(olders[i]!, newers[i]!).toFixed(2)}): "${p.older}" / "${p.newer}"`] : []));
  return { tune: half('tune'), report: half('report'), misses };
}

export async function runEverydayChanges(): Promise<EverydayRun> {
  const pairs = loadEverydayChanges();
  const out: EverydayRun = {};
  for (const embedder of benchEmbedders()) {
    if (!embedder.available()) continue;
    out[embedder.key] = await runOne(embedder, pairs);
    await embedder.dispose();
  }
  return out;
}

export function everydayTable(run: EverydayRun): string {
  const lines: string[] = [];
  for (const half of ['tune', 'report'] as const) {
    lines.push(`everyday-changes.json, ${half} half: P / R per class`);
    for (const [key, r] of Object.entries(run)) {
      const f = r[half];
      lines.push(`  ${key.padEnd(9)} ${CHANGE_CLASSES.map((c) => `${c} ${f[c].precision.toFixed(2)} / ${f[c].recall.toFixed(2)} (n ${f[c].n})`).join(' | ')}`);
    }
  }
  return lines.join('\n');
}

/**
 * Item 1 on the same pairs: every update pair of a half in one store (the older written first,
 * a day apart, both under 'warn'), then each older memory's own words as the question — the
 * question that finds the old fact best. The share where the newer memory ranks above the older
 * (whether or not the older is returned), and where it is the first hit.
 */
export async function rankingOfUpdates(embedder: BenchEmbedder, pairs: readonly ChangePair[]): Promise<{ n: number; newerAbove: number; newerFirst: number }> {
  const updates = pairs.filter((p) => p.label === 'update');
  const texts = updates.flatMap((p) => [p.older, p.newer]);
  const vectors = new Map<string, Float32Array>();
  (await cachedEmbed(embedder, 'everyday-changes', texts, 'passage')).forEach((v, i) => vectors.set(`p:${texts[i]}`, v));
  (await cachedEmbed(embedder, 'everyday-changes-q', updates.map((p) => p.older), 'query')).forEach((v, i) => vectors.set(`q:${updates[i]!.older}`, v));
  const store = await createMemory({ name: `everyday-rank-${embedder.key}-${process.pid}-${Date.now()}`, embedder: servedEmbedder(embedder, vectors, 'everyday'), index: 'exact', clock: { now: () => 1_800_000_000 } });
  try {
    const ids: [string, string][] = [];
    for (const [i, p] of updates.entries()) {
      const older = await store.remember(p.older, { createdAt: 1_700_000_000 + i * 10, onConflict: 'warn' });
      const newer = await store.remember(p.newer, { createdAt: 1_700_086_400 + i * 10, onConflict: 'warn' });
      ids.push([older.memory.id, newer.memory.id]);
    }
    let above = 0;
    let first = 0;
    for (const [i, p] of updates.entries()) {
      const hits = await store.recall(p.older, { k: 10, touch: false });
      const at = (id: string): number => {
        const r = hits.findIndex((h) => h.memory.id === id);
        return r < 0 ? Number.POSITIVE_INFINITY : r;
      };
      const [o, n] = ids[i]!;
      if (at(n) < at(o)) above++;
      if (at(n) === 0) first++;
    }
    return { n: updates.length, newerAbove: Math.round((above / updates.length) * 1000) / 1000, newerFirst: Math.round((first / updates.length) * 1000) / 1000 };
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--ranking')) {
    const report = loadEverydayChanges().filter((p) => p.half === 'report');
    for (const embedder of benchEmbedders()) {
      if (!embedder.available()) continue;
      console.log(`${embedder.key.padEnd(9)} report-half updates, the older's words as the question: ${JSON.stringify(await rankingOfUpdates(embedder, report))}`);
      await embedder.dispose();
    }
    return;
  }
  const run = await runEverydayChanges();
  console.log(everydayTable(run));
  if (process.argv.includes('--misses')) for (const [key, r] of Object.entries(run)) for (const m of r.misses) console.log(`  ${key} ${m}`);
  console.log(JSON.stringify(run, (k, v) => (k === 'misses' ? undefined : v)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) void main();
