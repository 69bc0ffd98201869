/**
 * Before building multi-hop expansion (issue #51 item 3): how much could it reach on LoCoMo's
 * development conversations? For every question, the default recall's top 10; the evidence turns
 * it misses; and which of those mention a "bridge" found in the top M hits that the question does
 * not name — as the issue puts it, the entities of the top hits pulling in the other turns that
 * mention them. Two readings of "entity": the capitalised names a turn mentions (query.ts's
 * `mentions`, the speakers left out: they are in every turn), and, more loosely, any rare word of
 * four letters or more (in at most `df` turns). An expansion cannot gain more than what it
 * reaches, and it pays for every extra candidate with a chance to push a right turn out.
 *
 * Run: `npx tsx bench/multi-hop-reach.ts [--embedder bge-small]`.
 */
import 'fake-indexeddb/auto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMemory } from '../src/local.ts';
import { analyseQuery, memoryEntities } from '../src/core/domain/query.ts';
import { benchEmbedders, servedEmbedder } from './embedders.ts';
import { loadLocomo, locomoVectors, type LocomoTurn } from './locomo.ts';

type Bridges = (text: string) => Set<string>;

const said = (text: string): string => text.split(' said, ')[1] ?? text;
const namesOf: Bridges = (text) => new Set(memoryEntities({ text }).mentions);
const wordsOf: Bridges = (text) => new Set(said(text).toLowerCase().match(/[a-z]{4,}/g) ?? []);

interface Reach {
  missing: number;
  reached: number;
  candidates: number;
  byCategory: Record<string, [number, number]>;
}

async function main(): Promise<void> {
  const key = process.argv.includes('--embedder') ? process.argv[process.argv.indexOf('--embedder') + 1] : 'bge-small';
  const embedder = benchEmbedders().find((e) => e.key === key && e.available());
  if (!embedder) throw new Error(`multi-hop-reach: ${key} is not provisioned`);
  const data = loadLocomo();
  const vectors = await locomoVectors(embedder, data);
  const variants: { label: string; bridges: Bridges; df: number; top: number }[] = [];
  for (const top of [3, 5]) {
    variants.push({ label: `names in the top ${top}`, bridges: namesOf, df: 8, top });
    for (const df of [3, 8]) variants.push({ label: `words in ≤ ${df} turns, top ${top}`, bridges: wordsOf, df, top });
  }
  const reach = new Map(variants.map((v) => [v.label, { missing: 0, reached: 0, candidates: 0, byCategory: {} } as Reach]));
  let questions = 0;
  for (const conv of data) {
    const now = Math.max(...conv.turns.map((t) => t.createdAt)) + 86_400;
    const store = await createMemory({ name: `reach-${conv.id}-${process.pid}-${Date.now()}`, embedder: servedEmbedder(embedder, vectors, 'locomo'), index: 'exact', clock: { now: () => now } });
    try {
      const stored = await store.rememberMany(conv.turns.map((t) => ({ text: t.text, createdAt: t.createdAt })), { batchSize: 500 });
      const turnOf = new Map<string, LocomoTurn>(stored.map((r, i) => [r.memory.id, conv.turns[i]!]));
      const speakers = new Set(conv.turns.map((t) => memoryEntities({ text: t.text }).speaker).filter((s): s is string => s !== null));
      for (const q of conv.questions) {
        questions++;
        const hits = (await store.recall(q.question, { k: 10, touch: false })).map((h) => turnOf.get(h.memory.id)!);
        const found = new Set(hits.map((t) => t.id));
        const named = new Set([...analyseQuery(q.question, now).names, ...wordsOf(q.question)]);
        for (const v of variants) {
          const df = new Map<string, number>();
          for (const t of conv.turns) for (const b of v.bridges(t.text)) df.set(b, (df.get(b) ?? 0) + 1);
          const bridges = new Set<string>();
          for (const t of hits.slice(0, v.top)) for (const b of v.bridges(t.text)) if (!named.has(b) && !speakers.has(b) && (df.get(b) ?? 0) <= v.df) bridges.add(b);
          const pulled = conv.turns.filter((t) => !found.has(t.id) && [...v.bridges(t.text)].some((b) => bridges.has(b)));
          const r = reach.get(v.label)!;
          r.candidates += pulled.length;
          for (const e of q.evidence) {
            if (found.has(e)) continue;
            const cat = (r.byCategory[String(q.category)] ??= [0, 0]);
            r.missing++;
            cat[0]++;
            if (pulled.some((t) => t.id === e)) {
              r.reached++;
              cat[1]++;
            }
          }
        }
      }
    } finally {
      await store.close();
    }
  }
  console.log(`${embedder.key}: evidence turns the default top 10 misses, and how many a bridge from the top hits reaches`);
  for (const [label, r] of reach) {
    const cats = [1, 2, 3, 4, 5].map((c) => `${c}: ${r.byCategory[String(c)]?.[1] ?? 0}/${r.byCategory[String(c)]?.[0] ?? 0}`).join(', ');
    console.log(`  ${label.padEnd(28)} reached ${r.reached} of ${r.missing} (${cats}); extra candidates a question ${(r.candidates / questions).toFixed(1)}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) void main();
