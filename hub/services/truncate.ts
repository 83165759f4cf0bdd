import { utf8ByteLength } from '../../shared/protocol/json.js';

/** Cuts text to at most maxBytes of UTF-8 at a character boundary (never inside a surrogate pair). */
export function truncateUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (text.length <= maxBytes / 3 || utf8ByteLength(text) <= maxBytes) return { text, truncated: false };
  const cut = Buffer.from(text, 'utf8').subarray(0, maxBytes).toString('utf8');
  // a multi-byte character split at the cut decodes to U+FFFD: drop it
  return { text: cut.endsWith('\uFFFD') && !text.startsWith(cut) ? cut.slice(0, -1) : cut, truncated: true };
}

/** Tool inputs and outputs: a non-string value is measured (and, when cut, stored) as its JSON text. */
export function truncateJsonField<T>(value: T, maxBytes: number): { value: T | string; truncated: boolean } {
  if (value === undefined || value === null) return { value, truncated: false };
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (utf8ByteLength(text) <= maxBytes) return { value, truncated: false };
  return { value: truncateUtf8(text, maxBytes).text, truncated: true };
}
