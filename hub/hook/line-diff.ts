/**
 * A line diff for `hook install --write` to show what it changes in a user's file before it writes
 * (configuration files are small: a plain longest-common-subsequence table is enough; past a size
 * where that table would be large, the old and new texts are shown whole).
 */
const MAX_CELLS = 4_000_000;

/** `-` lines removed, `+` lines added, `  ` lines kept (only the ones within 2 lines of a change). */
export function lineDiff(before: string, after: string): string[] {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const b = after === '' ? [] : after.replace(/\n$/, '').split('\n');
  if (a.length * b.length > MAX_CELLS) return [...a.map((l) => `- ${l}`), ...b.map((l) => `+ ${l}`)];
  // lcs[i][j]: the common subsequence length of a[i..] and b[j..]
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const lines: { mark: string; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) lines.push({ mark: ' ', text: a[i++]! }), j++;
    else if (j < b.length && (i === a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) lines.push({ mark: '+', text: b[j++]! });
    else lines.push({ mark: '-', text: a[i++]! });
  }
  const near = (index: number) => lines.slice(Math.max(0, index - 2), index + 3).some((l) => l.mark !== ' ');
  return lines.flatMap((line, index) => (line.mark !== ' ' || near(index) ? [`${line.mark} ${line.text}`] : []));
}
