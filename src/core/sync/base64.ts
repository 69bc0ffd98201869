/**
 * Base64 (RFC 4648, with padding): vectors and ciphertexts travel in replicated documents this
 * way. Decoding goes through `atob`'s binary string (one char per byte, never beyond Latin-1).
 */

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Written out: faster than `btoa` over a binary string for vectors' sizes. */
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += BASE64[n >> 18]! + BASE64[(n >> 12) & 63]! + BASE64[(n >> 6) & 63]! + BASE64[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += `${BASE64[n >> 18]!}${BASE64[(n >> 12) & 63]!}==`;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += `${BASE64[n >> 18]!}${BASE64[(n >> 12) & 63]!}${BASE64[(n >> 6) & 63]!}=`;
  }
  return out;
}

const SHAPE = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of a base64 text, or null when it is not one (`atob`, native: 20× the loop's speed). */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (text.length % 4 !== 0 || !SHAPE.test(text)) return null;
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
