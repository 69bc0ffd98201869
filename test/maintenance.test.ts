import { describe, expect, it } from 'vitest';
import { MaintenanceScheduler, checkMaintenanceConfig, defaultLock } from '../src/core/services/maintenance.ts';
import { manualClock, openTestStore } from './helpers/store.ts';

describe('maintenance', () => {
  it('runs due jobs on their intervals, keeps a history, and persists last-run times', async () => {
    const clock = manualClock(1_700_000_000);
    const store = await openTestStore({ clock, maintenance: { enabled: true, decay: true, tickEvery: 3600 } });
    await store.remember('short lived', { expiresAt: clock.now() + 10 });
    clock.advance(20);
    const first = await store.runMaintenance();
    expect(first.map((r) => r.job)).toEqual(['purge', 'decay', 'trash', 'journal']);
    expect(first[0]).toMatchObject({ ok: true, result: { purged: 1 } });
    expect(await store.runMaintenance()).toEqual([]); // nothing due an instant later
    clock.advance(86_401);
    expect((await store.runMaintenance()).length).toBe(4);
    expect((await store.maintenanceStatus()).history.length).toBe(8);
    await expect(store.runMaintenance(['nope' as never])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await store.close();
  });

  it('never runs two ticks at once, and skips when the lock is held elsewhere', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runs: string[] = [];
    const lock = defaultLock();
    const make = () =>
      new MaintenanceScheduler('s', checkMaintenanceConfig({ decay: true }), {
        now: () => 10_000_000,
        withLock: lock,
        busy: () => false,
        jobs: {
          decay: async () => (runs.push('decay'), await gate, {}),
          purge: async () => (runs.push('purge'), {}),
          trash: async () => ({}),
          reflect: async () => ({}),
          journal: async () => ({}),
        },
        loadState: async () => ({}),
        saveState: async () => undefined,
        setTimer: () => 0,
        clearTimer: () => undefined,
      });
    const a = make();
    const b = make();
    const running = a.tick();
    await new Promise((r) => setTimeout(r, 10));
    expect(await b.tick()).toEqual([]); // the other "tab" finds the lock held
    expect(await a.tick()).toEqual([]); // and the same scheduler does not re-enter
    release();
    expect((await running).map((r) => r.job)).toEqual(['purge', 'decay', 'trash', 'journal']);
    expect(runs).toEqual(['purge', 'decay']);
  });
});
