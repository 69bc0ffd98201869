/**
 * Issue #26: recall that understands conversations. `createdAt` on remember, time expressions in
 * questions, who said a turn, quoted phrases, the turns around a short reply — each a signal of
 * core/domain/signals.ts that explains itself, is absent when the query does not ask for it, and can be
 * switched off per call; and hybrid with corpus candidates as the default.
 */
import { describe, expect, it } from 'vitest';
import { analyseQuery, memoryEntities, nameCredit, withPoolNames } from '../src/core/domain/query.ts';
import { readQueryTime, timeFit } from '../src/core/domain/time-expressions.ts';
import { manualClock, openTestStore } from './helpers/store.ts';

const DAY = 86_400;
const at = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d) / 1000;
const iso = (t: number): string => new Date(t * 1000).toISOString().slice(0, 10);
const windows = (q: string, anchor: number): [string, string][] => readQueryTime(q, anchor).windows.map((w) => [iso(w.start), iso(w.end)]);

describe('time in questions', () => {
  const anchor = at(2023, 8, 10) + 12 * 3600; // Thursday 10 August 2023, noon

  it('reads dates, months, years and relative expressions as windows', () => {
    expect(windows('What did Caroline do in May 2023?', anchor)).toEqual([['2023-05-01', '2023-06-01']]);
    expect(windows('What happened on 8 May?', anchor)).toEqual([['2023-05-08', '2023-05-09']]);
    expect(windows('the meeting on May 8, 2023', anchor)).toEqual([['2023-05-08', '2023-05-09']]);
    expect(windows('What did we discuss on 2023-05-08?', anchor)).toEqual([['2023-05-08', '2023-05-09']]);
    expect(windows('What did Gina buy in 2022?', anchor)).toEqual([['2022-01-01', '2023-01-01']]);
    expect(windows('Where did Mel go yesterday?', anchor)).toEqual([['2023-08-09', '2023-08-10']]);
    expect(windows('What did we do last week?', anchor)).toEqual([['2023-07-27', '2023-08-04']]);
    expect(windows('What did Jon do last weekend?', anchor)).toEqual([['2023-08-05', '2023-08-07']]);
    expect(windows('What did she paint two days ago?', anchor)).toEqual([['2023-08-07', '2023-08-10']]);
    expect(windows('what changed in the last 3 months', anchor)).toEqual([['2023-05-12', '2023-08-11']]);
    // A month of an unstated year that would lie after the anchor is last year's.
    expect(windows('in December', anchor)).toEqual([['2022-12-01', '2023-01-01']]);
  });

  it('"may" the verb is not a month; "when did" asks for a time without a window', () => {
    expect(windows('May I ask what you did?', anchor)).toEqual([]);
    expect(readQueryTime('When did Caroline go to the support group?', anchor)).toEqual({ windows: [], asksWhen: true });
    expect(readQueryTime('How long ago was the trip?', anchor).asksWhen).toBe(true);
    expect(readQueryTime('What does Caroline paint?', anchor)).toEqual({ windows: [], asksWhen: false });
  });

  it('fits a time to the windows: 1 inside, falling off outside', () => {
    const w = readQueryTime('in May 2023', anchor).windows;
    expect(timeFit(at(2023, 5, 20), w)).toBe(1);
    expect(timeFit(at(2023, 6, 3), w)).toBeGreaterThan(timeFit(at(2023, 7, 3), w));
    expect(timeFit(at(2021, 1, 1), w)).toBeLessThan(0.01);
  });
});

describe('what a query names and what a memory offers', () => {
  it('names, possessives and quoted phrases in a query; question words and months are not names', () => {
    const q = analyseQuery('What did Melanie\'s kids say about "the blue house" in May?', at(2023, 8, 10));
    expect(q.names).toEqual(['melanie']);
    expect(analyseQuery('do we ship on Fridays?', at(2023, 8, 10)).names).toEqual([]);
    // A name that ends in "s" is kept whole; a curly possessive is dropped like a straight one.
    expect(analyseQuery('What did James say to Jess’s sister?', at(2023, 8, 10)).names).toEqual(['james', 'jess']);
    expect(analyseQuery("Is it Chris's or Charles' car?", at(2023, 8, 10)).names).toEqual(['chris', 'charles']);
    expect(q.phrases).toEqual(['the blue house']);
    expect(q.time.windows).toHaveLength(1);
  });

  it('the speaker of a transcript line, the names it mentions (not whom it addresses), whether it says when', () => {
    const e = memoryEntities({ text: '(8 May, 2023) Caroline said, "Thanks, Mel! I went with Jon to the LGBTQ support group yesterday."' });
    expect(e.speaker).toBe('caroline');
    expect(e.speakerName).toBe('Caroline');
    expect([...e.mentions]).toContain('jon');
    expect([...e.mentions]).not.toContain('mel');
    expect(e.saysWhen).toBe(true);
    expect(memoryEntities({ text: 'The standup is at 9:30' }).saysWhen).toBe(true);
    expect(memoryEntities({ text: 'Bugs are tracked in Linear' }).saysWhen).toBe(false);
  });

  it('mayMention says no only where the words mention no one of that name, and skips the reading where the name is only in lower case', () => {
    const texts = [
      'Aspirin inhibits platelets; low-dose aspirin is common.',
      'low-dose aspirin is common, and aspirins too',
      'We gave ASPIRIN. Then Aspirin’s effect faded.',
      "Melanie's kids met Jon at O'Brien's pub",
      'melanie said hi to jon',
      'İstanbul trip with Jon',
      'Thanks, Mel! Mel and Jon went.',
      '(8 May, 2023) Caroline said, "I told caroline and Gina about Gina\'s dog."',
    ];
    const names = ['aspirin', 'aspirins', 'melanie', 'jon', 'mel', 'gina', 'caroline', 'istanbul', 'obrien'];
    for (const text of texts) {
      for (const name of names) {
        const e = memoryEntities({ text: `${text} ` });
        // Never a false "no": wherever the mentions hold the name, mayMention says yes.
        if (e.mentions.has(name)) expect(e.mayMention(name), `${name} in ${text}`).toBe(true);
      }
    }
    // Lower case only: no mention, and no need to read the words.
    expect(memoryEntities({ text: 'low-dose aspirin is common' }).mayMention('aspirin')).toBe(false);
    expect(memoryEntities({ text: 'Aspirin is common' }).mayMention('aspirin')).toBe(true);
    expect(memoryEntities({ text: 'melanie said hi' }).mayMention('melanie')).toBe(false);
    // A name with an apostrophe is read as the query's is ("O'Brien" → obrien): mentioned, and said by.
    const [name] = analyseQuery("What did O'Brien say?", at(2023, 8, 10)).names;
    expect(name).toBe('obrien');
    expect(nameCredit(memoryEntities({ text: "Jon met O’Brien at the pub" }), name!)).toBe(0.5);
    expect(nameCredit(memoryEntities({ text: "O'Brien said, \"I'll be there.\"" }), name!)).toBe(1);
  });

  it('names against the candidates (#51 item 2): a lower-case word a candidate writes as a name is one, a sentence start is not; a name most candidates share weighs little', () => {
    const pool = [
      { text: "Gerald's dog Biscuit only eats salmon kibble." },
      { text: 'Football training is on Wednesdays.' },
      { text: 'The kids love football and swimming.' },
      { text: 'Melanie: my dog eats anything.' },
      { text: 'Melanie: we went camping again.' },
      { text: 'Caroline: the support group was great.' },
      { text: 'Melanie: Caroline, that sounds lovely!' },
    ];
    const read = (q: string) => withPoolNames(analyseQuery(q, at(2023, 8, 10)), q, pool);
    // "biscuit" is written as a name mid-sentence; "gerald" opens a sentence and is written in lower
    // case nowhere; "football" opens one too, but another candidate writes it in lower case.
    expect(read("what does gerald's dog eat?").names).toEqual(['gerald']);
    expect(read('what does biscuit eat at football?').names).toEqual(['biscuit']);
    // A speaker is a name in lower case too.
    expect(read('what did melanie say about her dog?').names).toEqual(['melanie']);
    // Rarity: one candidate names Gerald (weight 1); three of seven are said by Melanie (less).
    const both = read('Did Melanie meet Gerald?');
    expect(both.names).toEqual(['melanie', 'gerald']);
    expect(both.nameWeights![1]).toBe(1);
    expect(both.nameWeights![0]).toBeGreaterThan(0);
    expect(both.nameWeights![0]).toBeLessThan(0.5);
    // Nothing is added to a query that names nobody the candidates know.
    const none = analyseQuery('what is the wifi password?', at(2023, 8, 10));
    expect(withPoolNames(none, 'what is the wifi password?', pool)).toBe(none);
  });
});

describe('remember({ createdAt }): when the content happened', () => {
  it('is stored, journaled and validated; time travel keeps the store\'s own write times', async () => {
    const clock = manualClock(at(2024, 1, 10));
    const store = await openTestStore({ clock });
    try {
      const turn = await store.remember('Caroline said, "I went to a support group yesterday."', { createdAt: at(2023, 5, 8) });
      expect(turn.memory.createdAt).toBe(at(2023, 5, 8));
      expect(turn.memory.lastAccessed).toBe(at(2024, 1, 10));
      const [entry] = await store.history(turn.memory.id);
      expect(entry!.after!.createdAt).toBe(at(2023, 5, 8));
      const [many] = await store.rememberMany([{ text: 'Melanie said, "We went camping in June."', createdAt: at(2023, 6, 27) }]);
      expect(many!.memory.createdAt).toBe(at(2023, 6, 27));
      // Stored on 10 January 2024: not there the day before, whatever its createdAt says.
      expect((await store.stateAt(at(2024, 1, 9))).map((m) => m.id)).toEqual([]);
      expect((await store.stateAt(at(2024, 1, 11))).map((m) => m.id).sort()).toEqual([turn.memory.id, many!.memory.id].sort());
      for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, '2023-05-08', at(2024, 1, 12)]) {
        await expect(store.remember('x', { createdAt: bad as number })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'createdAt' } });
      }
      // Up to a day ahead of the clock is accepted (time zones, clock skew).
      await expect(store.remember('tomorrow morning', { createdAt: at(2024, 1, 10) + DAY - 1 })).resolves.toMatchObject({ action: 'stored' });
      // One bad item refuses the whole batch before anything is written.
      const before = await store.count();
      await expect(store.rememberMany(['fine', { text: 'bad', createdAt: at(2030, 1, 1) }])).rejects.toMatchObject({ details: { field: 'items[1].createdAt' } });
      expect(await store.count()).toBe(before);
      // An edit can correct it, within the same bounds.
      const edited = await store.edit(turn.memory.id, { createdAt: at(2023, 5, 7) });
      expect(edited.createdAt).toBe(at(2023, 5, 7));
      await expect(store.edit(turn.memory.id, { createdAt: at(2031, 1, 1) })).rejects.toMatchObject({ details: { field: 'changes.createdAt' } });
    } finally {
      await store.close();
    }
  });
});

describe('the conversational signals in a store', () => {
  const session1 = at(2023, 5, 8);
  const session2 = at(2023, 6, 27);
  const turns: [string, number][] = [
    ['Caroline said, "Hey Mel! I went to an LGBTQ support group yesterday and it was powerful."', session1],
    ['Melanie said, "That sounds wonderful. Did you meet anyone there?"', session1],
    ['Caroline said, "Yes! It was amazing."', session1],
    ['Melanie said, "I ran a charity race for mental health last Saturday."', session1],
    ['Melanie said, "We went camping at the lake with the kids."', session2],
    ['Caroline said, "I am researching adoption agencies for the blue house project."', session2],
  ];

  async function conversation() {
    const store = await openTestStore({ clock: manualClock(session2 + DAY) });
    const stored = await store.rememberMany(turns.map(([text, createdAt]) => ({ text, createdAt })));
    return { store, ids: stored.map((r) => r.memory.id) };
  }

  it('hybrid with corpus candidates is the default, and every signal shows in the breakdown', async () => {
    const { store } = await conversation();
    try {
      const [hit] = await store.recall('What did Melanie do in June 2023?', { explain: true, touch: false });
      expect(hit!.explain!.mode).toBe('hybrid');
      const names = hit!.explain!.signals.map((s) => s.name);
      for (const name of ['entity', 'time', 'phrase', 'context']) expect(names).toContain(name);
      const phrase = hit!.explain!.signals.find((s) => s.name === 'phrase')!;
      expect(phrase.reason).toMatch(/quotes nothing/);
      expect(phrase.weight).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('time: a window in the memories\' own time lifts what falls inside it, and can be switched off', async () => {
    const { store, ids } = await conversation();
    try {
      const q = 'What did Melanie do with the kids in June 2023?';
      const [top] = await store.recall(q, { explain: true, touch: false });
      expect(top!.memory.id).toBe(ids[4]);
      const time = top!.explain!.signals.find((s) => s.name === 'time')!;
      expect(time.value).toBe(1);
      expect(time.weight).toBeGreaterThan(0);
      const off = await store.recall(q, { explain: true, touch: false, weights: { time: 0 } });
      expect(off.find((h) => h.memory.id === ids[4])!.explain!.signals.find((s) => s.name === 'time')!.weight).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('entity (asked for; off by default since #51 item 7): turns said by the person the query names rank above the same words said by another', async () => {
    const { store, ids } = await conversation();
    try {
      const byDefault = await store.recall('What did Caroline say about the support group?', { explain: true, touch: false, k: 6 });
      expect(byDefault[0]!.explain!.signals.find((s) => s.name === 'entity')!.weight).toBe(0);
      const hits = await store.recall('What did Caroline say about the support group?', { explain: true, touch: false, k: 6, weights: { entity: 0.02 } });
      const entity = (id: string) => hits.find((h) => h.memory.id === id)!.explain!.signals.find((s) => s.name === 'entity')!;
      // Credit 1 for the turn Caroline said, scaled by her rarity among the candidates (she says several).
      expect(entity(ids[0]!).value).toBeGreaterThan(0);
      expect(entity(ids[0]!).value).toBeLessThan(1);
      expect(entity(ids[0]!).reason).toBe('Said by Caroline, whom the query names');
      expect(entity(ids[1]!).value).toBe(0);
      const off = await store.recall('What did Caroline say about the support group?', { explain: true, touch: false, k: 6, weights: { entity: 0 } });
      expect(off[0]!.explain!.signals.find((s) => s.name === 'entity')!.weight).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('phrase: a quoted phrase matches its exact words', async () => {
    const { store, ids } = await conversation();
    try {
      const [top] = await store.recall('Who talked about "the blue house"?', { explain: true, touch: false });
      expect(top!.memory.id).toBe(ids[5]);
      expect(top!.explain!.signals.find((s) => s.name === 'phrase')!.value).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('context: a short reply is found through the turn before it, within its conversation only', async () => {
    const { store, ids } = await conversation();
    try {
      const hits = await store.recall('Did Caroline meet anyone at the support group?', { explain: true, touch: false, k: 6 });
      const reply = hits.find((h) => h.memory.id === ids[2])!;
      const context = reply.explain!.signals.find((s) => s.name === 'context')!;
      expect(context.value).toBeGreaterThan(0);
      expect(context.reason).toMatch(/turns around it/);
      // Switched off, the reply ranks lower (scores are not comparable across weights: they are weighted means).
      const off = await store.recall('Did Caroline meet anyone at the support group?', { explain: true, touch: false, k: 6, weights: { context: 0 } });
      // The camping turn matches better on its own (a higher cosine): the reply passes it only through its neighbour.
      const rank = (list: typeof hits, id: string): number => list.findIndex((h) => h.memory.id === id);
      expect(off.find((h) => h.memory.id === ids[4])!.cosine).toBeGreaterThan(reply.cosine!);
      expect(rank(hits, ids[2]!)).toBeLessThan(rank(hits, ids[4]!));
      expect(rank(off, ids[2]!)).toBeGreaterThan(rank(off, ids[4]!));
      // Facts that are not conversation turns have no neighbours: the signal is absent.
      const facts = await openTestStore();
      try {
        await facts.rememberMany(['The standup is at 9:30', 'Bugs are tracked in Linear', 'We deploy on Fridays']);
        const [fact] = await facts.recall('when is the standup?', { explain: true, touch: false });
        expect(fact!.explain!.signals.find((s) => s.name === 'context')!.reason).toMatch(/No memory of the pool has conversation neighbours/);
      } finally {
        await facts.close();
      }
    } finally {
      await store.close();
    }
  });
});
