import { describe, expect, it } from 'vitest';
import { MemoryError } from '../src/core/errors.ts';
import {
  estimateTokens,
  extractKeyPhrases,
  fanoutQueries,
  packLine,
  packMemories,
  roundHalfEven,
  STOP_WORDS,
  type RankedMemory,
} from '../src/core/domain/recall-pack.ts';
import type { Memory } from '../src/core/types.ts';
import { makeMemory, NOW } from './helpers/memory.ts';
import { expectInvalid } from './helpers/expect.ts';



/** A semantic memory whose pack line (`- (semantic) ` + text, 13 + n characters) is `lineLength` long. */
function lineOf(id: string, lineLength: number, score = 1): RankedMemory {
  return { memory: makeMemory(id, id.padEnd(lineLength - 13, '.')), score };
}


describe('token estimate', () => {
  it("rounds half to even like Python's round()", () => {
    expect(roundHalfEven(0.5)).toBe(0);
    expect(roundHalfEven(1.5)).toBe(2);
    expect(roundHalfEven(2.5)).toBe(2);
    expect(roundHalfEven(3.5)).toBe(4);
    expect(roundHalfEven(4.5)).toBe(4);
    expect(roundHalfEven(4.25)).toBe(4);
    expect(roundHalfEven(4.75)).toBe(5);
  });

  it('max(1, round(len/4))', () => {
    expect(estimateTokens('x'.repeat(10))).toBe(2); // 2.5 → 2
    expect(estimateTokens('x'.repeat(18))).toBe(4); // 4.5 → 4
    expect(estimateTokens('x'.repeat(14))).toBe(4); // 3.5 → 4
    expect(estimateTokens('x'.repeat(22))).toBe(6); // 5.5 → 6
    expect(estimateTokens('x'.repeat(26))).toBe(6); // 6.5 → 6
    expect(estimateTokens('x'.repeat(2))).toBe(1); // 0.5 → 0 → floor of 1
    expect(estimateTokens('')).toBe(1);
  });

  it('counts code points, as Python len does', () => {
    expect(estimateTokens('😀'.repeat(10))).toBe(2);
    expect(estimateTokens('東京'.repeat(5))).toBe(2);
  });
});

describe('pack lines', () => {
  it('renders type and trust/pin marks', () => {
    expect(packLine(makeMemory('a', 'Use ruff'))).toBe('- (semantic) Use ruff');
    expect(packLine(makeMemory('a', 'Use ruff', { type: 'procedural', pinned: true }))).toBe('- (procedural) [pinned] Use ruff');
    expect(packLine(makeMemory('a', 'Use ruff', { trust: 'reported' }))).toBe('- (semantic) [reported] Use ruff');
    expect(packLine(makeMemory('a', 'Use ruff', { pinned: true, trust: 'untrusted' }))).toBe('- (semantic) [pinned, untrusted] Use ruff');
  });
});

describe('packMemories', () => {
  it('line costs follow the estimate: 18 → 4, 14 → 4, 26 → 6', () => {
    const r = packMemories([lineOf('a', 18), lineOf('b', 14), lineOf('c', 26)], { tokenBudget: 100 });
    expect(r.items.map((i) => i.tokens)).toEqual([4, 4, 6]);
    expect(r.usedTokens).toBe(14);
    expect(r.truncated).toBe(false);
  });

  it('skips an item that does not fit instead of stopping', () => {
    const ranked = [lineOf('a', 26), lineOf('b', 50), lineOf('c', 18)]; // 6, 12, 4
    const r = packMemories(ranked, { tokenBudget: 10 });
    expect(r.items.map((i) => i.memory.id)).toEqual(['a', 'c']);
    expect(r.usedTokens).toBe(10);
    expect(r.budget).toBe(10);
    expect(r.truncated).toBe(true);
    expect(r.items.map((i) => i.score)).toEqual([1, 1]);
  });

  it('budget 0 packs nothing and the text is empty', () => {
    const r = packMemories([lineOf('a', 18)], { tokenBudget: 0 });
    expect(r).toEqual({ text: '', items: [], usedTokens: 0, budget: 0, truncated: true, compressedGroups: [] });
    expect(packMemories([], { tokenBudget: 0 })).toMatchObject({ text: '', truncated: false });
  });

  it('the header is not counted and heads the text; an empty header gives just the lines', () => {
    const ranked = [lineOf('a', 18), lineOf('b', 14)];
    const header = '## A very long header that would cost many tokens if it were counted';
    const r = packMemories(ranked, { tokenBudget: 8, header });
    expect(r.items).toHaveLength(2);
    expect(r.usedTokens).toBe(8);
    expect(r.text).toBe(`${header}\n${packLine(ranked[0]!.memory)}\n${packLine(ranked[1]!.memory)}`);
    expect(packMemories(ranked, { tokenBudget: 8, header: '' }).text).toBe(`${packLine(ranked[0]!.memory)}\n${packLine(ranked[1]!.memory)}`);
    expect(packMemories(ranked).text.startsWith('## Relevant memory\n')).toBe(true);
  });

  it('uses a custom token counter and honours maxItems', () => {
    const ranked = [lineOf('a', 18), lineOf('b', 18), lineOf('c', 18)];
    const r = packMemories(ranked, { tokenBudget: 2, tokenCounter: () => 1 });
    expect(r.items.map((i) => i.tokens)).toEqual([1, 1]);
    expect(r.truncated).toBe(true);
    const capped = packMemories(ranked, { maxItems: 2 });
    expect(capped.items.map((i) => i.memory.id)).toEqual(['a', 'b']);
    expect(capped.truncated).toBe(false);
  });

  it('compresses similar dropped items into one group line', () => {
    const d1 = makeMemory('d1', 'Deploy uses blue green rollout. Extra detail', { importance: 0.4 });
    const d2 = makeMemory('d2', 'Deploy uses blue green rollout for api. More', { importance: 0.9 });
    const d3 = makeMemory('d3', 'Completely different topic here');
    const ranked = [d1, d2, d3].map((memory) => ({ memory, score: 0.5 }));
    const counter = (line: string): number => (line.startsWith('- (compressed)') ? 3 : 10);
    const r = packMemories(ranked, { tokenBudget: 5, tokenCounter: counter, compress: true });
    expect(r.items).toEqual([]);
    expect(r.truncated).toBe(true);
    expect(r.compressedGroups).toHaveLength(1);
    const group = r.compressedGroups[0]!;
    expect(group.memories.map((m) => m.id)).toEqual(['d1', 'd2']);
    expect(group.text).toBe('- (compressed) [×2 similar] Deploy uses blue green rollout for api | Deploy uses blue green rollout');
    expect(group.tokens).toBe(3);
    expect(r.usedTokens).toBe(3);
    expect(r.text).toBe(`## Relevant memory\n${group.text}`);
    // Larger minimum group, stricter threshold, or no compression: nothing is folded.
    expect(packMemories(ranked, { tokenBudget: 5, tokenCounter: counter, compress: true, compressMinGroup: 3 }).compressedGroups).toEqual([]);
    expect(packMemories(ranked, { tokenBudget: 5, tokenCounter: counter, compress: true, compressThreshold: 0.9 }).compressedGroups).toEqual([]);
    expect(packMemories(ranked, { tokenBudget: 5, tokenCounter: counter }).compressedGroups).toEqual([]);
    // A group that does not fit what is left is not packed.
    expect(packMemories(ranked, { tokenBudget: 2, tokenCounter: counter, compress: true }).compressedGroups).toEqual([]);
  });

  it('keeps up to three snippets, most important first, after the packed items', () => {
    const packed = makeMemory('top', 'short');
    const members = [0.1, 0.9, 0.5, 0.7].map((imp, i) => makeMemory(`g${i}`, `alpha beta gamma ${i}. tail`, { importance: imp }));
    const ranked = [packed, ...members].map((memory) => ({ memory, score: 1 }));
    const counter = (line: string): number => (line === packLine(packed) ? 1 : line.startsWith('- (compressed)') ? 2 : 50);
    const r = packMemories(ranked, { tokenBudget: 3, tokenCounter: counter, compress: true });
    expect(r.items.map((i) => i.memory.id)).toEqual(['top']);
    expect(r.compressedGroups[0]!.text).toBe('- (compressed) [×4 similar] alpha beta gamma 1 | alpha beta gamma 3 | alpha beta gamma 2');
    expect(r.text.split('\n')).toEqual(['## Relevant memory', packLine(packed), r.compressedGroups[0]!.text]);
    expect(r.usedTokens).toBe(3);
  });

  const bad: [string, unknown, string][] = [
    ['negative budget', { tokenBudget: -1 }, 'tokenBudget'],
    ['fractional budget', { tokenBudget: 1.5 }, 'tokenBudget'],
    ['maxItems 0', { maxItems: 0 }, 'maxItems'],
    ['threshold > 1', { compressThreshold: 1.5 }, 'compressThreshold'],
    ['min group 0', { compressMinGroup: 0 }, 'compressMinGroup'],
    ['header not a string', { header: 5 }, 'header'],
    ['compress not boolean', { compress: 'yes' }, 'compress'],
    ['counter not a function', { tokenCounter: 4 }, 'tokenCounter'],
    ['counter returns NaN', { tokenCounter: () => Number.NaN }, 'tokenCounter'],
    ['counter returns negative', { tokenCounter: () => -1 }, 'tokenCounter'],
    ['unknown option', { budget: 10 }, 'options'],
  ];
  it.each(bad)('rejects %s', (_label, options, field) => {
    expectInvalid(() => packMemories([lineOf('a', 18)], options as never), field);
  });
});

describe('key phrases and fan-out', () => {
  it('drops stop words and short tokens, bigrams first then words', () => {
    expect(extractKeyPhrases('Fix the flaky retry test in CI pipeline', 10)).toEqual([
      'fix flaky', 'flaky retry', 'retry test', 'test pipeline', 'fix', 'flaky', 'retry', 'test', 'pipeline',
    ]);
    expect(extractKeyPhrases('Fix the flaky retry test in CI pipeline')).toEqual(['fix flaky', 'flaky retry', 'retry test']);
    expect(extractKeyPhrases('deploy deploy deploy', 5)).toEqual(['deploy deploy', 'deploy']);
    expect(extractKeyPhrases('anything', 0)).toEqual([]);
    expect(extractKeyPhrases('the and of', 3)).toEqual([]);
  });

  it('uses the reference stop-word list', () => {
    expect(STOP_WORDS.size).toBe(73);
    for (const w of ['the', 'should', 'about', 'which', 'each']) expect(STOP_WORDS.has(w)).toBe(true);
  });

  it('rejects a negative or fractional maxPhrases', () => {
    expectInvalid(() => extractKeyPhrases('task', -1), 'maxPhrases');
    expectInvalid(() => fanoutQueries('task', 1.5), 'maxPhrases');
  });

  it('fans out to the task plus its phrases, without case/space duplicates', () => {
    expect(fanoutQueries('deploy')).toEqual(['deploy']);
    expect(fanoutQueries('Android  client')).toEqual(['Android  client', 'android', 'client']);
    expect(fanoutQueries('')).toEqual(['']);
    expect(fanoutQueries('Fix the flaky retry test', 2)).toEqual(['Fix the flaky retry test', 'fix flaky', 'flaky retry']);
  });
});
