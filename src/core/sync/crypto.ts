/**
 * End-to-end encryption of replicated documents (#31, #49), on WebCrypto (browsers, workers and
 * Node alike): AES-GCM with a fresh random 96-bit IV per write and, as additional data, what the
 * server must not change (encrypted-replica.ts: the document's id, its revision's generation, its
 * writer and whether it is a memory, a forget or a prune), under a key derived from
 * a passphrase with PBKDF2-SHA-256 at OWASP's current 600,000 iterations and a random 16-byte salt,
 * or under a `CryptoKey` the caller holds. What a key entry keeps on the server — its id, the
 * salt, the iteration count and a check ciphertext — lets a device tell a right passphrase from a
 * wrong one without any document.
 */
import { MemoryError, invalid } from '../errors.ts';
import { fromBase64, toBase64 } from './base64.ts';

/** OWASP's Password Storage Cheat Sheet (2023–): PBKDF2-HMAC-SHA256 at 600,000 iterations. */
export const PBKDF2_ITERATIONS = 600_000;
/**
 * Bounds on what a key entry read from a server may ask of this device, checked before any
 * derivation: a hostile entry asking 10 million iterations once cost 26 s of CPU before it was
 * found wrong. The upper bound leaves room to raise the default (about 1.5 s at 600,000 on the
 * machines this is measured on, so at most about 3 s).
 */
export const MIN_ITERATIONS = 100_000;
export const MAX_ITERATIONS = 1_200_000;
const SALT_BYTES = 16;
const IV_BYTES = 12;
/** What a key entry's check ciphertext holds. */
const CHECK_TEXT = 'houkai key check v1';
export const MIN_PASSPHRASE = 8;
const MAX_PASSPHRASE = 1_024;

/** What the caller holds: a passphrase, or an AES-GCM key. */
export type SyncSecret = { passphrase: string } | { key: CryptoKey };

/** A key as the server knows it: no key material, only what checks one. */
export interface KeyEntry {
  /** Random; every document sealed under this key names it (`enc.k`). */
  id: string;
  /** How a passphrase becomes this key; null for a key the caller held. */
  kdf: { name: 'PBKDF2'; hash: 'SHA-256'; iterations: number; salt: string } | null;
  /** `CHECK_TEXT` sealed under the key, with the entry's id as additional data. */
  check: Sealed;
}

/**
 * A sealed value: the key's id, the IV and the ciphertext with its tag, in base64; `f` the seal's
 * format (absent: the first, bound to the document's id only; 2: bound to its id, generation,
 * writer and state).
 */
export interface Sealed {
  k: string;
  iv: string;
  ct: string;
  f?: 2;
}

/** An opened key: the material and the id documents name it by. */
export interface OpenKey {
  id: string;
  key: CryptoKey;
}

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new MemoryError('INVALID_ARGUMENT', 'End-to-end encryption needs WebCrypto (crypto.subtle), which this context does not offer (an insecure http: page?)', { field: 'encryption' });
  return s;
}

const bytes = (n: number): Uint8Array<ArrayBuffer> => globalThis.crypto.getRandomValues(new Uint8Array(n));
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A random id for a key entry (hex). */
function newKeyId(): string {
  return [...bytes(12)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The caller's secret, checked: a passphrase of 8 to 1,024 characters, or an AES-GCM key that encrypts and decrypts. */
export function checkSecret(value: unknown, field: string): SyncSecret {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(`${field} must be { passphrase } or { key }`, { field });
  const v = value as Record<string, unknown>;
  if ('passphrase' in v) {
    const p = v.passphrase;
    if (typeof p !== 'string' || p.length < MIN_PASSPHRASE || p.length > MAX_PASSPHRASE) {
      throw invalid(`${field}.passphrase must be a string of ${MIN_PASSPHRASE} to ${MAX_PASSPHRASE} characters`, { field: `${field}.passphrase` });
    }
    return { passphrase: p };
  }
  const key = v.key as CryptoKey | undefined;
  const algorithm = key?.algorithm as { name?: string } | undefined;
  if (!key || typeof key !== 'object' || algorithm?.name !== 'AES-GCM' || !key.usages?.includes('encrypt') || !key.usages.includes('decrypt')) {
    throw invalid(`${field}.key must be an AES-GCM CryptoKey usable to encrypt and decrypt`, { field: `${field}.key` });
  }
  return { key };
}

async function derive(passphrase: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<CryptoKey> {
  const s = subtle();
  const material = await s.importKey('raw', utf8.encode(passphrase.normalize('NFC')), 'PBKDF2', false, ['deriveKey']);
  return s.deriveKey({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, material, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

/** Seals `value` (as JSON) under `key`, bound to `context` (what the reader must see unchanged); `format` is recorded beside it. */
export async function seal(key: OpenKey, context: string, value: unknown, format?: 2): Promise<Sealed> {
  const iv = bytes(IV_BYTES);
  const ct = await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: utf8.encode(context) }, key.key, utf8.encode(JSON.stringify(value)));
  return { k: key.id, iv: toBase64(iv), ct: toBase64(new Uint8Array(ct)), ...(format === undefined ? {} : { f: format }) };
}

/**
 * Opens a sealed value bound to `context`.
 * @throws when it was not sealed under this key for this context, or was altered.
 */
export async function unseal(key: CryptoKey, context: string, sealed: Sealed): Promise<unknown> {
  const iv = fromBase64(sealed.iv);
  const ct = fromBase64(sealed.ct);
  if (!iv || iv.length !== IV_BYTES || !ct) throw new Error('not a sealed value');
  const plain = await subtle().decrypt({ name: 'AES-GCM', iv, additionalData: utf8.encode(context) }, key, ct);
  return JSON.parse(fromUtf8.decode(plain));
}

/** A new key entry for a secret: the entry to publish and the key it describes. */
export async function newEntry(secret: SyncSecret): Promise<{ entry: KeyEntry; key: OpenKey }> {
  const id = newKeyId();
  let kdf: KeyEntry['kdf'] = null;
  let material: CryptoKey;
  if ('passphrase' in secret) {
    const salt = bytes(SALT_BYTES);
    kdf = { name: 'PBKDF2', hash: 'SHA-256', iterations: PBKDF2_ITERATIONS, salt: toBase64(salt) };
    material = await derive(secret.passphrase, salt, PBKDF2_ITERATIONS);
  } else material = secret.key;
  const key = { id, key: material };
  return { entry: { id, kdf, check: await seal(key, `key:${id}`, CHECK_TEXT) }, key };
}

/** The key an entry describes when `secret` is the one it was made with; null otherwise. */
export async function openEntry(entry: KeyEntry, secret: SyncSecret): Promise<OpenKey | null> {
  let material: CryptoKey;
  if ('passphrase' in secret) {
    if (!entry.kdf) return null;
    material = await derive(secret.passphrase, fromBase64(entry.kdf.salt)!, entry.kdf.iterations);
  } else material = secret.key;
  try {
    return (await unseal(material, `key:${entry.id}`, entry.check)) === CHECK_TEXT ? { id: entry.id, key: material } : null;
  } catch {
    return null;
  }
}

/** A key entry as a server holds it, checked (a server is not trusted to be well-formed or modest). */
export function checkEntry(value: unknown): KeyEntry | null {
  if (value === null || typeof value !== 'object') return null;
  const e = value as Record<string, unknown>;
  if (typeof e.id !== 'string' || !/^[0-9a-f]{8,64}$/.test(e.id)) return null;
  const check = checkSealed(e.check);
  if (!check) return null;
  if (e.kdf === null) return { id: e.id, kdf: null, check };
  const kdf = e.kdf as Record<string, unknown> | undefined;
  if (!kdf || kdf.name !== 'PBKDF2' || kdf.hash !== 'SHA-256' || typeof kdf.salt !== 'string') return null;
  const salt = fromBase64(kdf.salt);
  const n = kdf.iterations;
  if (!salt || salt.length < SALT_BYTES || salt.length > 64) return null;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < MIN_ITERATIONS || n > MAX_ITERATIONS) return null;
  return { id: e.id, kdf: { name: 'PBKDF2', hash: 'SHA-256', iterations: n, salt: kdf.salt }, check };
}

/** A sealed value's shape, or null. */
export function checkSealed(value: unknown): Sealed | null {
  if (value === null || typeof value !== 'object') return null;
  const s = value as Record<string, unknown>;
  if (typeof s.k !== 'string' || typeof s.iv !== 'string' || typeof s.ct !== 'string' || s.k.length > 64 || s.iv.length > 64) return null;
  if (s.f !== undefined && s.f !== 2) return null;
  return { k: s.k, iv: s.iv, ct: s.ct, ...(s.f === 2 ? { f: 2 as const } : {}) };
}
