/**
 * How deep a JSON text nests, read on the text itself before it is parsed (issue 33.1): one loop
 * over the characters, no recursion and no allocation, so a body nested 100,000 levels deep is
 * refused in the time it takes to read it, before anything walks the parsed value. No imports:
 * the hook bridge's bundle uses it too.
 */
import { LIMITS } from './limits.js';

/**
 * Open brackets a JSON document may hold at once: its root and `maxJsonDepth` levels below it, the
 * rule `findJsonProblem` applies to the parsed value (a value deeper than `maxJsonDepth` below the
 * root is refused). Anything this scan refuses that walk would refuse too; it only answers sooner.
 */
export const DOCUMENT_LEVELS = LIMITS.maxJsonDepth + 1;

/** An HTTP body: a document's levels plus the levels the body wraps it in (`LIMITS.maxEnvelopeDepth`). */
export const BODY_LEVELS = DOCUMENT_LEVELS + LIMITS.maxEnvelopeDepth;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * The offset of the first `[` or `{` that opens level `maxLevels + 1`, or undefined when the text
 * never nests that deep. Brackets inside strings do not count. Invalid JSON is not judged here:
 * JSON.parse says what is wrong with it.
 */
export function nestingPastLimit(text: string, maxLevels: number): number | undefined {
  let level = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++level > maxLevels) return i;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) level--;
  }
  return undefined;
}

/** The clear refusal of a text nested past `maxLevels`, or undefined when it is not. */
export function nestingProblem(text: string, maxLevels: number, what: string): string | undefined {
  const at = nestingPastLimit(text, maxLevels);
  if (at === undefined) return undefined;
  return `${what} nests deeper than ${maxLevels} levels of arrays and objects (at character ${at}): a JSON document may nest at most ${LIMITS.maxJsonDepth} levels below its root`;
}
