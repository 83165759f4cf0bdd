// @ts-check
/**
 * The change a file tool made, as lines of a diff, from its input (issue 34 point 8): Claude Code's
 * Edit (`old_string` → `new_string`), MultiEdit (`edits`, each the same), Write (`content`, every
 * line added). The hook payloads carry these, so a running or denied edit shows too. Pure, no DOM.
 */

/** @typedef {{ kind: 'add' | 'del' | 'ctx' | 'gap', text: string }} DiffLine */

/** Past this many lines on a side, no alignment is searched: all old lines out, all new lines in. */
const ALIGN_MAX_LINES = 400;

/** @param {string} text */
function linesOf(text) {
  const lines = text.split('\n');
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * A line diff of two texts: the longest common subsequence of lines kept as context, the rest
 * removed or added, in order.
 * @param {string} before
 * @param {string} after
 * @returns {DiffLine[]}
 */
export function lineDiff(before, after) {
  const a = before === '' ? [] : linesOf(before);
  const b = after === '' ? [] : linesOf(after);
  if (a.length > ALIGN_MAX_LINES || b.length > ALIGN_MAX_LINES) {
    return [...a.map((text) => /** @type {DiffLine} */ ({ kind: 'del', text })), ...b.map((text) => /** @type {DiffLine} */ ({ kind: 'add', text }))];
  }
  // common[i][j]: the longest common subsequence of a[i..] and b[j..]
  const common = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
  }
  /** @type {DiffLine[]} */
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: 'ctx', text: /** @type {string} */ (a[i]) });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || common[i + 1][j] >= common[i][j + 1])) {
      // removed lines before the lines that replace them, as diffs read
      out.push({ kind: 'del', text: /** @type {string} */ (a[i++]) });
    } else {
      out.push({ kind: 'add', text: /** @type {string} */ (b[j++]) });
    }
  }
  return out;
}

/** @param {unknown} value */
const str = (value) => (typeof value === 'string' ? value : null);

/**
 * The diff a file tool's input describes, or null for any other tool (or an input without the fields).
 * MultiEdit's edits are separated by a `gap` line.
 * @param {string} tool
 * @param {unknown} input
 * @returns {DiffLine[] | null}
 */
export function editDiff(tool, input) {
  if (input == null || typeof input !== 'object' || Array.isArray(input)) return null;
  const record = /** @type {Record<string, unknown>} */ (input);
  const oldText = str(record.old_string);
  const newText = str(record.new_string);
  if (oldText !== null && newText !== null) return lineDiff(oldText, newText);
  if (Array.isArray(record.edits)) {
    const edits = record.edits.flatMap((edit) => {
      const e = /** @type {Record<string, unknown>} */ (edit ?? {});
      const o = str(e.old_string);
      const n = str(e.new_string);
      return o === null || n === null ? [] : [lineDiff(o, n)];
    });
    return edits.length ? edits.flatMap((lines, k) => (k === 0 ? lines : [{ kind: /** @type {const} */ ('gap'), text: '⋯' }, ...lines])) : null;
  }
  const content = str(record.content);
  if (content !== null && (tool === 'Write' || str(record.file_path) !== null)) return lineDiff('', content);
  return null;
}
