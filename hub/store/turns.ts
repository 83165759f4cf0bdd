import type { JsonValue } from '../../shared/protocol/json.js';
import type { Activity, ActivityStatus, TurnStatus, TurnSummary } from '../../shared/protocol/session.js';
import type { ModelUsage } from '../../shared/protocol/usage.js';
import type { RowsWrite, Sql } from './sql.js';
import { getCurrentTurnsUsage, getSessionTurnsUsage, getTurnsUsage, getTurnUsage } from './usage.js';
import { cachedTurn, rememberTurn, turnWritten } from './turn-cache.js';
import { cachedTurnIdByPromptId, promptTurnOpened } from './hook-prompt-turns.js';
import { keyList } from './key-lists.js';
import { cacheListsBySession } from './cached-lists.js';
import { cachedSid, noneToRead, sessionsToRead } from './carried-reads.js';
import { sessionCacheKey } from './session-cache-keys.js';

interface TurnRow {
  turn_id: string;
  sid: string;
  kind: 'prompt' | 'recovery';
  prompt: string | null;
  prompt_truncated: number;
  status: TurnStatus;
  opened_at: number;
  closed_at: number | null;
  response: string | null;
  activity_count: number;
}

interface ActivityRow {
  activity_id: string;
  turn_id: string;
  tool_use_id: string | null;
  tool: string;
  input: string | null;
  output: string | null;
  at: number;
  truncated: number;
  status: ActivityStatus;
  ended_at: number | null;
}

// a new turn's row: writes to any turn wait for it (sql.ts, RowsWrite)
const INSERT_TURN: RowsWrite = {
  one: `
  INSERT INTO turns (turn_id, sid, kind, prompt, prompt_truncated, prompt_id, status, opened_at, closed_at, last_activity_at)
  VALUES (@turnId, @sid, @kind, @prompt, @promptTruncated, @promptId, @status, @openedAt, @closedAt, @lastActivityAt)`,
  // a batch's new turns in one statement, inserted in the order written (created_order breaks ties)
  many: `
  INSERT INTO turns (turn_id, sid, kind, prompt, prompt_truncated, prompt_id, status, opened_at, closed_at, last_activity_at)
  SELECT turn_id, sid, kind, prompt, prompt_truncated, prompt_id, status, opened_at, closed_at, last_activity_at
  FROM unnest(CAST(@turnId AS TEXT[]), CAST(@sid AS TEXT[]), CAST(@kind AS TEXT[]), CAST(@prompt AS TEXT[]), CAST(@promptTruncated AS INTEGER[]),
    CAST(@promptId AS TEXT[]), CAST(@status AS TEXT[]), CAST(@openedAt AS BIGINT[]), CAST(@closedAt AS BIGINT[]), CAST(@lastActivityAt AS BIGINT[]))
    WITH ORDINALITY AS u(turn_id, sid, kind, prompt, prompt_truncated, prompt_id, status, opened_at, closed_at, last_activity_at, n)
  ORDER BY n`,
  merge: { touches: ['turns'] },
};
const SELECT_TURN = `SELECT * FROM turns WHERE turn_id = @turnId`;
export const CLOSE_TURN: RowsWrite = {
  one: `
  UPDATE turns SET status = @status, closed_at = @closedAt, response = COALESCE(@response, response)
  WHERE turn_id = @turnId AND status = 'open'`,
  // a batch's closes in one statement: a turn closed twice keeps the first (the second found it closed)
  many: `
  UPDATE turns t SET status = r.status, closed_at = r.closed_at, response = COALESCE(r.response, t.response)
  FROM (SELECT DISTINCT ON (turn_id) turn_id, status, closed_at, response
    FROM unnest(CAST(@turnId AS TEXT[]), CAST(@status AS TEXT[]), CAST(@closedAt AS BIGINT[]), CAST(@response AS TEXT[]))
      WITH ORDINALITY AS u(turn_id, status, closed_at, response, n)
    ORDER BY turn_id, n) r
  WHERE t.turn_id = ANY (CAST(@turnId AS TEXT[])) AND t.turn_id = r.turn_id AND t.status = 'open'`,
  merge: { touches: ['turns.status', 'turns.closed_at', 'turns.response'] },
};
// a stop that came after the sweep timed its turn out: the stop's status, end and response win
const LAND_STOP_ON_TIMED_OUT = `
  UPDATE turns SET status = @status, closed_at = @closedAt, response = COALESCE(@response, response)
  WHERE turn_id = @turnId AND status = 'timeout'`;
// the latest activity never moves back (a late or reordered event)
const TOUCH_TURN: RowsWrite = {
  one: `
  UPDATE turns SET last_activity_at = CASE WHEN last_activity_at IS NULL OR last_activity_at < @at THEN @at ELSE last_activity_at END
  WHERE turn_id = @turnId AND status = 'open'`,
  // a batch's touches, one statement (sql.ts, RowsWrite): a turn touched twice takes the later time
  many: `
  UPDATE turns t SET last_activity_at = CASE WHEN t.last_activity_at IS NULL OR t.last_activity_at < r.at THEN r.at ELSE t.last_activity_at END
  FROM (SELECT turn_id, MAX(at) AS at FROM unnest(CAST(@turnId AS TEXT[]), CAST(@at AS BIGINT[])) AS u(turn_id, at) GROUP BY turn_id) r
  WHERE t.turn_id = ANY (CAST(@turnId AS TEXT[])) AND t.turn_id = r.turn_id AND t.status = 'open'`,
  merge: { touches: ['turns.last_activity_at', 'turns.status'] },
};
// insertion order breaks ties between turns opened in the same millisecond
const LATEST_TURN = {
  sqlite: `SELECT * FROM turns WHERE sid = @sid ORDER BY opened_at DESC, rowid DESC LIMIT 1`,
  postgres: `SELECT * FROM turns WHERE sid = @sid ORDER BY opened_at DESC, created_order DESC LIMIT 1`,
};
const LATEST_PROMPT_TURN = {
  sqlite: `SELECT * FROM turns WHERE sid = @sid AND kind = 'prompt' ORDER BY opened_at DESC, rowid DESC LIMIT 1`,
  postgres: `SELECT * FROM turns WHERE sid = @sid AND kind = 'prompt' ORDER BY opened_at DESC, created_order DESC LIMIT 1`,
};
const TURNS_OF_SESSION = {
  sqlite: `SELECT * FROM turns WHERE sid = @sid ORDER BY opened_at, rowid`,
  postgres: `SELECT * FROM turns WHERE sid = @sid ORDER BY opened_at, created_order`,
};
// Spec 9: quiet since @before, and either no tool of it still running or quiet since @toolBefore too
// (a running tool's turn waits for the longer tool timeout). The running test reads a tiny partial index.
const DUE = `turns.status = 'open' AND turns.last_activity_at <= @before
  AND (turns.last_activity_at <= @toolBefore
    OR NOT EXISTS (SELECT 1 FROM activities a WHERE a.turn_id = turns.turn_id AND a.status = 'running'))`;
// with the session's namespace and whether it is the session's current turn, so the sweep needs
// no per-turn session read (turns drives the join: LEFT JOIN keeps it the outer loop)
export const OPEN_TURNS_OLDER_THAN = `
  SELECT turns.*, sessions.namespace AS namespace, CASE WHEN sessions.current_turn_id = turns.turn_id THEN 1 ELSE 0 END AS is_current
  FROM turns LEFT JOIN sessions ON sessions.sid = turns.sid
  WHERE ${DUE} ORDER BY turns.last_activity_at LIMIT @limit`;
export const COUNT_OPEN_TURNS_OLDER_THAN = `SELECT COUNT(*) AS count FROM turns WHERE ${DUE}`;
const BUMP_ACTIVITY_COUNT: RowsWrite = {
  one: `UPDATE turns SET activity_count = activity_count + 1 WHERE turn_id = @turnId`,
  many: `
  UPDATE turns t SET activity_count = t.activity_count + r.count
  FROM (SELECT turn_id, COUNT(*) AS count FROM unnest(CAST(@turnId AS TEXT[])) AS u(turn_id) GROUP BY turn_id) r
  WHERE t.turn_id = ANY (CAST(@turnId AS TEXT[])) AND t.turn_id = r.turn_id`,
  merge: { touches: ['turns.activity_count'] },
};
// its place in the turn follows the turn's other tools: in a batch's statement, after those stored
// (the statement sees the table as it was before it) and those before it in the statement
export const INSERT_ACTIVITY: RowsWrite = {
  one: `
  INSERT INTO activities (activity_id, turn_id, sid, tool_use_id, tool, input, output, at, truncated, status, ended_at, ord)
  VALUES (@activityId, @turnId, @sid, @toolUseId, @tool, @input, @output, @at, @truncated, @status, @endedAt,
    (SELECT COALESCE(MAX(ord), 0) + 1 FROM activities WHERE turn_id = @turnId))`,
  many: `
  INSERT INTO activities (activity_id, turn_id, sid, tool_use_id, tool, input, output, at, truncated, status, ended_at, ord)
  SELECT u.activity_id, u.turn_id, u.sid, u.tool_use_id, u.tool, u.input, u.output, u.at, u.truncated, u.status, u.ended_at,
    (SELECT COALESCE(MAX(a.ord), 0) FROM activities a WHERE a.turn_id = u.turn_id) + row_number() OVER (PARTITION BY u.turn_id ORDER BY u.n)
  FROM unnest(CAST(@activityId AS TEXT[]), CAST(@turnId AS TEXT[]), CAST(@sid AS TEXT[]), CAST(@toolUseId AS TEXT[]), CAST(@tool AS TEXT[]),
    CAST(@input AS TEXT[]), CAST(@output AS TEXT[]), CAST(@at AS BIGINT[]), CAST(@truncated AS INTEGER[]), CAST(@status AS TEXT[]), CAST(@endedAt AS BIGINT[]))
    WITH ORDINALITY AS u(activity_id, turn_id, sid, tool_use_id, tool, input, output, at, truncated, status, ended_at, n)
  ORDER BY u.n`,
  merge: { touches: ['activities'] },
};
// a finished tool: its output, status and end; truncated stays set once an input was cut. A tool
// abandoned when its turn closed still takes its result when that comes later
export const COMPLETE_ACTIVITY: RowsWrite = {
  one: `
  UPDATE activities SET status = @status, output = @output, ended_at = @endedAt, truncated = CASE WHEN @truncated = 1 THEN 1 ELSE truncated END
  WHERE activity_id = @activityId AND status IN ('running', 'abandoned')`,
  // a batch's ends in one statement: a tool ended twice keeps the first (the second found it ended)
  many: `
  UPDATE activities a SET status = r.status, output = r.output, ended_at = r.ended_at, truncated = CASE WHEN r.truncated = 1 THEN 1 ELSE a.truncated END
  FROM (SELECT DISTINCT ON (activity_id) activity_id, status, output, ended_at, truncated
    FROM unnest(CAST(@activityId AS TEXT[]), CAST(@status AS TEXT[]), CAST(@output AS TEXT[]), CAST(@endedAt AS BIGINT[]), CAST(@truncated AS INTEGER[]))
      WITH ORDINALITY AS u(activity_id, status, output, ended_at, truncated, n)
    ORDER BY activity_id, n) r
  WHERE a.activity_id = ANY (CAST(@activityId AS TEXT[])) AND a.activity_id = r.activity_id AND a.status IN ('running', 'abandoned')`,
  merge: { touches: ['activities'] },
};
/** The statuses COMPLETE_ACTIVITY completes. */
const COMPLETABLE: ReadonlySet<string> = new Set(['running', 'abandoned']);
export const ABANDON_RUNNING_OF_TURN: RowsWrite = {
  one: `UPDATE activities SET status = 'abandoned', ended_at = @endedAt WHERE turn_id = @turnId AND status = 'running'`,
  // a batch's closed turns' tools in one statement; a turn's first close abandons them
  many: `
  UPDATE activities a SET status = 'abandoned', ended_at = r.ended_at
  FROM (SELECT DISTINCT ON (turn_id) turn_id, ended_at FROM unnest(CAST(@turnId AS TEXT[]), CAST(@endedAt AS BIGINT[])) WITH ORDINALITY AS u(turn_id, ended_at, n)
    ORDER BY turn_id, n) r
  WHERE a.turn_id = ANY (CAST(@turnId AS TEXT[])) AND a.turn_id = r.turn_id AND a.status = 'running'`,
  merge: { touches: ['activities.status', 'activities.ended_at'] },
};
const TURNS_WITH_RUNNING_OF_SESSION = `SELECT DISTINCT turn_id FROM activities WHERE sid = @sid AND status = 'running'`;
const ABANDON_RUNNING_OF_SESSION = `UPDATE activities SET status = 'abandoned', ended_at = @endedAt WHERE sid = @sid AND status = 'running'`;

const TURN_BY_PROMPT_ID = `SELECT * FROM turns WHERE sid = @sid AND prompt_id = @promptId`;
const ACTIVITY_BY_TOOL_USE = `SELECT * FROM activities WHERE sid = @sid AND tool_use_id = @toolUseId`;
const RUNNING_ACTIVITIES_OF_SESSION = `SELECT * FROM activities WHERE sid = @sid AND status = 'running' ORDER BY at, ord`;
// by when each tool started (hook events arrive out of firing order), then by arrival
const ACTIVITIES_OF_TURN = `SELECT * FROM activities WHERE turn_id = @turnId ORDER BY at, ord`;

/** The turn with its usage (one more indexed read: most turns have none, so it is not joined). */
async function withUsage(sql: Sql, row: TurnRow | undefined): Promise<TurnSummary | undefined> {
  return row && toTurn(row, await getTurnUsage(sql, row.turn_id));
}

function toTurn(row: TurnRow, usage: TurnSummary['usage']): TurnSummary {
  return {
    turnId: row.turn_id,
    sid: row.sid,
    kind: row.kind,
    prompt: row.prompt,
    promptTruncated: row.prompt_truncated === 1,
    status: row.status,
    openedAt: row.opened_at,
    closedAt: row.closed_at,
    response: row.response,
    activityCount: row.activity_count,
    usage,
  };
}

function toActivity(row: ActivityRow): Activity & { turnId: string } {
  return {
    activityId: row.activity_id,
    turnId: row.turn_id,
    toolUseId: row.tool_use_id,
    tool: row.tool,
    input: row.input === null ? null : (JSON.parse(row.input) as JsonValue),
    output: row.output === null ? null : (JSON.parse(row.output) as JsonValue),
    at: row.at,
    truncated: row.truncated === 1,
    status: row.status,
    endedAt: row.ended_at,
  };
}

export async function insertTurn(
  sql: Sql,
  input: {
    turnId: string;
    sid: string;
    kind: 'prompt' | 'recovery';
    prompt: string | null;
    promptTruncated: boolean;
    promptId: string | null;
    status: TurnStatus;
    openedAt: number;
    closedAt: number | null;
  },
): Promise<void> {
  // an open turn's activity starts with its opening; a closed one (recovery) is never swept
  await sql.write(INSERT_TURN, { ...input, promptTruncated: input.promptTruncated ? 1 : 0, lastActivityAt: input.status === 'open' ? input.openedAt : null });
  promptTurnOpened(sql, input);
  rememberTurn(sql, {
    turnId: input.turnId,
    sid: input.sid,
    kind: input.kind,
    prompt: input.prompt,
    promptTruncated: input.promptTruncated,
    status: input.status,
    openedAt: input.openedAt,
    closedAt: input.closedAt,
    response: null,
    activityCount: 0,
    usage: [],
  });
}

export const CURRENT_TURNS = `
  SELECT * FROM turns WHERE turn_id IN (
    SELECT current_turn_id FROM sessions WHERE namespace = @namespace
      AND (sid = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@sids AS jsonb)))) OR tag = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@tags AS jsonb))))))`;

/**
 * The current turns of a PostgreSQL batch's sessions (by sid or tag), with their usage, into the
 * transaction's turn cache (turn-cache.ts): two statements sent together, for the whole batch.
 */
export async function prefetchCurrentTurns(sql: Sql, input: { namespace: string; sids: readonly string[]; tags: readonly string[] }): Promise<void> {
  if (sql.dialect !== 'postgres' || !sql.rowCache) return;
  // a held session's current turn is known when it has none or its turn is held too
  const toRead = sessionsToRead(sql, input, (sid) => {
    const session = sql.rowCache!.get(sessionCacheKey(sid)) as { currentTurnId: string | null } | undefined;
    return session !== undefined && (session.currentTurnId === null || cachedTurn(sql, session.currentTurnId) !== undefined);
  });
  if (noneToRead(toRead)) return;
  const [rows, usage] = await Promise.all([
    sql.all<TurnRow>(CURRENT_TURNS, { namespace: input.namespace, sids: keyList(toRead.sids), tags: keyList(toRead.tags) }),
    getCurrentTurnsUsage(sql, toRead),
  ]);
  for (const row of rows) if (!cachedTurn(sql, row.turn_id)) rememberTurn(sql, toTurn(row, usage.get(row.turn_id) ?? []));
}

/*
 * Activities by toolUseId, read for a PostgreSQL batch at once (prefetchActivities) into the
 * transaction's rowCache, absent ones included: `activity:<sid>:<toolUseId>` holds the activity or
 * null. Inserting and completing one keep it current; a write that abandons running tools drops
 * the entries it may change (read again if wanted). Not on SQLite, whose cache outlives transactions.
 */
type CachedActivity = Activity & { turnId: string; sid: string };
const activityKey = (sid: string, toolUseId: string) => `activity:${sid}:${toolUseId}`;

/**
 * Per rowCache, each cached activity's key by its activity id, and the keys of each session's: ending
 * a tool or a turn finds its entries without a scan of every row carried (up to MAX_CARRIED_ROWS).
 * Checked on use: the rows may have been dropped or cleared since.
 */
interface ActivityIndex {
  keyById: Map<string, string>;
  keysBySid: Map<string, Set<string>>;
}
const activityIndexes = new WeakMap<Map<string, unknown>, ActivityIndex>();

function activityIndexOf(cache: Map<string, unknown>): ActivityIndex {
  let index = activityIndexes.get(cache);
  // made anew when it outgrew the cache (entries dropped, or the cache cleared by a rollback): stays bounded
  if (!index || index.keyById.size > 2 * cache.size + 100) {
    index = { keyById: new Map(), keysBySid: new Map() };
    activityIndexes.set(cache, index);
    for (const [key, value] of cache) if (key.startsWith('activity:') && value !== null) indexActivity(index, key, value as CachedActivity);
  }
  return index;
}

function indexActivity(index: ActivityIndex, key: string, activity: CachedActivity): void {
  index.keyById.set(activity.activityId, key);
  let keys = index.keysBySid.get(activity.sid);
  if (!keys) index.keysBySid.set(activity.sid, (keys = new Set()));
  keys.add(key);
}

function cacheActivity(cache: Map<string, unknown>, activity: CachedActivity): void {
  const key = activityKey(activity.sid, activity.toolUseId!);
  cache.set(key, activity);
  indexActivity(activityIndexOf(cache), key, activity);
}

function cachedActivityById(sql: Sql, activityId: string): CachedActivity | undefined {
  const cache = activityCacheOf(sql);
  const key = cache && activityIndexes.get(cache)?.keyById.get(activityId);
  const hit = key === undefined ? undefined : cache!.get(key) as CachedActivity | null | undefined;
  return hit?.activityId === activityId ? hit : undefined;
}
const activityCacheOf = (sql: Sql) => (sql.dialect === 'postgres' ? sql.rowCache : undefined);

/** Drops the cached activities `drop` picks: of the session `sid` only (an index lookup), or of every session. */
function dropCachedActivities(sql: Sql, drop: (activity: CachedActivity) => boolean, sid?: string): void {
  const cache = activityCacheOf(sql);
  if (!cache) return;
  const dropIf = (key: string) => {
    const value = cache.get(key) as CachedActivity | null | undefined;
    if (value && drop(value)) cache.delete(key);
  };
  if (sid === undefined) {
    for (const key of cache.keys()) if (key.startsWith('activity:')) dropIf(key);
    return;
  }
  const keys = activityIndexes.get(cache)?.keysBySid.get(sid);
  if (!keys) return;
  for (const key of keys) {
    dropIf(key);
    if (!cache.has(key)) keys.delete(key);
  }
}

export const ACTIVITIES_OF_SESSIONS = `
  SELECT s.sid AS session_sid, s.tag AS session_tag, a.* FROM sessions s
    LEFT JOIN activities a ON a.sid = s.sid AND a.tool_use_id = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@toolUseIds AS jsonb))))
  WHERE s.namespace = @namespace
    AND (s.sid = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@sids AS jsonb)))) OR s.tag = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@tags AS jsonb)))))`;

export const ASSERT_NO_ACTIVITIES = `
  SELECT hub_expect(NOT EXISTS (
    SELECT 1 FROM jsonb_to_recordset(CAST(@keys AS jsonb)) AS k(sid TEXT, "toolUseId" TEXT),
      LATERAL (SELECT 1 FROM activities WHERE activities.sid = k.sid AND activities.tool_use_id = k."toolUseId" LIMIT 1) a),
    'a tool use taken as new was recorded before')`;

/**
 * The activities a PostgreSQL batch's tool events will look up by toolUseId (sessions by sid or tag),
 * in one statement. With carried rows (sql.ts), a held session's activities are held as they were
 * written: an id not there is taken as new (a tool just called), checked by ASSERT_NO_ACTIVITIES.
 */
export async function prefetchActivities(sql: Sql, input: { namespace: string; wanted: readonly { sid?: string; tag?: string; toolUseId: string }[] }): Promise<void> {
  const cache = activityCacheOf(sql);
  if (!cache || input.wanted.length === 0) return;
  const wanted: typeof input.wanted[number][] = [];
  const takenAsNew: { sid: string; toolUseId: string }[] = [];
  for (const want of input.wanted) {
    const sid = cachedSid(sql, input.namespace, want);
    if (sid !== undefined && cache.has(activityKey(sid, want.toolUseId))) continue;
    if (sid === undefined || !sql.carried) wanted.push(want);
    else {
      cache.set(activityKey(sid, want.toolUseId), null);
      takenAsNew.push({ sid, toolUseId: want.toolUseId });
    }
  }
  if (takenAsNew.length > 0) await sql.write(ASSERT_NO_ACTIVITIES, { keys: JSON.stringify(takenAsNew) });
  if (wanted.length === 0) return;
  const sids = [...new Set(wanted.flatMap(({ sid }) => (sid === undefined ? [] : [sid])))];
  const tags = [...new Set(wanted.flatMap(({ tag }) => (tag === undefined ? [] : [tag])))];
  const toolUseIds = [...new Set(wanted.map(({ toolUseId }) => toolUseId))];
  const rows = await sql.all<ActivityRow & { session_sid: string; session_tag: string }>(ACTIVITIES_OF_SESSIONS, {
    namespace: input.namespace, sids: keyList(sids), tags: keyList(tags), toolUseIds: keyList(toolUseIds),
  });
  const sidOfTag = new Map(rows.map((row) => [row.session_tag, row.session_sid]));
  const found = new Set(rows.map((row) => row.session_sid));
  for (const { sid, tag, toolUseId } of wanted) {
    const of = sid ?? sidOfTag.get(tag!);
    // a session not found has no activities; one created later in the batch is read when asked
    if (of !== undefined && found.has(of) && !cache.has(activityKey(of, toolUseId))) cache.set(activityKey(of, toolUseId), null);
  }
  for (const row of rows) if (row.activity_id !== null) cacheActivity(cache, { ...toActivity(row), sid: row.session_sid });
}

export async function getTurn(sql: Sql, turnId: string): Promise<TurnSummary | undefined> {
  return cachedTurn(sql, turnId) ?? rememberTurn(sql, await withUsage(sql, await sql.get(SELECT_TURN, { turnId }) as TurnRow | undefined));
}

/**
 * Closes an open turn; false when it was not open. Its tools still running end `abandoned` in the
 * same write (a tool the agent denied or killed fires no end of its own).
 */
export async function closeTurn(sql: Sql, input: { turnId: string; status: TurnStatus; closedAt: number; response: string | null }): Promise<boolean> {
  // a turn cached in this PostgreSQL transaction is current (turn-cache.ts): its status answers
  // whether it closes, and both writes wait for the batch's next round trip
  const known = cachedTurn(sql, input.turnId);
  if (known) {
    if (known.status !== 'open') return false;
    await sql.write(CLOSE_TURN, input);
  } else if ((await sql.run(CLOSE_TURN.one, input)).changes === 0) return false;
  turnWritten(sql, input.turnId, (turn) => {
    turn.status = input.status;
    turn.closedAt = input.closedAt;
    turn.response = input.response ?? turn.response;
  });
  await sql.write(ABANDON_RUNNING_OF_TURN, { turnId: input.turnId, endedAt: input.closedAt });
  // a turn is one session's: with its row cached, only that session's entries can hold it
  noRunningToolsIn(sql, input.turnId, known?.sid);
  noLongerRunning(sql, (activity) => activity.turnId === input.turnId, known?.sid);
  dropCachedActivities(sql, (activity) => activity.turnId === input.turnId && activity.status === 'running', known?.sid);
  return true;
}

/** A stop after its turn was timed out: the turn takes the stop's status, end and response; false when it was not `timeout`. */
export async function landStopOnTimedOutTurn(sql: Sql, input: { turnId: string; status: TurnStatus; closedAt: number; response: string | null }): Promise<boolean> {
  const landed = (await sql.run(LAND_STOP_ON_TIMED_OUT, input)).changes > 0;
  turnWritten(sql, input.turnId);
  return landed;
}

/** The open turn had activity at `at` (the hub's time): its timeout counts from the latest. No-op on a closed turn. */
export async function touchTurn(sql: Sql, input: { turnId: string; at: number }): Promise<void> {
  // its latest activity is no field of a TurnSummary: a cached copy stays current
  await sql.write(TOUCH_TURN, input);
}

/*
 * The turns with tools still running, per session, read for a PostgreSQL batch whose writes end
 * sessions (prefetchRunningToolTurns): `running-tool-turns:<sid>`. A tool started in the
 * transaction adds its turn; one ended or a turn closed drops the session's entry (read again if wanted).
 */
const runningTurnsKey = (sid: string) => `running-tool-turns:${sid}`;

export const TURNS_WITH_RUNNING_OF_SESSIONS = `
  SELECT DISTINCT s.sid AS session_sid, a.turn_id FROM sessions s LEFT JOIN activities a ON a.sid = s.sid AND a.status = 'running'
  WHERE s.namespace = @namespace AND (s.sid = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@sids AS jsonb)))) OR s.tag = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@tags AS jsonb)))))`;

/** The turns with tools still running of these sessions (by sid or tag), in one statement. */
export async function prefetchRunningToolTurns(sql: Sql, input: { namespace: string; sids: readonly string[]; tags: readonly string[] }): Promise<void> {
  const cache = activityCacheOf(sql);
  if (!cache) return;
  const toRead = sessionsToRead(sql, input, (sid) => cache.has(runningTurnsKey(sid)));
  if (noneToRead(toRead)) return;
  const rows = await sql.all<{ session_sid: string; turn_id: string | null }>(TURNS_WITH_RUNNING_OF_SESSIONS, { namespace: input.namespace, sids: keyList(toRead.sids), tags: keyList(toRead.tags) });
  cacheListsBySession(cache, rows, runningTurnsKey, (row) => row.turn_id ?? undefined);
}

/** The turn's running tools were all abandoned: it leaves the lists of turns with tools running (its session's, when known). */
function noRunningToolsIn(sql: Sql, turnId: string, sid?: string): void {
  const cache = activityCacheOf(sql);
  if (!cache) return;
  const drop = (key: string) => {
    const list = cache.get(key) as string[] | undefined;
    if (list) cache.set(key, list.filter((id) => id !== turnId));
  };
  if (sid !== undefined) return drop(runningTurnsKey(sid));
  for (const key of cache.keys()) if (key.startsWith('running-tool-turns:')) drop(key);
}

function forgetRunningTurns(sql: Sql, sid?: string): void {
  const cache = activityCacheOf(sql);
  if (!cache) return;
  if (sid !== undefined) cache.delete(runningTurnsKey(sid));
  else for (const key of [...cache.keys()]) if (key.startsWith('running-tool-turns:')) cache.delete(key);
}

/** The session ended: every tool of it still running ends `abandoned`. Answers the turns that changed. */
export async function abandonRunningToolsOfSession(sql: Sql, input: { sid: string; endedAt: number }): Promise<string[]> {
  const known = activityCacheOf(sql)?.get(runningTurnsKey(input.sid)) as string[] | undefined;
  const turnIds = known ? [...known] : (await sql.all(TURNS_WITH_RUNNING_OF_SESSION, { sid: input.sid }) as { turn_id: string }[]).map((row) => row.turn_id);
  // nothing to learn from the row count: the update waits for the batch's next round trip
  if (turnIds.length > 0) await sql.write(ABANDON_RUNNING_OF_SESSION, input);
  activityCacheOf(sql)?.set(runningTurnsKey(input.sid), []);
  if (activityCacheOf(sql)?.has(runningActivitiesKey(input.sid))) activityCacheOf(sql)!.set(runningActivitiesKey(input.sid), []);
  dropCachedActivities(sql, (activity) => activity.status === 'running', input.sid);
  return turnIds;
}

export async function findTurnByPromptId(sql: Sql, key: { sid: string; promptId: string }): Promise<TurnSummary | undefined> {
  // a hook's prompt id is answered by the batch's first read where it can be (hook-prompt-turns.ts)
  const known = cachedTurnIdByPromptId(sql, key);
  if (known === null) return undefined;
  if (known !== undefined) return getTurn(sql, known);
  return withUsage(sql, await sql.get(TURN_BY_PROMPT_ID, key) as TurnRow | undefined);
}

export async function getLatestTurn(sql: Sql, sid: string): Promise<TurnSummary | undefined> {
  return withUsage(sql, await sql.get(LATEST_TURN, { sid }) as TurnRow | undefined);
}

/** The session's latest turn opened by a prompt (recovery turns left out). */
export async function getLatestPromptTurn(sql: Sql, sid: string): Promise<TurnSummary | undefined> {
  return withUsage(sql, await sql.get(LATEST_PROMPT_TURN, { sid }) as TurnRow | undefined);
}

export async function listTurns(sql: Sql, sid: string): Promise<TurnSummary[]> {
  const usage = await getSessionTurnsUsage(sql, sid);
  return (await sql.all(TURNS_OF_SESSION, { sid }) as TurnRow[]).map((row) => toTurn(row, usage.get(row.turn_id) ?? []));
}

export interface DueTurn {
  turn: TurnSummary;
  /** null only for a turn whose session row is gone */
  namespace: string | null;
  /** whether the session's `current_turn_id` points at this turn */
  isCurrent: boolean;
}

/**
 * Open turns due for timeout: no activity since `before`, and none since `toolBefore` either when a
 * tool of theirs is still running; quietest first, with what the sweep needs of their session.
 */
export async function listDueOpenTurns(sql: Sql, input: { before: number; toolBefore: number; limit: number }): Promise<DueTurn[]> {
  const rows = await sql.all(OPEN_TURNS_OLDER_THAN, input) as (TurnRow & { namespace: string | null; is_current: number | null })[];
  if (sql.dialect !== 'postgres') return Promise.all(rows.map(async (row) => ({ turn: (await withUsage(sql, row))!, namespace: row.namespace, isCurrent: row.is_current === 1 })));
  // PostgreSQL: their usage in one statement, and each turn kept in the transaction's cache, so
  // closing it waits for the batch's next round trip (read as open under the lock)
  const usage = rows.length === 0 ? new Map<string, ModelUsage[]>() : await getTurnsUsage(sql, rows.map((row) => row.turn_id));
  return rows.map((row) => ({ turn: rememberTurn(sql, toTurn(row, usage.get(row.turn_id) ?? []))!, namespace: row.namespace, isCurrent: row.is_current === 1 }));
}

export async function countOpenTurnsOlderThan(sql: Sql, input: { before: number; toolBefore: number }): Promise<number> {
  return (await sql.get(COUNT_OPEN_TURNS_OLDER_THAN, input) as { count: number }).count;
}

export async function insertActivity(
  sql: Sql,
  input: {
    activityId: string;
    turnId: string;
    sid: string;
    toolUseId: string | null;
    tool: string;
    input: JsonValue | null;
    output: JsonValue | null;
    at: number;
    truncated: boolean;
    status: ActivityStatus;
    endedAt: number | null;
  },
): Promise<void> {
  await sql.write(INSERT_ACTIVITY, {
    ...input,
    input: input.input === null ? null : JSON.stringify(input.input),
    output: input.output === null ? null : JSON.stringify(input.output),
    truncated: input.truncated ? 1 : 0,
  });
  await sql.write(BUMP_ACTIVITY_COUNT, { turnId: input.turnId });
  // a running tool joins its session's running list where one is held, in the list's order (at, then as written)
  const runningList = input.status === 'running' ? activityCacheOf(sql)?.get(runningActivitiesKey(input.sid)) as (Activity & { turnId: string })[] | undefined : undefined;
  if (runningList) {
    const { activityId, turnId, toolUseId, tool, at, truncated, status, endedAt } = input;
    runningList.push({ activityId, turnId, toolUseId, tool, input: input.input, output: input.output, at, truncated, status, endedAt });
    runningList.sort((a, b) => a.at - b.at);
  }
  const running = activityCacheOf(sql)?.get(runningTurnsKey(input.sid)) as string[] | undefined;
  if (input.status === 'running' && running && !running.includes(input.turnId)) running.push(input.turnId);
  const cache = activityCacheOf(sql);
  if (input.toolUseId !== null && cache) {
    const { sid, toolUseId, ...activity } = input;
    cacheActivity(cache, { ...activity, toolUseId, sid, input: activity.input, output: activity.output } satisfies CachedActivity);
  }
  turnWritten(sql, input.turnId, (turn) => {
    turn.activityCount++;
  });
}

/** Finishes a running activity; false when it was not running. */
export async function completeActivity(
  sql: Sql,
  input: { activityId: string; status: ActivityStatus; output: JsonValue | null; outputTruncated: boolean; endedAt: number },
): Promise<boolean> {
  const params = {
    activityId: input.activityId,
    status: input.status,
    output: input.output === null ? null : JSON.stringify(input.output),
    endedAt: input.endedAt,
    truncated: input.outputTruncated ? 1 : 0,
  };
  // an activity cached in this PostgreSQL transaction is current: its status answers whether it
  // completes, and the write waits for the batch's next round trip instead of one of its own
  const known = cachedActivityById(sql, input.activityId);
  if (known) {
    if (!COMPLETABLE.has(known.status)) return false;
    await sql.write(COMPLETE_ACTIVITY, params);
  } else if ((await sql.run(COMPLETE_ACTIVITY.one, params)).changes === 0) return false;
  // whether its turn has other tools running is not known here: its session's list is read again if wanted
  forgetRunningTurns(sql, known?.sid);
  noLongerRunning(sql, (activity) => activity.activityId === input.activityId, known?.sid);
  // as COMPLETE_ACTIVITY wrote it; its output as stored is read again only if it matters
  if (known) Object.assign(known, { status: input.status, output: input.output, truncated: input.outputTruncated || known.truncated, endedAt: input.endedAt });
  return true;
}

export async function findActivityByToolUseId(sql: Sql, key: { sid: string; toolUseId: string }): Promise<(Activity & { turnId: string }) | undefined> {
  const hit = activityCacheOf(sql)?.get(activityKey(key.sid, key.toolUseId)) as CachedActivity | null | undefined;
  if (hit !== undefined) {
    if (hit === null) return undefined;
    const { sid: _sid, ...activity } = hit;
    return { ...activity };
  }
  const row = await sql.get(ACTIVITY_BY_TOOL_USE, key) as ActivityRow | undefined;
  return row && toActivity(row);
}

/** The session's tool uses still running (a call an approval may be about). */
export async function listRunningActivities(sql: Sql, sid: string): Promise<(Activity & { turnId: string })[]> {
  const known = activityCacheOf(sql)?.get(runningActivitiesKey(sid)) as (Activity & { turnId: string })[] | undefined;
  if (known) return known.map((activity) => ({ ...activity }));
  return (await sql.all(RUNNING_ACTIVITIES_OF_SESSION, { sid }) as ActivityRow[]).map(toActivity);
}

/*
 * A batch whose writes look at their sessions' running tools (a deny ends its tool) reads them with
 * the batch (prefetchRunningActivities): each list is kept current by the writes below (a tool
 * started joins it, one that ends leaves it), and each tool with an id
 * joins the activities cached by id, so ending it waits for the batch's next round trip.
 */
const runningActivitiesKey = (sid: string) => `running-activities:${sid}`;
export const RUNNING_ACTIVITIES_OF_SESSIONS = `
  SELECT s.sid AS session_sid, a.* FROM sessions s LEFT JOIN activities a ON a.sid = s.sid AND a.status = 'running'
  WHERE s.namespace = @namespace AND s.sid = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@sids AS jsonb))))
  ORDER BY a.at, a.ord`;

/** These sessions' running tools, for a PostgreSQL batch, in one statement. */
export async function prefetchRunningActivities(sql: Sql, input: { namespace: string; sids: readonly string[] }): Promise<void> {
  const cache = activityCacheOf(sql);
  if (!cache) return;
  const sids = input.sids.filter((sid) => !cache.has(runningActivitiesKey(sid)));
  if (sids.length === 0) return;
  const rows = await sql.all<ActivityRow & { session_sid: string }>(RUNNING_ACTIVITIES_OF_SESSIONS, { namespace: input.namespace, sids: keyList(sids) });
  cacheListsBySession(cache, rows, runningActivitiesKey, (row) => (row.activity_id === null ? undefined : toActivity(row)));
  // each one with an id joins the activities cached by id, so ending it is deferred
  for (const row of rows) {
    if (row.activity_id === null || row.tool_use_id === null || cache.has(activityKey(row.session_sid, row.tool_use_id))) continue;
    cacheActivity(cache, { ...toActivity(row), sid: row.session_sid });
  }
}

/** Drops from the cached running lists (the session's, when known) the activities `ended` says no longer run. */
function noLongerRunning(sql: Sql, ended: (activity: Activity & { turnId: string }) => boolean, sid?: string): void {
  const cache = activityCacheOf(sql);
  if (!cache) return;
  if (sid !== undefined) {
    const list = cache.get(runningActivitiesKey(sid)) as (Activity & { turnId: string })[] | undefined;
    if (list) cache.set(runningActivitiesKey(sid), list.filter((activity) => !ended(activity)));
    return;
  }
  for (const [key, value] of cache) {
    if (key.startsWith('running-activities:')) cache.set(key, (value as (Activity & { turnId: string })[]).filter((activity) => !ended(activity)));
  }
}

export async function listActivities(sql: Sql, turnId: string): Promise<Activity[]> {
  return (await sql.all(ACTIVITIES_OF_TURN, { turnId }) as ActivityRow[]).map((row) => {
    const { turnId: _turnId, ...activity } = toActivity(row);
    return activity;
  });
}
