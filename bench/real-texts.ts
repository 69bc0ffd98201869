/**
 * Texts people write, for latency benchmarks whose vocabulary should look like a real store's
 * (many rare words, a few common ones) rather than bench/sentences.ts's recombined phrases,
 * where every query word is in a tenth of the memories. From the evaluation data: SciFact's
 * titles, and abstracts cut into sentences (a long one also into its clauses), STS-B and SICK sentences, LoCoMo's chat turns.
 * Queries: SciFact's claims and LoCoMo's questions (none of them stored). Deterministic order.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseBeirCorpus, docText } from './datasets.ts';
import { loadLocomo } from './locomo.ts';
import { mulberry32 } from '../test/helpers/prng.ts';

function shuffled<T>(items: T[], seed: number): T[] {
  const random = mulberry32(seed);
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** Up to `n` distinct real texts and `queries` questions; fewer texts when the data holds fewer. */
export function realTexts(dataDir: string, n: number, queries: number): { texts: string[]; queries: string[] } {
  const seen = new Set<string>();
  const texts: string[] = [];
  const add = (text: string): void => {
    const t = text.trim().replace(/\s+/g, ' ');
    if (t.split(' ').length < 3 || seen.has(t)) return;
    seen.add(t);
    texts.push(t);
  };
  const { docs } = parseBeirCorpus(readFileSync(path.join(dataDir, 'scifact', 'corpus.jsonl'), 'utf8'));
  for (const doc of docs) {
    add(doc.title ?? '');
    for (const sentence of docText(doc).split(/(?<=[.!?])\s+(?=[A-Z])/)) {
      // A long sentence is stored whole and as its clauses (notes are short).
      add(sentence);
      if (sentence.length > 100) for (const clause of sentence.split(/[;,]\s+/)) add(clause);
    }
  }
  for (const file of ['sts-dev.csv', 'sts-test.csv']) {
    for (const line of readFileSync(path.join(dataDir, 'stsb', file), 'utf8').split('\n')) {
      const cols = line.split('\t');
      if (cols.length >= 7) {
        add(cols[5]!);
        add(cols[6]!);
      }
    }
  }
  for (const line of readFileSync(path.join(dataDir, 'sick', 'SICK.txt'), 'utf8').split('\n').slice(1)) {
    const cols = line.split('\t');
    if (cols.length >= 3) {
      add(cols[1]!);
      add(cols[2]!);
    }
  }
  const conversations = loadLocomo(dataDir);
  for (const c of conversations) for (const t of c.turns) add(t.text);
  const claims = readFileSync(path.join(dataDir, 'scifact', 'claim_evidence_pairs.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { claim: string }).claim);
  const asked = [...new Set([...claims, ...conversations.flatMap((c) => c.questions.map((q) => q.question))])].filter((q) => !seen.has(q));
  return { texts: shuffled(texts, 7).slice(0, n), queries: shuffled(asked, 8).slice(0, queries) };
}
