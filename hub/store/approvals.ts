import type { Approval, ApprovalAskedBy, ApprovalStatus } from '../../shared/protocol/attention.js';
import type { JsonValue } from '../../shared/protocol/json.js';
import type { AllowRuleUpdate } from '../../shared/permission-output.js';
import type { Sql } from './sql.js';
import { keyList } from './key-lists.js';
import { noneToRead, sessionsToRead } from './carried-reads.js';
import { cacheListsBySession, removeFromCachedLists } from './cached-lists.js';

interface ApprovalRow {
  approval_id: string;
  sid: string;
  namespace: string;
  status: ApprovalStatus;
  tool: string;
  input: string | null;
  input_truncated: number;
  cwd: string | null;
  tool_use_id: string | null;
  created_at: number;
  decided_at: number | null;
  decided_by: string | null;
  decided_by_label: string | null;
  message: string | null;
  expires_at: number | string | null;
  answers: string | null;
  always_offer: string | null;
  always: number;
  asked_by: ApprovalAskedBy;
}

const INSERT = `
  INSERT INTO approvals (approval_id, sid, namespace, status, tool, input, input_truncated, cwd, tool_use_id, created_at, expires_at, always_offer, asked_by)
  VALUES (@approvalId, @sid, @namespace, 'pending', @tool, @input, @inputTruncated, @cwd, @toolUseId, @createdAt, @expiresAt, @alwaysOffer, @askedBy)`;
const SELECT_ONE = `SELECT * FROM approvals WHERE approval_id = @approvalId AND sid = @sid AND namespace = @namespace`;
const SELECT_ANY = `SELECT * FROM approvals WHERE approval_id = @approvalId`;
// pending first (oldest first: the one the agent has waited on longest), then the ended ones, latest end first
const SELECT_FOR_SESSION = `
  SELECT * FROM approvals WHERE sid = @sid
  ORDER BY CASE WHEN status = 'pending' THEN 0 ELSE 1 END,
    CASE WHEN status = 'pending' THEN created_at ELSE -decided_at END, created_at DESC, approval_id`;
const SELECT_PENDING = `SELECT * FROM approvals WHERE sid = @sid AND status = 'pending' ORDER BY created_at, approval_id`;
/** Pending approvals of any session whose waiter is over (expires_at before @before), or all pending ones (@before NULL). */
const SELECT_LEFT_PENDING = `
  SELECT * FROM approvals WHERE status = 'pending' AND (CAST(@before AS BIGINT) IS NULL OR expires_at < @before)
  ORDER BY created_at, approval_id LIMIT @limit`;
/** Compare-and-set: only a pending approval ends, so two deciders (or a decider and the timeout) cannot both win. */
const FINISH = `
  UPDATE approvals SET status = @status, decided_at = @at, decided_by = @decidedBy, decided_by_label = @decidedByLabel, message = @message, answers = @answers, always = @always
  WHERE approval_id = @approvalId AND status = 'pending'`;

function toApproval(row: ApprovalRow): Approval {
  return {
    approvalId: row.approval_id,
    sid: row.sid,
    status: row.status,
    tool: row.tool,
    input: row.input === null ? null : (JSON.parse(row.input) as JsonValue),
    inputTruncated: row.input_truncated === 1,
    cwd: row.cwd,
    toolUseId: row.tool_use_id,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
    decidedByLabel: row.decided_by_label,
    message: row.message,
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    ...(row.answers === null ? {} : { answers: JSON.parse(row.answers) as Record<string, string> }),
    alwaysOffer: row.always_offer === null ? null : (JSON.parse(row.always_offer) as AllowRuleUpdate[]),
    always: Number(row.always) === 1,
    askedBy: row.asked_by,
  };
}

/*
 * On PostgreSQL a batch reads its sessions' pending approvals at once (prefetchPendingApprovals,
 * from batch-reads.ts) into the transaction's rowCache, and the writes here keep those lists
 * current: a hook event's attention check reads nothing while the lock is held (issue 31). Not on
 * SQLite, whose cache outlives transactions.
 */
const pendingKey = (sid: string) => `pending-approvals:${sid}`;
const cacheOf = (sql: Sql) => (sql.dialect === 'postgres' ? sql.rowCache : undefined);
const byAge = (a: Approval, b: Approval) => a.createdAt - b.createdAt || (a.approvalId < b.approvalId ? -1 : a.approvalId > b.approvalId ? 1 : 0);

export const SELECT_PENDING_OF_SESSIONS = `
  SELECT s.sid AS session_sid, a.* FROM sessions s LEFT JOIN approvals a ON a.sid = s.sid AND a.status = 'pending'
  WHERE s.namespace = @namespace
    AND (s.sid = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@sids AS jsonb)))) OR s.tag = ANY (ARRAY(SELECT jsonb_array_elements_text(CAST(@tags AS jsonb)))))`;

/** The pending approvals of a PostgreSQL batch's sessions (by sid or tag), in one statement. */
export async function prefetchPendingApprovals(sql: Sql, input: { namespace: string; sids: readonly string[]; tags: readonly string[] }): Promise<void> {
  const cache = cacheOf(sql);
  if (!cache) return;
  const toRead = sessionsToRead(sql, input, (sid) => cache.has(pendingKey(sid)));
  if (noneToRead(toRead)) return;
  const rows = await sql.all<ApprovalRow & { session_sid: string }>(SELECT_PENDING_OF_SESSIONS, { namespace: input.namespace, sids: keyList(toRead.sids), tags: keyList(toRead.tags) });
  cacheListsBySession(cache, rows, pendingKey, (row) => (row.approval_id === null ? undefined : toApproval(row)), byAge);
}

/** A session created in this PostgreSQL transaction has no pending approval yet (nothing to read). */
export function noPendingApprovalsYet(sql: Sql, sid: string): void {
  cacheOf(sql)?.set(pendingKey(sid), []);
}

export async function insertApproval(
  sql: Sql,
  input: { approvalId: string; sid: string; namespace: string; tool: string; input: JsonValue | null; inputTruncated: boolean; cwd: string | null; toolUseId: string | null; createdAt: number; expiresAt: number | null; alwaysOffer: readonly AllowRuleUpdate[] | null; askedBy: ApprovalAskedBy },
): Promise<void> {
  const { alwaysOffer, ...rest } = input;
  const row: ApprovalRow = {
    approval_id: input.approvalId, sid: input.sid, namespace: input.namespace, status: 'pending', tool: input.tool,
    input: input.input === null ? null : JSON.stringify(input.input), input_truncated: input.inputTruncated ? 1 : 0,
    cwd: input.cwd, tool_use_id: input.toolUseId, created_at: input.createdAt, expires_at: input.expiresAt,
    decided_at: null, decided_by: null, decided_by_label: null, message: null, answers: null,
    always_offer: alwaysOffer === null ? null : JSON.stringify(alwaysOffer), always: 0, asked_by: input.askedBy,
  };
  // a new id: nothing to learn from the row count, so the insert waits for the batch's next round trip
  await sql.write(INSERT, { ...rest, input: row.input, inputTruncated: row.input_truncated, alwaysOffer: row.always_offer });
  const pending = cacheOf(sql)?.get(pendingKey(input.sid)) as Approval[] | undefined;
  if (pending) pending.push(toApproval(row)), pending.sort(byAge);
}

/** An approval of this session in this namespace; any other is exactly as absent as a missing one. */
export async function getApproval(sql: Sql, key: { approvalId: string; sid: string; namespace: string }): Promise<Approval | undefined> {
  // one of the session's pending approvals the batch read (its namespace's): nothing to read
  const pending = (cacheOf(sql)?.get(pendingKey(key.sid)) as Approval[] | undefined)?.find((approval) => approval.approvalId === key.approvalId);
  if (pending) return { ...pending };
  const row = await sql.get(SELECT_ONE, key) as ApprovalRow | undefined;
  return row && toApproval(row);
}

/** For the waiter, which holds the id it opened. */
export async function getApprovalById(sql: Sql, approvalId: string): Promise<{ approval: Approval; namespace: string } | undefined> {
  const row = await sql.get(SELECT_ANY, { approvalId }) as ApprovalRow | undefined;
  return row && { approval: toApproval(row), namespace: row.namespace };
}

export async function listApprovals(sql: Sql, sid: string): Promise<Approval[]> {
  return (await sql.all(SELECT_FOR_SESSION, { sid }) as ApprovalRow[]).map(toApproval);
}

export async function listPendingApprovals(sql: Sql, sid: string): Promise<Approval[]> {
  const pending = cacheOf(sql)?.get(pendingKey(sid)) as Approval[] | undefined;
  if (pending) return pending.map((approval) => ({ ...approval }));
  return (await sql.all(SELECT_PENDING, { sid }) as ApprovalRow[]).map(toApproval);
}

/** Ends a pending approval; false when it was no longer pending (nothing changed). */
export async function finishApproval(
  sql: Sql,
  input: { approvalId: string; status: Exclude<ApprovalStatus, 'pending'>; at: number; decidedBy: string | null; decidedByLabel?: string | null; message: string | null; answers?: Record<string, string>; always?: boolean },
): Promise<boolean> {
  const params = { ...input, decidedByLabel: input.decidedByLabel ?? null, answers: input.answers === undefined ? null : JSON.stringify(input.answers), always: input.always === true ? 1 : 0 };
  // pending in a list the batch read and holds under its lock: the compare-and-set changes its row,
  // so the statement waits for the batch's next round trip with nothing to learn from its row count
  if (removeFromCachedLists<Approval>(sql, 'pending-approvals:', (approval) => approval.approvalId === input.approvalId)) {
    await sql.write(FINISH, params);
    return true;
  }
  return (await sql.run(FINISH, params)).changes === 1;
}


/** Pending approvals nobody can be waiting on: every one (`before` null: the whole hub was down), or those past their waiter's end. */
export async function listLeftPendingApprovals(sql: Sql, input: { before: number | null; limit: number }): Promise<{ approval: Approval; namespace: string }[]> {
  return (await sql.all(SELECT_LEFT_PENDING, input) as ApprovalRow[]).map((row) => ({ approval: toApproval(row), namespace: row.namespace }));
}
