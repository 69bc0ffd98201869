import { describe, expect, it } from 'vitest';
import { highlight } from '../src/app/lib/highlight.ts';
import { scoreCandidates } from '../src/core/domain/scoring.ts';
import { makeMemory, NOW } from './helpers/memory.ts';

const marked = (text: string, terms: string[]): string[] => highlight(text, terms).filter((s) => s.hit).map((s) => s.text);

describe('search highlighting', () => {
  it('marks the words whose stem matched, and never a stop word', () => {
    const memory = makeMemory('m', 'The team office moved to the new offices at Leopoldstraße 8.');
    const [hit] = scoreCandidates([{ memory, cosine: 0.3 }], 'where is the office the team moves to', { mode: 'hybrid', now: NOW, explain: true });
    const terms = hit!.explain!.signals.find((s) => s.name === 'lexical')!.details.matchedTerms as string[];
    expect(terms).toEqual(['office', 'team', 'move']);
    expect(marked(memory.text, terms)).toEqual(['team', 'office', 'moved', 'offices']);
    // "the", "to", "is", "at" are not terms, so nothing marks them.
    expect(marked('the office is at the end', ['office'])).toEqual(['office']);
  });
});
