/**
 * Scope escapes, enumerated: every store method attempted through a read-only, an untrusted, a
 * namespaced and an untrusted namespaced connection (what a content script gets), in process
 * (`scopeMemory`) and through the worker's RPC host. After each attempt the owner's store is
 * compared with its state before: any change a scope forbids (or, in a namespace, any memory
 * from outside in the answer) is an escape. Prints the counts; asserts there are none.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SCOPE_POLICY, scopeMemory, type ApiMethod, type ConnectionScope } from '../../src/core/scope/index.ts';
import type { MemoryApi } from '../../src/local.ts';
import { attempts } from './attempts.ts';
import { buildFixture, fingerprint, rpcClient, violations } from './fixture.ts';

const SCOPES: Record<string, ConnectionScope> = {
  'read-only': { readOnly: true },
  untrusted: { trust: 'untrusted' },
  reported: { trust: 'reported' },
  'namespace web': { namespace: 'web' },
  'untrusted in web': { trust: 'untrusted', namespace: 'web' },
};

interface Tally {
  attempts: number;
  refused: number;
  escapes: string[];
  methods: Set<ApiMethod>;
}
const tallies = new Map<string, Tally>();

afterAll(() => {
  const rows = [...tallies].map(([key, t]) => `${key.padEnd(34)} ${String(t.attempts).padStart(4)} attempts ${String(t.refused).padStart(4)} refused ${String(t.escapes.length).padStart(3)} escapes`);
  const total = [...tallies.values()].reduce((s, t) => s + t.attempts, 0);
  const escapes = [...tallies.values()].reduce((s, t) => s + t.escapes.length, 0);
  console.log(`scope-escape attempts\n${rows.join('\n')}\nTOTAL ${total} attempts, ${escapes} escapes`);
});

describe.each(['in process', 'rpc host'])('scope escapes %s', (surface) => {
  it.each(Object.keys(SCOPES))('%s: every method attempted, nothing escapes', async (scopeName) => {
    const scope = SCOPES[scopeName]!;
    const fx = await buildFixture();
    const cleanups: (() => unknown)[] = [];
    try {
      const connection: MemoryApi = surface === 'in process' ? scopeMemory(fx.owner, scope) : await rpcClient(fx.owner, scope, cleanups);
      const tally: Tally = { attempts: 0, refused: 0, escapes: [], methods: new Set() };
      tallies.set(`${surface} / ${scopeName}`, tally);
      for (const attempt of attempts(fx)) {
        const before = await fingerprint(fx.owner);
        let result: unknown;
        try {
          result = await attempt.run(connection);
        } catch (error) {
          if ((error as { code?: string }).code === 'PERMISSION_DENIED') tally.refused += 1;
        }
        const after = await fingerprint(fx.owner);
        tally.attempts += 1;
        tally.methods.add(attempt.method);
        const found = violations(scope, before, after, result);
        if (found.length) tally.escapes.push(`${attempt.method} (${attempt.label}): ${found.join('; ')}`);
      }
      // Every method of the API was attempted.
      expect([...tally.methods].sort()).toEqual((Object.keys(SCOPE_POLICY) as ApiMethod[]).sort());
      expect(tally.escapes).toEqual([]);
    } finally {
      for (const c of cleanups) await c();
      await fx.owner.close();
    }
  });
});
