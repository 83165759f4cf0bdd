import type { JsonObject } from '../../shared/protocol/json.js';
import type { Attention, AttentionKind, LifecycleState, RunStatus, Writer } from '../../shared/protocol/session.js';
import { listSessionsParams, listSessionsQuery, type SessionListQuery } from './session-list.js';
import { projectPathOf } from '../../shared/project.js';
import { patchWrite, type RowsWrite, type Sql } from './sql.js';
import { noPendingApprovalsYet } from './approvals.js';
import { noTakerYet } from './message-takers.js';
import { noQueuedMessagesYet } from './messages.js';
import { noResumeTokensYet } from './resume-tokens.js';
import { noUsageYet } from './usage.js';
import { keyList } from './key-lists.js';
import { sessionCacheKey as cacheKey, sessionTagCacheKey as tagKey } from './session-cache-keys.js';

export interface StoredSession {
  sid: string;
  namespace: string;
  tag: string;
  flavor: string;
  parentSid: string | null;
  createdAt: number;
  updatedAt: number;
  metadata: JsonObject;
  metadataVersion: number;
  agentState: JsonObject | null;
  agentStateVersion: number;
  lifecycle: { state: LifecycleState; since: number; reason: string | null; by: Writer | null };
  lastRun: { runId: string; status: RunStatus; endedAt: number | null; reason: string | null } | null;
  currentTurnId: string | null;
  lastActivityAt: number;
  presence: { active: boolean; activeAt: number | null; aliveAt: number | null; thinking: boolean };
  attention: Attention | null;
  /** The start of the session's first prompt (its title without a metadata one), kept on the row by the prompt's write. */
  firstPrompt: string | null;
  /** When that prompt's turn opened: a prompt opened earlier replaces it. */
  firstPromptAt: number | null;
  /** The start of the session's latest prompt, and when its turn opened (a later one replaces it). */
  lastPrompt: string | null;
  lastPromptAt: number | null;
}

interface SessionRow {
  sid: string;
  namespace: string;
  tag: string;
  flavor: string;
  parent_sid: string | null;
  created_at: number;
  updated_at: number;
  metadata: string;
  metadata_version: number;
  agent_state: string | null;
  agent_state_version: number;
  lifecycle_state: LifecycleState;
  lifecycle_since: number;
  lifecycle_reason: string | null;
  lifecycle_by: Writer | null;
  last_run_id: string | null;
  last_run_status: RunStatus | null;
  last_run_ended_at: number | null;
  last_run_reason: string | null;
  current_turn_id: string | null;
  last_activity_at: number;
  active: number;
  active_at: number | null;
  alive_at: number | null;
  thinking: number;
  attention_kind: AttentionKind | null;
  attention_since: number | null;
  attention_message: string | null;
  attention_tool: string | null;
  first_prompt: string | null;
  first_prompt_at: number | null;
  last_prompt: string | null;
  last_prompt_at: number | null;
}

const SELECT_BY_SID = `SELECT * FROM sessions WHERE sid = @sid AND namespace = @namespace`;
const SELECT_BY_TAG = `SELECT * FROM sessions WHERE namespace = @namespace AND tag = @tag`;
export const SELECT_ANY_BY_SID = `SELECT * FROM sessions WHERE sid = @sid`;
export const SELECT_MANY_BY_TAG = {
  sqlite: `SELECT * FROM sessions WHERE namespace = @namespace AND tag IN (SELECT value FROM json_each(@tags))`,
  // one lookup of the (namespace, tag) key per tag, whatever plan the connection cached (hook-events.ts)
  postgres: `
  SELECT s.* FROM jsonb_array_elements_text(CAST(@tags AS jsonb)) AS k(tag),
    LATERAL (SELECT * FROM sessions WHERE namespace = @namespace AND sessions.tag = k.tag LIMIT 1) s`,
};
export const SELECT_MANY_BY_SID = {
  sqlite: `SELECT * FROM sessions WHERE namespace = @namespace AND sid IN (SELECT value FROM json_each(@sids))`,
  // one primary-key lookup per sid, whatever plan the connection cached (see SELECT_MANY in applied-requests.ts)
  postgres: `
  SELECT s.* FROM jsonb_array_elements_text(CAST(@sids AS jsonb)) AS k(sid),
    LATERAL (SELECT * FROM sessions WHERE sessions.sid = k.sid LIMIT 1) s
  WHERE s.namespace = @namespace`,
};
const INSERT = `
  INSERT INTO sessions (sid, namespace, tag, flavor, parent_sid, created_at, updated_at, metadata, metadata_version,
    agent_state, agent_state_version, lifecycle_state, lifecycle_since, lifecycle_reason, lifecycle_by, last_activity_at,
    title, cwd, project)
  VALUES (@sid, @namespace, @tag, @flavor, @parentSid, @now, @now, @metadata, 1, NULL, 1, 'running', @now, NULL, 'runner', @now,
    @title, @cwd, @project)`;
/** Also used by metadata-versions.ts (PostgreSQL's one-statement version write). */
export const SET_METADATA_COLUMNS = `metadata = @metadata, metadata_version = @version, updated_at = @now, last_activity_at = @activityAt,
    title = @title, cwd = @cwd, project = @project`;
const UPDATE_METADATA = `UPDATE sessions SET ${SET_METADATA_COLUMNS} WHERE sid = @sid`;
const UPDATE_AGENT_STATE = `
  UPDATE sessions SET agent_state = @agentState, agent_state_version = @version, updated_at = @now, last_activity_at = @now
  WHERE sid = @sid`;
const UPDATE_LIFECYCLE = `
  UPDATE sessions SET lifecycle_state = @state, lifecycle_since = @since, lifecycle_reason = @reason, lifecycle_by = @by,
    updated_at = @since
  WHERE sid = @sid`;
const UPDATE_LAST_RUN = `
  UPDATE sessions SET last_run_id = @runId, last_run_status = @status, last_run_ended_at = @endedAt, last_run_reason = @reason,
    updated_at = @now
  WHERE sid = @sid`;
const UPDATE_FLAVOR = `UPDATE sessions SET flavor = @flavor WHERE sid = @sid`;
// The per-event writes below declare the columns they touch (sql.ts, RowsWrite): a batch's rows of
// one of them then go in one statement on PostgreSQL, past the other writes of its events; the
// patches among them (patchWrite) fold into one write of each session's row.
export const SESSION_KEY = ['sid', 'sid', 'TEXT'] as const;
const UPDATE_CURRENT_TURN = patchWrite({ table: 'sessions', key: SESSION_KEY, columns: [['current_turn_id', 'turnId', 'TEXT'], ['updated_at', 'now', 'BIGINT']] });
// a prompt's turn opening, with the session's first and latest prompts as openPromptTurn decided them
const OPEN_PROMPT_TURN = patchWrite({
  table: 'sessions',
  key: SESSION_KEY,
  columns: [
    ['current_turn_id', 'turnId', 'TEXT'], ['updated_at', 'now', 'BIGINT'],
    ['first_prompt', 'firstPrompt', 'TEXT'], ['first_prompt_at', 'firstPromptAt', 'BIGINT'],
    ['last_prompt', 'lastPrompt', 'TEXT'], ['last_prompt_at', 'lastPromptAt', 'BIGINT'],
  ],
});
export const TOUCH_ACTIVITY = patchWrite({ table: 'sessions', key: SESSION_KEY, columns: [['last_activity_at', 'now', 'BIGINT']] });
export const UPDATE_PRESENCE = patchWrite({
  table: 'sessions',
  key: SESSION_KEY,
  columns: [['active', 'active', 'INTEGER'], ['active_at', 'activeAt', 'BIGINT'], ['alive_at', 'aliveAt', 'BIGINT'], ['thinking', 'thinking', 'INTEGER']],
});
export const UPDATE_ATTENTION = patchWrite({
  table: 'sessions',
  key: SESSION_KEY,
  columns: [['attention_kind', 'kind', 'TEXT'], ['attention_since', 'since', 'BIGINT'], ['attention_message', 'message', 'TEXT'], ['attention_tool', 'tool', 'TEXT']],
});
/** Every column a session patch sets (their folded UPDATE's plan is checked: query-plans.ts). */
export const SESSION_PATCH_COLUMNS = [...new Map([UPDATE_CURRENT_TURN, OPEN_PROMPT_TURN, TOUCH_ACTIVITY, UPDATE_PRESENCE, UPDATE_ATTENTION].flatMap((write) => write.patch.columns).map((column) => [column[0], column])).values()];
export const SELECT_STALE_ACTIVE = `SELECT * FROM sessions WHERE active = 1 AND alive_at <= @before ORDER BY alive_at LIMIT @limit`;
export const SELECT_RUNNING_WITHOUT_ACTIVITY = `
  SELECT * FROM sessions WHERE lifecycle_state = 'running' AND last_activity_at <= @before ORDER BY last_activity_at LIMIT @limit`;
const SELECT_ALL_IN_NAMESPACE = `SELECT * FROM sessions WHERE namespace = @namespace ORDER BY updated_at DESC, sid DESC`;

/**
 * The metadata keys the list filters and searches by, copied into columns on every metadata write:
 * `title`, the working directory `path`, and the project (shared/project.ts). A key that is not a
 * string counts as absent.
 */
export function searchColumnsOf(metadata: JsonObject): { title: string | null; cwd: string | null; project: string | null } {
  const text = (key: string) => (typeof metadata[key] === 'string' ? (metadata[key] as string) : null);
  return { title: text('title'), cwd: text('path'), project: projectPathOf(metadata) };
}

function toSession(row: SessionRow): StoredSession {
  return {
    sid: row.sid,
    namespace: row.namespace,
    tag: row.tag,
    flavor: row.flavor,
    parentSid: row.parent_sid,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    metadata: JSON.parse(row.metadata) as JsonObject,
    metadataVersion: row.metadata_version,
    agentState: row.agent_state === null ? null : (JSON.parse(row.agent_state) as JsonObject),
    agentStateVersion: row.agent_state_version,
    lifecycle: { state: row.lifecycle_state, since: row.lifecycle_since, reason: row.lifecycle_reason, by: row.lifecycle_by },
    lastRun:
      row.last_run_id === null
        ? null
        : { runId: row.last_run_id, status: row.last_run_status!, endedAt: row.last_run_ended_at, reason: row.last_run_reason },
    currentTurnId: row.current_turn_id,
    lastActivityAt: row.last_activity_at,
    presence: { active: row.active === 1, activeAt: row.active_at, aliveAt: row.alive_at, thinking: row.thinking === 1 },
    attention:
      row.attention_kind === null
        ? null
        : { kind: row.attention_kind, since: row.attention_since!, message: row.attention_message, tool: row.attention_tool },
    firstPrompt: row.first_prompt ?? null,
    firstPromptAt: row.first_prompt_at ?? null,
    lastPrompt: row.last_prompt ?? null,
    lastPromptAt: row.last_prompt_at ?? null,
  };
}

function maybe(row: unknown): StoredSession | undefined {
  return row === undefined ? undefined : toSession(row as SessionRow);
}

/*
 * Sessions read or written in a transaction stay parsed in `sql.rowCache` (see sql.ts: across
 * transactions on SQLite, for one transaction on PostgreSQL), kept current by every write below: a versioned write then skips the SELECT and the JSON
 * parse of its session (~10 µs of ~100 per write). Callers get a copy, since they change the
 * sessions they hold; the metadata and agentState documents are shared, as no code changes a
 * document in place (merges build new ones).
 */
/** Bounds the memory the cache holds (~1-2 KiB a session): past it, the longest-cached one goes. */
const MAX_CACHED_SESSIONS = 4096;

function copyOf(session: StoredSession): StoredSession {
  return {
    ...session,
    lifecycle: { ...session.lifecycle },
    lastRun: session.lastRun && { ...session.lastRun },
    presence: { ...session.presence },
    attention: session.attention && { ...session.attention },
  };
}

/* A cached session's sid by its tag (tagKey; a tag never changes): getSessionByTag finds it without a read. */

function cached(sql: Sql, sid: string): StoredSession | undefined {
  const session = sql.rowCache?.get(cacheKey(sid)) as StoredSession | undefined;
  return session && copyOf(session);
}

function remember(sql: Sql, session: StoredSession | undefined): StoredSession | undefined {
  const cache = sql.rowCache;
  if (!session || !cache) return session;
  cache.set(cacheKey(session.sid), copyOf(session));
  cache.set(tagKey(session.namespace, session.tag), session.sid);
  if (cache.size > MAX_CACHED_SESSIONS) cache.delete(cache.keys().next().value!);
  return session;
}

/** After a write to the session's row: the same change to its cached copy, or none kept. */
function afterWrite(sql: Sql, sid: string, change?: (session: StoredSession) => void): void {
  const session = sql.rowCache?.get(cacheKey(sid)) as StoredSession | undefined;
  if (!session) return;
  if (change) change(session);
  else sql.rowCache!.delete(cacheKey(sid));
}

/**
 * Reads a batch's sessions of one namespace in one statement into the transaction's rowCache, so
 * each write's getSession costs no round trip (PostgreSQL: the cache lives for the transaction, whose
 * lock keeps other writers of the namespace out).
 */
export async function prefetchSessions(sql: Sql, input: { namespace: string; sids: readonly string[] }): Promise<void> {
  if (!sql.rowCache || input.sids.length === 0) return;
  const missing = input.sids.filter((sid) => !sql.rowCache!.has(cacheKey(sid)));
  if (missing.length === 0) return;
  for (const row of await sql.all(SELECT_MANY_BY_SID, { namespace: input.namespace, sids: keyList(missing) }) as SessionRow[]) {
    remember(sql, toSession(row));
  }
}

const SELECT_MANY_ANY_NAMESPACE = `
  SELECT s.* FROM jsonb_array_elements_text(CAST(@sids AS jsonb)) AS k(sid),
    LATERAL (SELECT * FROM sessions WHERE sessions.sid = k.sid LIMIT 1) s`;

/** Sessions by sid whatever their namespace (a sweep's), into the cache, in one statement: PostgreSQL only. */
export async function prefetchSessionsAnyNamespace(sql: Sql, sids: readonly string[]): Promise<StoredSession[]> {
  if (sql.dialect !== 'postgres' || !sql.rowCache || sids.length === 0) return [];
  const known = sids.flatMap((sid) => cached(sql, sid) ?? []);
  const missing = sids.filter((sid) => !sql.rowCache!.has(cacheKey(sid)));
  const read = missing.length === 0 ? [] : ((await sql.all(SELECT_MANY_ANY_NAMESPACE, { sids: keyList(missing) })) as SessionRow[]).map((row) => remember(sql, toSession(row))!);
  return [...known, ...read];
}

/** As prefetchSessions, by tag (the hook route's sessions). */
export async function prefetchSessionsByTag(sql: Sql, input: { namespace: string; tags: readonly string[] }): Promise<void> {
  if (!sql.rowCache || input.tags.length === 0) return;
  // a tag whose session's row is no longer held (a write dropped it) is read again
  const missing = input.tags.filter((tag) => {
    const sid = sql.rowCache!.get(tagKey(input.namespace, tag));
    return sid === undefined || (sid !== null && !sql.rowCache!.has(cacheKey(sid as string)));
  });
  if (missing.length === 0) return;
  const found = new Set<string>();
  for (const row of await sql.all(SELECT_MANY_BY_TAG, { namespace: input.namespace, tags: keyList(missing) }) as SessionRow[]) {
    remember(sql, toSession(row));
    found.add(row.tag);
  }
  // a tag with no session is known absent for the transaction (its lock keeps other writers out): an
  // agent's first events (SessionStart) look it up more than once; insertSession ends the absence.
  // (A tag holding U+0000 is stored with U+FFFD: found under that spelling, it is looked up again.)
  if (sql.dialect !== 'postgres') return;
  for (const tag of missing) {
    if (!found.has(tag.replaceAll('\u0000', '\uFFFD')) && !sql.rowCache.has(tagKey(input.namespace, tag))) sql.rowCache.set(tagKey(input.namespace, tag), null);
  }
}

/** A session of the namespace; another namespace's session is exactly as absent as a missing one. */
export async function getSession(sql: Sql, key: { namespace: string; sid: string }): Promise<StoredSession | undefined> {
  const hit = cached(sql, key.sid);
  if (hit) return hit.namespace === key.namespace ? hit : undefined;
  return remember(sql, maybe(await sql.get(SELECT_BY_SID, key)));
}

/** For hub-internal work (sweeps) that has no namespace in hand. */
export async function getSessionAnyNamespace(sql: Sql, sid: string): Promise<StoredSession | undefined> {
  return cached(sql, sid) ?? remember(sql, maybe(await sql.get(SELECT_ANY_BY_SID, { sid })));
}

export async function getSessionByTag(sql: Sql, key: { namespace: string; tag: string }): Promise<StoredSession | undefined> {
  const sid = sql.rowCache?.get(tagKey(key.namespace, key.tag)) as string | null | undefined;
  if (sid === null) return undefined;
  const hit = sid === undefined ? undefined : cached(sql, sid);
  if (hit && hit.namespace === key.namespace && hit.tag === key.tag) return hit;
  return remember(sql, maybe(await sql.get(SELECT_BY_TAG, key)));
}

export async function insertSession(
  sql: Sql,
  input: { sid: string; namespace: string; tag: string; flavor: string; parentSid: string | null; metadata: JsonObject; now: number },
): Promise<void> {
  const params = { ...input, metadata: JSON.stringify(input.metadata), ...searchColumnsOf(input.metadata) };
  if (sql.dialect !== 'postgres') {
    await sql.run(INSERT, params);
    sql.rowCache?.delete(tagKey(input.namespace, input.tag));
    afterWrite(sql, input.sid);
    return;
  }
  // PostgreSQL: the row is known as INSERT writes it, and a new session has no rows elsewhere yet,
  // so the transaction's reads of it cost nothing and the insert waits for the batch's next round
  // trip (the tenant's lock keeps another insert of the tag out)
  await sql.write(INSERT, params);
  remember(sql, toSession({
    sid: input.sid, namespace: input.namespace, tag: input.tag, flavor: input.flavor, parent_sid: input.parentSid,
    created_at: input.now, updated_at: input.now, metadata: params.metadata, metadata_version: 1, agent_state: null, agent_state_version: 1,
    lifecycle_state: 'running', lifecycle_since: input.now, lifecycle_reason: null, lifecycle_by: 'runner',
    last_run_id: null, last_run_status: null, last_run_ended_at: null, last_run_reason: null, current_turn_id: null,
    last_activity_at: input.now, active: 0, active_at: null, alive_at: null, thinking: 0,
    attention_kind: null, attention_since: null, attention_message: null, attention_tool: null,
    first_prompt: null, first_prompt_at: null, last_prompt: null, last_prompt_at: null,
  }));
  noTakerYet(sql, input);
  noQueuedMessagesYet(sql, input.sid);
  noPendingApprovalsYet(sql, input.sid);
  noResumeTokensYet(sql, input.sid);
  noUsageYet(sql, input.sid);
}

export async function updateMetadata(
  sql: Sql,
  input: {
    sid: string;
    metadata: JsonObject;
    /** `metadata` already serialized by the caller (who needed it for the size check): used as is. */
    metadataJson?: string;
    version: number;
    now: number;
    countsAsActivity: boolean;
    previousActivityAt: number;
  },
): Promise<void> {
  const activityAt = input.countsAsActivity ? input.now : input.previousActivityAt;
  await sql.write(UPDATE_METADATA, {
    sid: input.sid,
    metadata: input.metadataJson ?? JSON.stringify(input.metadata),
    version: input.version,
    now: input.now,
    activityAt,
    ...searchColumnsOf(input.metadata),
  });
  metadataWritten(sql, { sid: input.sid, metadata: input.metadata, version: input.version, now: input.now, activityAt });
}

/** Keeps a cached session current after its metadata was written (here or by metadata-versions.ts). */
export function metadataWritten(sql: Sql, input: { sid: string; metadata: JsonObject; version: number; now: number; activityAt: number }): void {
  afterWrite(sql, input.sid, (session) => {
    session.metadata = input.metadata;
    session.metadataVersion = input.version;
    session.updatedAt = input.now;
    session.lastActivityAt = input.activityAt;
  });
}

export async function updateAgentState(
  sql: Sql,
  input: {
    sid: string;
    agentState: JsonObject | null;
    /** `agentState` already serialized by the caller (its size check): used as is. */
    agentStateJson?: string | null;
    version: number;
    now: number;
  },
): Promise<void> {
  await sql.write(UPDATE_AGENT_STATE, {
    sid: input.sid,
    agentState: input.agentState === null ? null : (input.agentStateJson ?? JSON.stringify(input.agentState)),
    version: input.version,
    now: input.now,
  });
  afterWrite(sql, input.sid, (session) => {
    session.agentState = input.agentState;
    session.agentStateVersion = input.version;
    session.updatedAt = input.now;
    session.lastActivityAt = input.now;
  });
}

export async function updateLifecycle(
  sql: Sql,
  input: { sid: string; state: LifecycleState; since: number; reason: string | null; by: Writer | null },
): Promise<void> {
  await sql.write(UPDATE_LIFECYCLE, input);
  afterWrite(sql, input.sid, (session) => {
    session.lifecycle = { state: input.state, since: input.since, reason: input.reason, by: input.by };
    session.updatedAt = input.since;
  });
}

export async function updateLastRun(
  sql: Sql,
  input: { sid: string; runId: string; status: RunStatus; endedAt: number | null; reason: string | null; now: number },
): Promise<void> {
  await sql.write(UPDATE_LAST_RUN, input);
  afterWrite(sql, input.sid, (session) => {
    session.lastRun = { runId: input.runId, status: input.status, endedAt: input.endedAt, reason: input.reason };
    session.updatedAt = input.now;
  });
}

export async function updateFlavor(sql: Sql, input: { sid: string; flavor: string }): Promise<void> {
  await sql.write(UPDATE_FLAVOR, input);
  afterWrite(sql, input.sid, (session) => {
    session.flavor = input.flavor;
  });
}

export async function updateCurrentTurn(sql: Sql, input: { sid: string; turnId: string | null; now: number }): Promise<void> {
  await sql.write(UPDATE_CURRENT_TURN, input);
  afterWrite(sql, input.sid, (session) => {
    session.currentTurnId = input.turnId;
    session.updatedAt = input.now;
  });
}

/** The characters of a prompt the row keeps (the title and the list cut it shorter: session-view.ts). */
const PROMPT_CHARS_KEPT = 800;

/**
 * A turn opened by `prompt` at `now` is the session's current one; the prompt is also its first
 * unless one opened earlier is kept, and its latest unless one opened later is. `session` (the
 * caller's copy, read in this transaction: current) is brought up to date, so the write's
 * `update-session` view needs no read, and the write sets what it now holds.
 */
export async function openPromptTurn(sql: Sql, session: StoredSession, input: { turnId: string; prompt: string; now: number }): Promise<void> {
  const prompt = Array.from(input.prompt).slice(0, PROMPT_CHARS_KEPT).join('');
  const apply = (target: StoredSession) => {
    target.currentTurnId = input.turnId;
    target.updatedAt = input.now;
    if (target.firstPromptAt === null || target.firstPromptAt > input.now) {
      target.firstPrompt = prompt;
      target.firstPromptAt = input.now;
    }
    if (target.lastPromptAt === null || target.lastPromptAt <= input.now) {
      target.lastPrompt = prompt;
      target.lastPromptAt = input.now;
    }
  };
  apply(session);
  const { sid, firstPrompt, firstPromptAt, lastPrompt, lastPromptAt } = session;
  await sql.write(OPEN_PROMPT_TURN, { sid, turnId: input.turnId, now: input.now, firstPrompt, firstPromptAt, lastPrompt, lastPromptAt });
  afterWrite(sql, session.sid, apply);
}

export async function touchActivity(sql: Sql, input: { sid: string; now: number }): Promise<void> {
  await sql.write(TOUCH_ACTIVITY, input);
  afterWrite(sql, input.sid, (session) => {
    session.lastActivityAt = input.now;
  });
}

export async function updatePresence(
  sql: Sql,
  input: { sid: string; active: boolean; activeAt: number | null; aliveAt: number | null; thinking: boolean },
): Promise<void> {
  await sql.write(UPDATE_PRESENCE, { ...input, active: input.active ? 1 : 0, thinking: input.thinking ? 1 : 0 });
  afterWrite(sql, input.sid, (session) => {
    session.presence = { active: input.active, activeAt: input.activeAt, aliveAt: input.aliveAt, thinking: input.thinking };
  });
}

/** Sets (or, with null, clears) the session's attention; not an update of the session (updatedAt stays). */
export async function updateAttention(sql: Sql, input: { sid: string; attention: Attention | null }): Promise<void> {
  const { attention } = input;
  await sql.write(UPDATE_ATTENTION, {
    sid: input.sid,
    kind: attention?.kind ?? null,
    since: attention?.since ?? null,
    message: attention?.message ?? null,
    tool: attention?.tool ?? null,
  });
  afterWrite(sql, input.sid, (session) => {
    session.attention = attention && { ...attention };
  });
}

/** Where a page of the list starts: after this (sort key, sid). */
export interface ListPosition {
  at: number;
  sid: string;
}

export async function listSessionsPage(sql: Sql, query: SessionListQuery & { namespace: string; limit: number; after?: ListPosition }): Promise<StoredSession[]> {
  const rows = await sql.all(listSessionsQuery(query), listSessionsParams(query)) as SessionRow[];
  return rows.map(toSession);
}

export async function listAllSessions(sql: Sql, namespace: string): Promise<StoredSession[]> {
  return (await sql.all(SELECT_ALL_IN_NAMESPACE, { namespace }) as SessionRow[]).map(toSession);
}

/** Sessions marked active whose last heartbeat is at or before `before` (partial index on active). */
export async function listStaleActiveSessions(sql: Sql, input: { before: number; limit: number }): Promise<StoredSession[]> {
  return (await sql.all(SELECT_STALE_ACTIVE, input) as SessionRow[]).map(toSession);
}

/** Running sessions with no activity since `before` (partial index on running). */
export async function listRunningSessionsWithoutActivity(sql: Sql, input: { before: number; limit: number }): Promise<StoredSession[]> {
  return (await sql.all(SELECT_RUNNING_WITHOUT_ACTIVITY, input) as SessionRow[]).map(toSession);
}
