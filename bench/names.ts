/**
 * Named things (issue #51 item 2): does a question that names a person, pet, place, book or company
 * find the memory about that one, ahead of a look-alike on the same subject without the name — in
 * lower case and with possessives too?
 *
 * Data: `bench/data/named-things.json` (80 memories, 70 questions), written for this project in
 * several styles (notes, first person, agent facts, transcript lines): 30 pairs of a named memory
 * and a look-alike without the name, and 10 groups of two that differ only in the name (names
 * ending in s, possessives). Stores: the 80 memories alone, and topped up to 1,000 with STS-B dev
 * sentences. The real store (fake-indexeddb,
 * exact index, vectors from the bench cache), `recall(q, { k: 10, touch: false })`.
 * Split: a question's number even = tuning, odd = report; a weight is chosen on one half and
 * reported on the other (bench/cv-weights.ts does the same across LoCoMo's conversations).
 *
 * Run: `npx tsx bench/names.ts [--embedder bge-small] [--entity 0,0.02,0.05]` (a table, then JSON).
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RecallOptions } from '../src/core/types.ts';
import { createMemory } from '../src/local.ts';
import { benchEmbedders, cachedEmbed, servedEmbedder, type BenchEmbedder } from './embedders.ts';
import { stsFillers } from './reworded.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface NamedSet {
  memories: { id: string; text: string }[];
  questions: { id: string; text: string; answers: string[] }[];
}

export const loadNamed = (): NamedSet => JSON.parse(readFileSync(path.join(REPO, 'bench', 'data', 'named-things.json'), 'utf8')) as NamedSet;

export const namedHalf = (id: string): 'tuning' | 'report' => (Number(id.replace(/\D/g, '')) % 2 === 0 ? 'tuning' : 'report');

export interface NamedFigures {
  questions: number;
  top1: number;
  recall3: number;
  mrr: number;
}

/** One configuration's figures per store size and half. */
export type NamedReport = Record<'80' | '1000', Record<'tuning' | 'report' | 'all', NamedFigures>>;

/** Figures per store size and half, for each named recall configuration. */
export async function namedEval(embedder: BenchEmbedder, configs: Record<string, RecallOptions>, set = loadNamed(), fillers = stsFillers()): Promise<Record<string, NamedReport>> {
  const texts = set.memories.map((m) => m.text);
  const filler = fillers.slice(0, 1000 - texts.length);
  const passages = [...texts, ...filler];
  const queries = set.questions.map((q) => q.text);
  const vectors = new Map<string, Float32Array>();
  (await cachedEmbed(embedder, 'named-passages', passages, 'passage')).forEach((v, i) => vectors.set(`p:${passages[i]}`, v));
  (await cachedEmbed(embedder, 'named-queries', queries, 'query')).forEach((v, i) => vectors.set(`q:${queries[i]}`, v));
  const idOf = new Map(set.memories.map((m) => [m.text, m.id]));
  const out: Record<string, NamedReport> = {};
  for (const size of ['80', '1000'] as const) {
    const memory = await createMemory({ name: `named-${embedder.key}-${size}-${process.pid}-${Date.now()}`, embedder: servedEmbedder(embedder, vectors, 'named'), index: 'exact' });
    try {
      await memory.rememberMany(size === '80' ? texts : passages, { batchSize: 500, onConflict: 'ignore' });
      for (const [label, options] of Object.entries(configs)) {
        const ranks: { id: string; rank: number }[] = [];
        for (const q of set.questions) {
          const hits = await memory.recall(q.text, { k: 10, touch: false, ...options });
          const at = hits.findIndex((h) => q.answers.includes(idOf.get(h.memory.text) ?? ''));
          ranks.push({ id: q.id, rank: at < 0 ? Infinity : at + 1 });
        }
        const figures = (part: 'tuning' | 'report' | 'all'): NamedFigures => {
          const r = ranks.filter((x) => part === 'all' || namedHalf(x.id) === part);
          const share = (f: (x: { rank: number }) => number): number => Number((r.reduce((a, x) => a + f(x), 0) / Math.max(r.length, 1)).toFixed(3));
          return { questions: r.length, top1: share((x) => (x.rank === 1 ? 1 : 0)), recall3: share((x) => (x.rank <= 3 ? 1 : 0)), mrr: share((x) => (Number.isFinite(x.rank) ? 1 / x.rank : 0)) };
        };
        ((out[label] ??= {} as never)[size] = { tuning: figures('tuning'), report: figures('report'), all: figures('all') });
      }
    } finally {
      await memory.close();
    }
  }
  return out;
}

async function main(): Promise<void> {
  const arg = (flag: string): string | undefined => (process.argv.includes(flag) ? process.argv[process.argv.indexOf(flag) + 1] : undefined);
  const only = arg('--embedder');
  const grid = (arg('--entity') ?? '').split(',').filter(Boolean).map(Number);
  const configs: Record<string, RecallOptions> = { default: {}, ...Object.fromEntries(grid.map((w) => [`entity=${w}`, { weights: { entity: w } }])) };
  const all: Record<string, unknown> = {};
  for (const embedder of benchEmbedders()) {
    if (!embedder.available() || (only && embedder.key !== only)) continue;
    const r = await namedEval(embedder, configs);
    all[embedder.key] = r;
    for (const [label, sizes] of Object.entries(r)) {
      for (const size of ['80', '1000'] as const) {
        const f = (p: 'tuning' | 'report'): string => `${p} top1 ${sizes[size][p].top1.toFixed(3)} R@3 ${sizes[size][p].recall3.toFixed(3)} MRR ${sizes[size][p].mrr.toFixed(3)}`;
        console.log(`${embedder.key.padEnd(9)} ${label.padEnd(14)} ${size.padStart(4)}  ${f('tuning')}  |  ${f('report')}`);
      }
    }
    await embedder.dispose();
  }
  console.log(JSON.stringify(all));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) void main();
