/**
 * The session list's query (GET /api/sessions), built from the filters present: each filter is a
 * plain equality the planner can match to an index, rather than `(@x IS NULL OR col = @x)` for all,
 * which hides every index but one. Pages walk an index in sort order and stop at `limit`, so a page
 * costs the rows it skips over, not the table (hub/store/query-plans.ts checks the plans).
 */
import type { Query } from './sql.js';

export type SessionSort = 'activity' | 'updated';

export interface SessionListQuery {
  state?: string;
  flavor?: string;
  /** The git repository root the runner reported (`projectRoot`), else the working directory. */
  project?: string;
  /** Text in the tag, title, working directory or any prompt of the session (case-insensitive for ASCII). */
  q?: string;
  sort: SessionSort;
}

const SORT_COLUMN: Record<SessionSort, string> = { activity: 'last_activity_at', updated: 'updated_at' };

/** `q` as a LIKE pattern matching it anywhere, its own `%`, `_` and `\` taken literally. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function searchCondition(like: string): string {
  const matches = (column: string) => `${column} ${like} @pattern ESCAPE '\\'`;
  return `(${matches('tag')} OR ${matches('title')} OR ${matches('cwd')}
      OR EXISTS (SELECT 1 FROM turns WHERE turns.sid = sessions.sid AND ${matches('turns.prompt')}))`;
}

/** The query for these filters (and a cursor, when `after` is set). */
export function listSessionsQuery(query: SessionListQuery & { after?: unknown }): Query {
  const text = (like: string) => {
    const column = SORT_COLUMN[query.sort];
    const conditions = ['namespace = @namespace'];
    if (query.project !== undefined) conditions.push('project = @project');
    if (query.state !== undefined) conditions.push('lifecycle_state = @state');
    if (query.flavor !== undefined) conditions.push('flavor = @flavor');
    if (query.q !== undefined) conditions.push(searchCondition(like));
    // `<=` gives the planner a range on the sort column; the OR then drops the rows already shown
    if (query.after !== undefined) conditions.push(`${column} <= @afterAt AND (${column} < @afterAt OR sid < @afterSid)`);
    return `SELECT * FROM sessions WHERE ${conditions.join('\n    AND ')}\n  ORDER BY ${column} DESC, sid DESC\n  LIMIT @limit`;
  };
  // SQLite's LIKE ignores ASCII case; PostgreSQL's ILIKE does
  return { sqlite: text('LIKE'), postgres: text('ILIKE') };
}

/** The parameters of `listSessionsQuery(query)`: exactly the ones its text names. */
export function listSessionsParams(query: SessionListQuery & { namespace: string; limit: number; after?: { at: number; sid: string } }): Record<string, unknown> {
  const params = {
    namespace: query.namespace,
    project: query.project,
    state: query.state,
    flavor: query.flavor,
    pattern: query.q === undefined ? undefined : containsPattern(query.q),
    afterAt: query.after?.at,
    afterSid: query.after?.sid,
    limit: query.limit,
  };
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
}
