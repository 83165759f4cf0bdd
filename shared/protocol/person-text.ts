/**
 * The one rule for text a person writes to an agent (a message, a denied approval's reason, an
 * answer to its question): it reaches the agent as the person's words, so it must read the same on
 * the page as in the agent's input. Refused, naming the character and where: control characters
 * other than newline and tab (terminal escapes), lone surrogates, and the invisible or reordering
 * characters that make the page show other text than the agent reads (issue 33.6; docs/security.md).
 */
import { z } from 'zod';

/** Control characters other than newline and tab, and lone surrogates. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;

/**
 * Bidi embeddings, overrides and isolates (U+202A–202E, U+2066–2069), zero-width and direction
 * marks (U+200B–200F, the Arabic letter mark U+061C), the word joiner and invisible operators
 * (U+2060–2064), the BOM (U+FEFF), Unicode tag characters (U+E0000–E007F), and the other characters
 * that show as nothing: the soft hyphen (U+00AD), the combining grapheme joiner (U+034F), the
 * Mongolian vowel separator (U+180E), the Khmer inherent vowels (U+17B4–17B5), the Hangul fillers
 * (U+115F, U+1160, U+3164, U+FFA0) and the interlinear annotation marks (U+FFF9–FFFB, which hide
 * the text between them). A zero-width joiner between two pictographs is an emoji sequence (👩‍💻), kept.
 */
const INVISIBLE = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}]|(?<!\p{Extended_Pictographic}[\ufe0f\u{1f3fb}-\u{1f3ff}]?)\u200d|\u200d(?!\p{Extended_Pictographic})/u;

function describe(text: string, index: number): string {
  const point = text.codePointAt(index)!;
  return `U+${point.toString(16).toUpperCase().padStart(4, '0')} at character ${index}`;
}

/** What is wrong with a person's text for an agent, or undefined. */
export function personTextProblem(text: string): string | undefined {
  const control = CONTROL.exec(text);
  if (control) return `must not contain control characters other than newline and tab, or lone surrogates (${describe(text, control.index)})`;
  const invisible = INVISIBLE.exec(text);
  if (invisible) {
    return `must not contain invisible or reordering characters (bidi controls, zero-width characters, fillers, soft hyphens, tag characters): the page would show other text than the agent reads (${describe(text, invisible.index)})`;
  }
  return undefined;
}

/** A string checked by `personTextProblem`; its length or size is the caller's schema's. */
export function personText<T extends z.ZodType<string>>(schema: T) {
  return schema.superRefine((text, ctx) => {
    const problem = personTextProblem(text);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });
}
