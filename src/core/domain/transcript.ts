/**
 * Transcript lines: a memory that records a turn of a conversation names its speaker first —
 * `Caroline said, "I went to a support group yesterday."`, `Jon: Thanks!`, optionally after a
 * date in brackets (`(1:56 pm on 8 May, 2023) Caroline said, "…"`). This reads the speaker and the
 * words said, so that recall can match a name in a question against who said a turn, and the
 * conflict rules compare what was said rather than the frame around it. Pure.
 */

export interface TranscriptLine {
  /** The speaker as written (`Caroline`), or null when the text is not a transcript line. */
  speaker: string | null;
  /** The words said (quotes removed), or the whole text when it is not a transcript line. */
  body: string;
}

const NAME = String.raw`\p{Lu}[\p{L}\p{M}'’.-]{0,40}(?: \p{Lu}[\p{L}\p{M}'’.-]{0,40}){0,2}`;
const VERBS = 'said|says|asked|asks|replied|replies|answered|answers|wrote|writes|added|adds|shared|shares|told|tells';
const DATE_PREFIX = String.raw`^\s*(?:[(\[][^)\]]{1,80}[)\]]\s*)?`;
const SAID = new RegExp(`${DATE_PREFIX}(${NAME}) (?:${VERBS})(?: [a-z]+)?\\s*[,:]?\\s*(.*)$`, 'su');
const COLON = new RegExp(`${DATE_PREFIX}(${NAME}):\\s+(.*)$`, 'su');
const QUOTES = /^["“”'‘’]+|["“”'‘’]+$/gu;

/** Words that open a sentence with a capital but are not speakers ("Note: …", "Update: …"). */
const NOT_SPEAKERS = new Set(['note', 'update', 'todo', 'fyi', 'reminder', 'warning', 'important', 'tip', 'summary', 'question', 'answer', 'q', 'a', 're']);

/** Reads a transcript line (see the module comment). */
export function readTranscriptLine(text: string): TranscriptLine {
  const m = SAID.exec(text) ?? COLON.exec(text);
  if (!m || NOT_SPEAKERS.has(m[1]!.toLowerCase())) return { speaker: null, body: text };
  const body = m[2]!.trim().replace(QUOTES, '').trim();
  return body === '' ? { speaker: null, body: text } : { speaker: m[1]!, body };
}
