/**
 * `importChats`: a ChatGPT or Claude data export (its `conversations.json`, or the ChatGPT
 * export's zip) or a JSONL of messages, imported as episodic memories (#53 item 6). The export is
 * read and checked whole first (formats.ts; a malformed node or line is `INVALID_CHATS` naming it,
 * and nothing is written), turned into an `.ahkai` archive of its messages (rows.ts), and that
 * archive goes through the archive import: one journaled, undoable call, written batch by batch
 * with progress, rolled back whole on failure or cancel, a dry run for the preview, and the ids
 * derived from each message so that a second import of the same export skips what is there.
 */
import { createGzipWriter, gunzip } from '../archive/gzip.ts';
import { importArchive, type ArchiveSource, type ImportResult } from '../archive/store-ops.ts';
import { requireVectors, type Using } from '../context.ts';
import { describe } from '../domain/describe.ts';
import { checkBoolean, checkInteger, checkKnownKeys, checkObject, checkTags, checkTrust } from '../domain/validate.ts';
import { invalid, throwIfAborted } from '../errors.ts';
import type { ProgressEvent, Trust } from '../types.ts';
import { CHAT_FORMATS, chatError, readChats, type ChatFormat, type SpeakerNames } from './formats.ts';
import { chatArchiveLines, formatName, messageId } from './rows.ts';
import { looksLikeZip, readZipEntry } from './zip.ts';

export type ChatSource = ArchiveSource | string;

export interface ImportChatsOptions {
  /** The export's format; detected when absent (a zip or JSON list of conversations, else JSONL). */
  format?: ChatFormat;
  /** Names for the person's and the assistant's messages (ChatGPT, Claude exports): default `User`, and `ChatGPT` or `Claude`. */
  speakers?: SpeakerNames;
  /** Tags added to every message (besides `chat` and the format). */
  tags?: string[];
  /** Read, check and count what would be imported; write nothing (the preview). */
  dryRun?: boolean;
  /** The most trusted level a message is stored with (default `trusted`; a scoped connection imports at its ceiling). */
  maxTrust?: Trust;
  /** Messages written per transaction, default 500. */
  batchSize?: number;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

export interface ImportChatsResult extends ImportResult {
  format: ChatFormat;
  conversations: number;
  /** Messages read that hold words (each one a memory: `imported` new, `skipped` already there). */
  messages: number;
  /** Messages left out as holding nothing to remember (system, tool, hidden, empty, images only). */
  emptyMessages: number;
  /** The earliest and latest message (Unix seconds), or null for none. */
  from: number | null;
  to: number | null;
  speakers: string[];
}

const KEYS = new Set(['format', 'speakers', 'tags', 'dryRun', 'maxTrust', 'batchSize', 'signal', 'onProgress']);
/** The largest export read (its JSON is parsed whole). */
export const MAX_CHAT_EXPORT_BYTES = 512 * 2 ** 20;

/** The export's bytes, whatever it came as; its file name when it has one. */
async function bytesOf(source: ChatSource): Promise<{ bytes: Uint8Array; name: string | null }> {
  if (typeof source === 'string') return { bytes: new TextEncoder().encode(source), name: null };
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    if (source.size > MAX_CHAT_EXPORT_BYTES) throw chatError('file', `${source.size} bytes is more than the ${MAX_CHAT_EXPORT_BYTES} a chat import reads`);
    return { bytes: new Uint8Array(await source.arrayBuffer()), name: typeof File !== 'undefined' && source instanceof File && source.name ? source.name : null };
  }
  if (source instanceof ArrayBuffer) return { bytes: new Uint8Array(source), name: null };
  if (source instanceof Uint8Array) return { bytes: source, name: null };
  if (source && typeof (source as ReadableStream).getReader === 'function') return { bytes: new Uint8Array(await new Response(source as ReadableStream<Uint8Array>).arrayBuffer()), name: null };
  throw invalid(`source must be a File, Blob, ArrayBuffer, Uint8Array, ReadableStream or string — got ${describe(source)}`, { field: 'source' });
}

/** The export's text: a zip's `conversations.json` inflated, else the bytes as UTF-8. */
async function textOf(bytes: Uint8Array, signal: AbortSignal | undefined): Promise<string> {
  if (!looksLikeZip(bytes)) return new TextDecoder().decode(bytes);
  const { names, entry } = readZipEntry(bytes, (name) => /(^|\/)conversations\.json$/.test(name));
  if (!entry) throw chatError('zip', `no conversations.json in this zip (it holds ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''})`);
  if (entry.kind === 'stored') return new TextDecoder().decode(entry.data);
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of gunzip(entry.data, signal ? { signal } : {})) {
    total += chunk.data.length;
    if (total > MAX_CHAT_EXPORT_BYTES) throw chatError(entry.name, `inflates past the ${MAX_CHAT_EXPORT_BYTES} bytes a chat import reads`);
    parts.push(chunk.data);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return new TextDecoder().decode(out);
}

export async function importChats(ctx: Using<'imports' | 'rows'>, source: ChatSource, options?: ImportChatsOptions): Promise<ImportChatsResult> {
  requireVectors(ctx);
  const o = checkObject<ImportChatsOptions>(options, 'options');
  checkKnownKeys(o, KEYS, 'options');
  if (o.format !== undefined && !(CHAT_FORMATS as readonly unknown[]).includes(o.format)) throw invalid(`format must be one of: ${CHAT_FORMATS.join(', ')} — got ${describe(o.format)}`, { field: 'format' });
  const speakers = checkObject<SpeakerNames>(o.speakers, 'speakers');
  for (const key of ['user', 'assistant'] as const) {
    const name = speakers[key];
    if (name !== undefined && (typeof name !== 'string' || name.trim() === '' || /[\n:]/.test(name))) throw invalid(`speakers.${key} must be a name without a colon or line break — got ${describe(name)}`, { field: `speakers.${key}` });
  }
  const tags = o.tags === undefined ? [] : checkTags(o.tags);
  const dryRun = o.dryRun === undefined ? false : checkBoolean(o.dryRun, 'dryRun');
  const maxTrust = o.maxTrust === undefined ? undefined : checkTrust(o.maxTrust, 'maxTrust');
  const batchSize = o.batchSize === undefined ? undefined : checkInteger(o.batchSize, 'batchSize', 1, 10_000);

  const { bytes, name } = await bytesOf(source);
  throwIfAborted(o.signal);
  const text = await textOf(bytes, o.signal);
  throwIfAborted(o.signal);
  const parsed = readChats(text, { ...(o.format ? { format: o.format } : {}), names: speakers });
  const gzip = createGzipWriter({ level: 1 });
  const chunks: Uint8Array[] = [];
  for (const line of chatArchiveLines(parsed.format, parsed.messages, { tags, store: { embedderId: ctx.embedder.id, dim: ctx.embedder.dim }, now: ctx.clock.now() })) chunks.push(...gzip.write(`${line}\n`));
  chunks.push(...gzip.end());
  const label = name ?? `${formatName(parsed.format)} chats`;
  const archive = typeof File !== 'undefined' ? new File(chunks as BlobPart[], label) : new Blob(chunks as BlobPart[]);
  const result = await importArchive(ctx, archive, {
    onConflict: 'skip',
    dryRun,
    ...(maxTrust ? { maxTrust } : {}),
    ...(batchSize ? { batchSize } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  });
  // A row the archive import refused is named by the message it came from (by its line or its id).
  const byId = new Map(parsed.messages.map((m) => [messageId(parsed.format, m), m.where]));
  const errors = result.errors.map((e) => {
    const line = /^line:(\d+)$/.exec(e.where);
    const where = line ? parsed.messages[Number(line[1]) - 2]?.where : byId.get(e.where);
    return where ? { ...e, where } : e;
  });
  let from: number | null = null;
  let to: number | null = null;
  for (const m of parsed.messages) {
    if (from === null || m.time < from) from = m.time;
    if (to === null || m.time > to) to = m.time;
  }
  return {
    ...result,
    errors,
    format: parsed.format,
    conversations: parsed.conversations,
    messages: parsed.messages.length,
    emptyMessages: parsed.skipped,
    from,
    to,
    speakers: [...new Set(parsed.messages.map((m) => m.speaker))],
  };
}
