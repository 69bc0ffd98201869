/**
 * Scheduled maintenance: decay pruning, TTL purge, trash retention, journal compaction and (optionally) reflection,
 * each on its own interval, run one tick at a time under an exclusive lock (Web Locks in
 * browsers, so two tabs or workers never run it at once), only when the store is idle, with a
 * bounded run history. Intervals survive restarts through the last-run times the caller persists.
 */
import { invalid } from '../errors.ts';
import { checkBoolean, checkKnownKeys, checkObject } from '../domain/validate.ts';

export type MaintenanceJob = 'decay' | 'purge' | 'trash' | 'reflect' | 'journal';

export const MAINTENANCE_JOBS: readonly MaintenanceJob[] = ['purge', 'decay', 'trash', 'reflect', 'journal'];

export interface MaintenanceConfig {
  enabled?: boolean;
  /** Seconds between runs of each job (reference defaults: decay 24 h, purge 24 h, reflect 7 d). */
  decayEvery?: number;
  purgeEvery?: number;
  trashEvery?: number;
  reflectEvery?: number;
  journalEvery?: number;
  /** Run decay pruning at all (default false: moving unused memories to the trash is the user's call). */
  decay?: boolean;
  /** Run reflection at all (default false, as the reference's `apply=false`). */
  reflect?: boolean;
  /** Compact the journal to the store's retention window (default true: it is what bounds its growth). */
  journal?: boolean;
  /** Trash entries older than this many days are purged (default 30). */
  trashTtlDays?: number;
  /** Seconds between ticks (default 300). */
  tickEvery?: number;
}

export const DEFAULT_MAINTENANCE: Required<MaintenanceConfig> = {
  enabled: true,
  decayEvery: 86_400,
  purgeEvery: 86_400,
  trashEvery: 86_400,
  reflectEvery: 7 * 86_400,
  journalEvery: 86_400,
  decay: false,
  reflect: false,
  journal: true,
  trashTtlDays: 30,
  tickEvery: 300,
};

export interface MaintenanceRun {
  job: MaintenanceJob;
  startedAt: number;
  finishedAt: number;
  ok: boolean;
  /** What the job did (e.g. `{ trashed: 3 }`) or the error message. */
  result: Record<string, unknown>;
}

export interface MaintenanceDeps {
  now(): number;
  /** Runs `fn` holding an exclusive lock named `name`, or returns false at once when it is held. */
  withLock(name: string, fn: () => Promise<void>): Promise<boolean>;
  /** True while user calls are in flight (maintenance waits for idle). */
  busy(): boolean;
  jobs: Record<MaintenanceJob, () => Promise<Record<string, unknown>>>;
  loadState(): Promise<Partial<Record<MaintenanceJob, number>>>;
  saveState(state: Partial<Record<MaintenanceJob, number>>): Promise<void>;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export function checkMaintenanceConfig(value: unknown): Required<MaintenanceConfig> {
  const raw = checkObject<MaintenanceConfig>(value, 'maintenance') as Record<string, unknown>;
  checkKnownKeys(raw, new Set(Object.keys(DEFAULT_MAINTENANCE)), 'maintenance');
  const out = { ...DEFAULT_MAINTENANCE };
  for (const key of Object.keys(DEFAULT_MAINTENANCE) as (keyof MaintenanceConfig)[]) {
    const v = raw[key];
    if (v === undefined) continue;
    if (key === 'enabled' || key === 'reflect' || key === 'decay' || key === 'journal') (out[key] as boolean) = checkBoolean(v, `maintenance.${key}`);
    else if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw invalid(`maintenance.${key} must be a positive number`, { field: `maintenance.${key}` });
    else (out[key] as number) = v;
  }
  return out;
}

export class MaintenanceScheduler {
  private timer: unknown;
  private running = false;
  private readonly history: MaintenanceRun[] = [];
  private last: Partial<Record<MaintenanceJob, number>> = {};
  private loaded = false;

  constructor(
    private readonly name: string,
    private readonly config: Required<MaintenanceConfig>,
    private readonly deps: MaintenanceDeps,
  ) {}

  start(): void {
    if (!this.config.enabled || this.timer !== undefined) return;
    const loop = (): void => {
      this.timer = this.deps.setTimer(() => {
        void this.tick().finally(loop);
      }, this.config.tickEvery * 1000);
    };
    loop();
  }

  stop(): void {
    if (this.timer !== undefined) this.deps.clearTimer(this.timer);
    this.timer = undefined;
  }

  /** Jobs whose interval has elapsed, in a fixed order. */
  due(now: number): MaintenanceJob[] {
    const every: Record<MaintenanceJob, number> = {
      purge: this.config.purgeEvery,
      decay: this.config.decayEvery,
      trash: this.config.trashEvery,
      reflect: this.config.reflectEvery,
      journal: this.config.journalEvery,
    };
    const on: Record<MaintenanceJob, boolean> = { purge: true, decay: this.config.decay, trash: true, reflect: this.config.reflect, journal: this.config.journal };
    return MAINTENANCE_JOBS.filter((job) => on[job] && now - (this.last[job] ?? 0) >= every[job]);
  }

  /**
   * One tick: when idle, take the lock (skip if another tab or worker holds it) and run every
   * due job. Returns the runs it made ([] when skipped).
   */
  async tick(options: { force?: MaintenanceJob[] } = {}): Promise<MaintenanceRun[]> {
    if (this.running || (this.deps.busy() && !options.force)) return [];
    this.running = true;
    const runs: MaintenanceRun[] = [];
    try {
      if (!this.loaded) {
        this.last = { ...(await this.deps.loadState()) };
        this.loaded = true;
      }
      await this.deps.withLock(`houkai-web:maintenance:${this.name}`, async () => {
        const jobs = options.force ?? this.due(this.deps.now());
        for (const job of jobs) {
          const startedAt = this.deps.now();
          let run: MaintenanceRun;
          try {
            run = { job, startedAt, finishedAt: 0, ok: true, result: await this.deps.jobs[job]() };
          } catch (error) {
            run = { job, startedAt, finishedAt: 0, ok: false, result: { error: (error as Error).message } };
          }
          run.finishedAt = this.deps.now();
          this.last[job] = run.finishedAt;
          runs.push(run);
          this.history.push(run);
          if (this.history.length > 100) this.history.shift();
        }
        if (runs.length) await this.deps.saveState(this.last);
      });
    } finally {
      this.running = false;
    }
    return runs;
  }

  status(): { enabled: boolean; running: boolean; lastRun: Partial<Record<MaintenanceJob, number>>; history: MaintenanceRun[]; config: Required<MaintenanceConfig> } {
    return { enabled: this.config.enabled, running: this.running, lastRun: { ...this.last }, history: [...this.history], config: { ...this.config } };
  }
}

/** An exclusive, non-waiting lock from Web Locks where available, else in-process. */
export function defaultLock(): MaintenanceDeps['withLock'] {
  const held = new Set<string>();
  const locks = (globalThis as { navigator?: { locks?: { request: (name: string, opts: object, cb: (lock: unknown) => Promise<void>) => Promise<void> } } }).navigator?.locks;
  return async (name, fn) => {
    if (locks) {
      let ran = false;
      await locks.request(name, { ifAvailable: true }, async (lock) => {
        if (!lock) return;
        ran = true;
        await fn();
      });
      return ran;
    }
    if (held.has(name)) return false;
    held.add(name);
    try {
      await fn();
      return true;
    } finally {
      held.delete(name);
    }
  };
}
