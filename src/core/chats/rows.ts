/**
 * Chat messages as `.ahkai` rows (pure): each message an episodic memory whose text is its
 * transcript line (`Speaker: words`, which recall reads for who said it), stored at the time it was
 * said, with its conversation as the source (recall joins a turn's neighbours of one source) and
 * tags `chat` and the format. Its id is a hash of the format, the conversation and the message's
 * own id (or its time, speaker and words when the export has no id), so a second import of the same
 * export finds every message already there and skips it.
 */
import { serializeHeader } from '../archive/format.ts';
import { MAX_SOURCE_LENGTH } from '../domain/validate.ts';
import type { ChatFormat, ChatMessage } from './formats.ts';

const FORMAT_NAMES: Record<ChatFormat, string> = { chatgpt: 'ChatGPT', claude: 'Claude', jsonl: 'chat' };
export const formatName = (format: ChatFormat): string => FORMAT_NAMES[format];

/** 64 bits of FNV-1a over the key's UTF-16 units (two 32-bit lanes), as 16 hex digits. */
function hash64(key: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c ^ (a >>> 13), 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

export function messageId(format: ChatFormat, m: ChatMessage): string {
  const own = m.messageId ?? `${m.time}\u0000${m.speaker}\u0000${m.text}`;
  return `chat-${format}-${hash64(`${format}\u0000${m.conversation}\u0000${own}`)}`;
}

/** The source naming a message's conversation: its title (or id) and a short id, within the source limit. */
export function conversationSource(format: ChatFormat, m: ChatMessage): string {
  const label = `${formatName(format)}: ${m.title ?? m.conversation}`;
  const tail = m.title !== null && m.title !== m.conversation ? ` [${m.conversation.slice(0, 8)}]` : '';
  return (label.length + tail.length > MAX_SOURCE_LENGTH ? label.slice(0, MAX_SOURCE_LENGTH - tail.length - 1) + '…' : label) + tail;
}

export interface ChatRowOptions {
  /** Tags added to every message (besides `chat` and the format). */
  tags?: readonly string[];
  store: { embedderId: string; dim: number };
  now: number;
}

/** The archive's lines: a header (no vectors: the import embeds the texts), then one row a message. */
export function* chatArchiveLines(format: ChatFormat, messages: readonly ChatMessage[], options: ChatRowOptions): Generator<string> {
  yield serializeHeader({
    exportedAt: options.now,
    collection: `${format}-chats`,
    embeddingModel: options.store.embedderId,
    embeddingDim: options.store.dim,
    count: messages.length,
    includeVectors: false,
    includeSuperseded: false,
    types: null,
    tags: null,
    since: null,
  });
  const tags = [...new Set(['chat', format, ...(options.tags ?? [])])];
  for (const m of messages) {
    const id = messageId(format, m);
    const text = `${m.speaker}: ${m.text}`;
    yield JSON.stringify({ id, text, meta: { id, text, type: 'episodic', tags, created_at: m.time, last_accessed: m.time, source: conversationSource(format, m) } });
  }
}
