/**
 * Enforcement of a connection's scope, in one place: every call of a scoped connection (the
 * worker's RPC host, `scopeMemory` in process) goes through `scopedCall`, which applies the
 * row of `SCOPE_POLICY` for the method. See policy.ts for the rules.
 */
import { plainArguments } from '../domain/boundary.ts';
import { MemoryError, invalid } from '../errors.ts';
import type { MemoryApi } from '../api.ts';
import { lowerTrust, withinCeiling } from '../domain/trust.ts';
import { TRUST_LEVELS, type Trust } from '../types.ts';
import { namespaceTag, namespacedCall } from './namespace.ts';
import { CAPPED_CONFLICT_POLICIES, SCOPE_POLICY, type ApiMethod, type MethodPolicy } from './policy.ts';

/**
 * What a connection may do. `readOnly`: nothing that changes the store. `trust`: the most
 * trusted level it writes (below `trusted`, the rules of policy.ts apply). `namespace`: the tag
 * `ns:<namespace>` it lives in.
 */
export interface ConnectionScope {
  readOnly?: boolean;
  trust?: Trust;
  namespace?: string;
}

const SCOPE_KEYS = new Set(['readOnly', 'trust', 'namespace']);

/**
 * A scope as given by a caller, checked whole: a misspelled key (`readonly`) or an unknown trust
 * level must not silently open a wider connection than intended.
 * @throws MemoryError INVALID_ARGUMENT
 */
export function checkScope(value: unknown, field = 'scope'): ConnectionScope | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(`${field} must be an object`, { field });
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!SCOPE_KEYS.has(key)) throw invalid(`${field} has an unknown field ${JSON.stringify(key)}`, { field: `${field}.${key}` });
  }
  const scope: ConnectionScope = {};
  if (raw.readOnly !== undefined) {
    if (typeof raw.readOnly !== 'boolean') throw invalid(`${field}.readOnly must be a boolean`, { field: `${field}.readOnly` });
    if (raw.readOnly) scope.readOnly = true;
  }
  if (raw.trust !== undefined) {
    if (typeof raw.trust !== 'string' || !(TRUST_LEVELS as readonly string[]).includes(raw.trust)) {
      throw invalid(`${field}.trust must be one of: ${TRUST_LEVELS.join(', ')} — got ${JSON.stringify(raw.trust)}`, { field: `${field}.trust` });
    }
    scope.trust = raw.trust as Trust;
  }
  if (raw.namespace !== undefined) {
    namespaceTag(raw.namespace); // validates the name
    scope.namespace = raw.namespace as string;
  }
  return scope;
}

/**
 * The stricter of two scopes: read-only if either is, the less trusted ceiling, the imposed
 * namespace (a client cannot move to another one). The owner of a connection imposes one (an
 * extension's offscreen document, by who is on the other end) and the client may narrow it
 * further, never widen it.
 * @throws MemoryError INVALID_ARGUMENT for a malformed scope, PERMISSION_DENIED when the client asks for a namespace other than the imposed one.
 */
export function narrowScope(imposedScope: unknown, requestedScope: unknown): ConnectionScope | undefined {
  const imposed = checkScope(imposedScope, 'imposed scope');
  const requested = checkScope(requestedScope);
  if (!imposed) return requested;
  if (!requested) return imposed;
  const scope: ConnectionScope = {};
  if (imposed.readOnly || requested.readOnly) scope.readOnly = true;
  if (imposed.trust || requested.trust) scope.trust = lowerTrust(imposed.trust ?? 'trusted', requested.trust ?? 'trusted');
  if (imposed.namespace !== undefined && requested.namespace !== undefined && requested.namespace !== imposed.namespace) {
    throw new MemoryError('PERMISSION_DENIED', `This connection is scoped to the namespace ${JSON.stringify(imposed.namespace)}`, { field: 'scope.namespace' });
  }
  const namespace = imposed.namespace ?? requested.namespace;
  if (namespace !== undefined) scope.namespace = namespace;
  return scope;
}

function denied(method: string, why: string, details: Record<string, unknown> = {}): MemoryError {
  return new MemoryError('PERMISSION_DENIED', why, { method, ...details });
}

type Options = Record<string, unknown>;

/** A copy of the options argument; a non-object is left for the method's own validation to reject. */
function optionsAt(args: unknown[], i: number): Options | null {
  const value = args[i];
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  return { ...(value as Options) };
}

/** `requested` lowered to the ceiling; a value that is not a trust level is left for validation to reject. */
function capTrust(requested: unknown, ceiling: Trust): unknown {
  if (requested === undefined || (typeof requested === 'string' && (TRUST_LEVELS as readonly string[]).includes(requested))) {
    return lowerTrust(requested ?? 'trusted', ceiling);
  }
  return requested;
}

/**
 * Fields of one memory written below `trusted`: trust lowered to the ceiling (`fill`: a new
 * memory, whose default is `trusted`, gets the ceiling; an edit that names no trust keeps the
 * memory's), never pinned.
 */
function capFields(o: Options, ceiling: Trust, fill: boolean): Options {
  const out: Options = { ...o };
  if (fill || o.trust !== undefined) out.trust = capTrust(o.trust, ceiling);
  if (o.pinned === true) out.pinned = false;
  return out;
}

/**
 * Below `trusted` a write may report or queue its conflicts, or be refused for them, but never
 * change an existing memory: `supersede` (which supersedes or merges into existing memories) is
 * refused, and `remember` with no policy uses `warn`, not the store's default (which may be
 * `supersede`). `rememberMany`'s own default is `ignore`.
 */
function capConflict(method: string, value: unknown, ceiling: Trust, fallback: 'warn' | undefined): unknown {
  if (value === undefined) return fallback;
  if (value === 'supersede') {
    throw denied(method, `This connection writes at most ${ceiling} content: onConflict 'supersede' would change existing memories; use ${CAPPED_CONFLICT_POLICIES.map((p) => `'${p}'`).join(', ')}`, { field: 'onConflict' });
  }
  return value; // a valid capped policy, or garbage the store rejects
}

function capCreate(method: ApiMethod, policy: MethodPolicy, args: unknown[], ceiling: Trust): void {
  const at = policy.options!;
  const o = optionsAt(args, at);
  if (policy.items === undefined) {
    if (o) args[at] = { ...capFields(o, ceiling, true), onConflict: capConflict(method, o.onConflict, ceiling, 'warn') };
    return;
  }
  if (o && o.onConflict !== undefined) args[at] = { ...o, onConflict: capConflict(method, o.onConflict, ceiling, undefined) };
  const items = args[policy.items];
  if (!Array.isArray(items)) return; // the store rejects it
  args[policy.items] = items.map((item: unknown) => {
    if (typeof item === 'string') return { text: item, trust: ceiling };
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const fields = capFields(item as Options, ceiling, true);
    if (fields.onConflict !== undefined) fields.onConflict = capConflict(method, fields.onConflict, ceiling, undefined);
    return fields;
  });
}

/** The memories a `change` call would change that this ceiling may not touch. */
async function checkTargets(store: MemoryApi, method: ApiMethod, policy: MethodPolicy, args: unknown[], ceiling: Trust): Promise<void> {
  const ids = (policy.targets ?? []).map((i) => args[i]).filter((id): id is string => typeof id === 'string');
  const seen = new Set<string>();
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (seen.has(id)) continue;
    seen.add(id);
    const memory = await store.get(id);
    if (!memory) continue; // the method itself answers for a missing id
    if (!withinCeiling(memory.trust, ceiling) || memory.pinned) {
      const what = memory.pinned ? 'pinned' : `${memory.trust}`;
      throw denied(method, `This connection writes at most ${ceiling} content: it cannot change memory ${JSON.stringify(id)}, which is ${what}`, {
        id,
        reason: memory.pinned ? 'pinned' : 'trust',
      });
    }
    if (policy.supersession && i === 0 && memory.supersededBy) ids.push(memory.supersededBy);
  }
}

/**
 * Runs one call of a scoped connection: refuses what the scope forbids (PERMISSION_DENIED),
 * rewrites what it caps, checks the memories a change would touch, and (for a namespace)
 * filters what comes back. `run` performs the call with the final arguments.
 */
export async function scopedCall(
  store: MemoryApi,
  scope: ConnectionScope | undefined,
  method: ApiMethod,
  args: unknown[],
  run: (args: unknown[]) => Promise<unknown>,
): Promise<unknown> {
  if (!scope) return run(args);
  const policy = SCOPE_POLICY[method];
  if (!policy) throw invalid(`Unknown method ${JSON.stringify(method)}`, { field: 'method' });
  // Read once, as plain data (boundary.ts): a getter must not show the scope one value and the store another.
  const a = plainArguments(method, args);
  let access = policy.access;
  if (policy.adminWhen !== undefined && optionsAt(a, policy.options!)?.[policy.adminWhen] === true) access = 'admin';
  const ceiling = scope.trust !== undefined && scope.trust !== 'trusted' ? scope.trust : undefined;

  if (scope.readOnly && access !== 'read') {
    throw denied(method, `This connection is read-only: ${method}${access === 'admin' && policy.adminWhen ? ` with ${policy.adminWhen}` : ''} is not allowed`);
  }
  if (ceiling && access === 'admin') {
    throw denied(method, `This connection writes at most ${ceiling} content: ${method} needs a trusted connection`);
  }
  if (scope.readOnly && policy.touches) {
    const o = optionsAt(a, policy.options!);
    if (o) a[policy.options!] = { ...o, touch: false };
  }
  if (policy.records && (scope.readOnly || ceiling)) {
    // Not the owner's backup: no journal entry, and the backup reminder is not reset.
    const o = optionsAt(a, policy.options!);
    if (o) a[policy.options!] = { ...o, record: false };
  }
  if (ceiling && access === 'create') capCreate(method, policy, a, ceiling);
  if (ceiling && access === 'change' && policy.options !== undefined) {
    const o = optionsAt(a, policy.options);
    if (o) a[policy.options] = capFields(o, ceiling, false);
  }
  if (ceiling && access === 'import') {
    const o = optionsAt(a, policy.options!);
    if (o) {
      if (o.onConflict === 'overwrite') throw denied(method, `This connection writes at most ${ceiling} content: onConflict 'overwrite' would replace existing memories`, { field: 'onConflict' });
      a[policy.options!] = { ...o, maxTrust: capTrust(o.maxTrust, ceiling) };
    }
  }
  const guarded = ceiling && access === 'change' ? async (final: unknown[]) => (await checkTargets(store, method, policy, final, ceiling), run(final)) : run;
  // The namespace's checks come first, so an id outside it gets the namespace's answer.
  if (scope.namespace !== undefined) return namespacedCall(store, namespaceTag(scope.namespace), method, a, guarded);
  return guarded(a);
}

/**
 * The store as a connection with `scope` sees it, in process: the same rules as a scoped worker
 * connection. Closing the view ends the view (later calls fail with CLOSED), not the store.
 * @throws MemoryError INVALID_ARGUMENT for a malformed scope.
 */
export function scopeMemory(store: MemoryApi, scopeValue: ConnectionScope): MemoryApi {
  const scope = checkScope(scopeValue) ?? {};
  let closed = false;
  const view = {} as Record<string, unknown>;
  for (const method of Object.keys(SCOPE_POLICY) as ApiMethod[]) {
    view[method] = async (...args: unknown[]) => {
      if (closed) throw new MemoryError('CLOSED', 'This scoped view is closed');
      const fn = store[method] as (...a: unknown[]) => Promise<unknown>;
      return scopedCall(store, scope, method, args, (final) => fn.apply(store, final));
    };
  }
  view.close = async () => {
    closed = true;
  };
  return view as unknown as MemoryApi;
}
