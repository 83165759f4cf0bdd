import { z } from 'zod';

/**
 * C0 and C1 control characters (NUL, newlines, escapes…) and UTF-16 surrogates without their pair:
 * never part of a name a person reads or a log line keeps whole, and lone surrogates do not survive
 * a round trip through UTF-8 (the database, JSON on the wire).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSAFE_TEXT_MESSAGE = 'must not contain control characters (NUL, newlines, tabs…) or lone surrogates';

/** True when `text` holds nothing `UNSAFE`. */
export function isPrintableText(text: string): boolean {
  return !UNSAFE.test(text);
}

/**
 * An identifier or name given by a client (sid, tag, flavor, requestId, promptId, …): 1 to `max`
 * UTF-16 code units, none of them a control character or a lone surrogate (`invalid_payload`).
 */
export function idSchema(max: number) {
  return z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine(isPrintableText, UNSAFE_TEXT_MESSAGE);
}
