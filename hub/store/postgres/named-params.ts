import type { Params } from '../sql.js';

/** A query with its `@name` parameters rewritten to PostgreSQL's `$1..$n`. */
export interface Positional {
  readonly text: string;
  /** names[i] is the parameter bound to `$${i + 1}`; a name used twice gets one position. */
  readonly names: readonly string[];
}

/**
 * Rewrites `@name` to `$n`, skipping string literals, quoted identifiers and comments (so a literal
 * '@x' or an operator such as `@>` is left alone).
 */
export function toPositional(sql: string): Positional {
  const names: string[] = [];
  let text = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const skipTo = skipEnd(sql, i);
    if (skipTo > i) {
      text += sql.slice(i, skipTo);
      i = skipTo;
      continue;
    }
    if (c === '@') {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1));
      if (match) {
        const name = match[0];
        let position = names.indexOf(name);
        if (position < 0) position = names.push(name) - 1;
        text += `$${position + 1}`;
        i += 1 + name.length;
        continue;
      }
    }
    text += c;
    i++;
  }
  return { text, names };
}

/** Where a literal, quoted identifier or comment starting at i ends (i itself when none starts there). */
function skipEnd(sql: string, i: number): number {
  const c = sql[i];
  if (c === "'" || c === '"') {
    let j = i + 1;
    while (j < sql.length) {
      if (sql[j] === c) {
        if (sql[j + 1] === c) j += 2; // '' and "" escape the quote
        else return j + 1;
      } else j++;
    }
    return sql.length;
  }
  if (c === '-' && sql[i + 1] === '-') {
    const end = sql.indexOf('\n', i);
    return end < 0 ? sql.length : end;
  }
  if (c === '/' && sql[i + 1] === '*') {
    const end = sql.indexOf('*/', i + 2);
    return end < 0 ? sql.length : end + 2;
  }
  return i;
}

/**
 * The values for `$1..$n`. A name the params lack is an error, as in better-sqlite3; `undefined`
 * binds NULL, as there. PostgreSQL TEXT cannot hold U+0000 (the statement fails: "invalid byte
 * sequence for encoding UTF8: 0x00") where SQLite stores it, so a NUL in a string (a runner's
 * prompt, a tag, a reason) binds as U+FFFD, as a lone surrogate does on both engines: the write
 * succeeds, and a lookup by the same string finds it.
 */
export function bindValues(positional: Positional, params: Params | undefined): unknown[] {
  return positional.names.map((name) => {
    const record = params as Readonly<Record<string, unknown>> | undefined;
    const value = record?.[name];
    if (value === undefined && !(record && name in record)) {
      throw new Error(`missing query parameter @${name} in: ${positional.text.trim().slice(0, 120)}`);
    }
    if (typeof value === 'string' && value.includes('\u0000')) return value.replaceAll('\u0000', '\uFFFD');
    return value === undefined ? null : value;
  });
}
