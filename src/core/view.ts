/**
 * A view is the store as one actor sees it (journal attribution): the same operations over the
 * same context with another `actor`. The methods live on one prototype shared by every view,
 * each a call of its operation (`operations.ts`) with a context for that call, which collects
 * the ids the call changed.
 */
import type { MemoryApi, StoreMethod } from './api.ts';
import { plainArguments } from './domain/boundary.ts';
import { forCall, type StoreContext, type Using } from './context.ts';
import { invalid } from './errors.ts';
import { OPERATIONS } from './operations.ts';
import { checkActor } from './domain/validate.ts';

/** What one call did: its result, and the ids of the memories it changed. */
export interface CallOutcome<T = unknown> {
  value: T;
  changed: string[];
}

/** The store as one actor sees it. */
export interface StoreView extends MemoryApi {
  /** Calls `method` and also reports which memories it changed (the worker's change events). */
  call<M extends StoreMethod>(method: M, args: unknown[]): Promise<CallOutcome<Awaited<ReturnType<MemoryApi[M]>>>>;
  /** The same store with journal entries attributed to `actor` (e.g. 'ui', 'agent:planner'). */
  asActor(actor: string): StoreView;
  /** Hears of changes the store makes on its own, outside any call (live sync rounds); returns the unsubscribe. */
  watch(listener: (op: StoreMethod, ids: string[]) => void): () => void;
}

/** What every view of one store shares: the views by actor, and one close. */
export interface Shared {
  views: Map<string, StoreView>;
  close(): Promise<void>;
}

/** Calls that do not hold maintenance back (maintenance itself, and its status). */
const UNCOUNTED: ReadonlySet<StoreMethod> = new Set(['runMaintenance', 'maintenanceStatus']);

// Declaration merging: the operations' methods are put on the prototype below.
interface View extends MemoryApi {}
class View {
  readonly #ctx: StoreContext;
  readonly #shared: Shared;

  constructor(ctx: StoreContext, shared: Shared) {
    this.#ctx = ctx;
    this.#shared = shared;
  }

  /** One method call: a call context collects the ids it changes. */
  async call(method: StoreMethod, args: unknown[]): Promise<CallOutcome> {
    const ctx = forCall(this.#ctx);
    const value = await View.#run(ctx, method, args);
    return { value, changed: [...ctx.changes] };
  }

  asActor(actor: string): StoreView {
    return viewFor(this.#ctx, this.#shared, actor);
  }

  watch(listener: (op: StoreMethod, ids: string[]) => void): () => void {
    const { watchers } = this.#ctx.state;
    watchers.add(listener);
    return () => void watchers.delete(listener);
  }

  close(): Promise<void> {
    return this.#shared.close();
  }

  static async #run(ctx: StoreContext, method: StoreMethod, args: unknown[]): Promise<unknown> {
    const operation = OPERATIONS[method] as ((ctx: StoreContext, ...args: unknown[]) => Promise<unknown>) | undefined;
    if (typeof operation !== 'function') throw invalid(`Unknown method ${JSON.stringify(method)}`, { field: 'method' });
    // Arguments are read once, as plain data, before anything else (boundary.ts).
    const plain = plainArguments(method, args);
    const counted = !UNCOUNTED.has(method);
    if (counted) ctx.state.inFlight += 1;
    try {
      // What an earlier call left to write after answering lands first.
      if (ctx.state.behind) await ctx.state.behind;
      return await operation(ctx, ...plain);
    } finally {
      if (counted) ctx.state.inFlight -= 1;
    }
  }

  // The API's methods, once on the prototype: a direct call needs no list of what it changed.
  static {
    for (const method of Object.keys(OPERATIONS) as StoreMethod[]) {
      Object.defineProperty(View.prototype, method, {
        value: function (this: View, ...args: unknown[]) {
          return View.#run(this.#ctx, method, args);
        },
        writable: true,
        configurable: true,
      });
    }
  }
}

/** The store as seen by `actor` (cached; a new actor is validated once). */
export function viewFor(ctx: StoreContext, shared: Shared, actor: string): StoreView {
  const known = shared.views.get(actor);
  if (known) return known;
  const name = checkActor(actor);
  const view = new View({ ...ctx, actor: name }, shared) as unknown as StoreView;
  shared.views.set(name, view);
  return view;
}
