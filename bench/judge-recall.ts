/**
 * The judge's candidate recall (issue #50 item 7): of the known contradicting or updating pairs of
 * `bench/data/dialogue-contradictions.json` (two-person conversations; a speaker later says what
 * contradicts or changes what they said), how many reach the judge — or are already caught by the
 * patterns — when the turns are remembered one by one (`onConflict: 'warn'`) with the store's
 * default judge band and budget. The judge here only records what it is asked (it answers
 * "unrelated"): what a host's model would be shown, not what it would answer.
 *
 * Run: `npx tsx bench/judge-recall.ts` (also part of `npm run eval`).
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMemory } from '../src/local.ts';
import type { JudgePair } from '../src/core/domain/judge.ts';
import { benchEmbedders, cachedEmbed, servedEmbedder, type BenchEmbedder } from './embedders.ts';

interface Dialogue {
  id: string;
  turns: { speaker: string; text: string }[];
  pairs: { older: number; newer: number; kind: 'contradiction' | 'update' }[];
}

export function loadDialogues(): Dialogue[] {
  return (JSON.parse(readFileSync(new URL('./data/dialogue-contradictions.json', import.meta.url), 'utf8')) as { dialogues: Dialogue[] }).dialogues;
}

/** A turn as a chat import stores it. */
const turnText = (t: { speaker: string; text: string }): string => `${t.speaker} said, "${t.text}"`;

export interface JudgeRecall {
  pairs: number;
  /** Known pairs put to the judge. */
  reachedJudge: number;
  /** Known pairs the patterns already reported (the judge is not asked about those). */
  caughtByPatterns: number;
  /** Either: the share of known pairs the write-time scan brings to a verdict or to the judge. */
  candidateRecall: number;
  /** Pairs put to the judge, all told, a turn. */
  askedPerTurn: number;
}

async function runOne(embedder: BenchEmbedder, dialogues: readonly Dialogue[]): Promise<JudgeRecall> {
  const texts = dialogues.flatMap((d) => d.turns.map(turnText));
  const vectors = new Map<string, Float32Array>();
  (await cachedEmbed(embedder, 'dialogue-turns', texts, 'passage')).forEach((v, i) => vectors.set(`p:${texts[i]}`, v));
  let pairs = 0;
  let reached = 0;
  let caught = 0;
  let asked = 0;
  let turns = 0;
  for (const d of dialogues) {
    const seen: JudgePair[] = [];
    const store = await createMemory({
      name: `judge-recall-${embedder.key}-${d.id}-${process.pid}-${Date.now()}`,
      embedder: servedEmbedder(embedder, vectors, 'judge-recall'),
      index: 'exact',
      conflicts: { judge: (pair) => (seen.push(pair), { label: 'unrelated' }) },
    });
    try {
      const ids: string[] = [];
      const found = new Set<string>();
      for (const [i, t] of d.turns.entries()) {
        const r = await store.remember(turnText(t), { createdAt: 1_700_000_000 + i * 60, onConflict: 'warn' });
        ids.push(r.memory.id);
        for (const c of r.conflicts) if (c.kind !== 'duplicate') found.add(`${c.b.id}>${c.a.id}`);
      }
      const judged = new Set(seen.map((p) => `${p.older.id}>${p.newer.id}`));
      for (const p of d.pairs) {
        pairs++;
        const key = `${ids[p.older]}>${ids[p.newer]}`;
        if (found.has(key)) caught++;
        else if (judged.has(key)) reached++;
      }
      asked += seen.length;
      turns += d.turns.length;
    } finally {
      await store.close();
    }
  }
  const r3 = (x: number): number => Math.round(x * 1000) / 1000;
  return { pairs, reachedJudge: reached, caughtByPatterns: caught, candidateRecall: r3((reached + caught) / pairs), askedPerTurn: r3(asked / turns) };
}

/** Every dialogue one after the other in one store: the known pairs compete with ~90 other turns for the judge's budget. */
export function oneStore(dialogues: readonly Dialogue[]): Dialogue[] {
  const turns: Dialogue['turns'] = [];
  const pairs: Dialogue['pairs'] = [];
  for (const d of dialogues) {
    const offset = turns.length;
    turns.push(...d.turns);
    pairs.push(...d.pairs.map((p) => ({ ...p, older: p.older + offset, newer: p.newer + offset })));
  }
  return [{ id: 'all', turns, pairs }];
}

export async function runJudgeRecall(): Promise<Record<string, { each: JudgeRecall; together: JudgeRecall }>> {
  const dialogues = loadDialogues();
  const out: Record<string, { each: JudgeRecall; together: JudgeRecall }> = {};
  for (const embedder of benchEmbedders()) {
    if (!embedder.available()) continue;
    out[embedder.key] = { each: await runOne(embedder, dialogues), together: await runOne(embedder, oneStore(dialogues)) };
    await embedder.dispose();
  }
  return out;
}

export function judgeRecallTable(run: Record<string, { each: JudgeRecall; together: JudgeRecall }>): string {
  const lines = ['judge candidate recall (dialogue-contradictions.json; default band and budget): each dialogue its own store | all in one store'];
  const cell = (r: JudgeRecall): string => `${r.candidateRecall.toFixed(3)} of ${r.pairs} (patterns ${r.caughtByPatterns}, judge ${r.reachedJudge}; ${r.askedPerTurn} asked a turn)`;
  for (const [key, r] of Object.entries(run)) lines.push(`  ${key.padEnd(9)} ${cell(r.each)} | ${cell(r.together)}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const run = await runJudgeRecall();
  console.log(judgeRecallTable(run));
  console.log(JSON.stringify(run));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) void main();
