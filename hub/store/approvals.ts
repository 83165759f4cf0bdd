import type { Approval, ApprovalStatus } from '../../shared/protocol/attention.js';
import type { JsonValue } from '../../shared/protocol/json.js';
import type { AllowRuleUpdate } from '../../shared/permission-output.js';
import type { Sql } from './sql.js';

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
}

const INSERT = `
  INSERT INTO approvals (approval_id, sid, namespace, status, tool, input, input_truncated, cwd, tool_use_id, created_at, expires_at, always_offer)
  VALUES (@approvalId, @sid, @namespace, 'pending', @tool, @input, @inputTruncated, @cwd, @toolUseId, @createdAt, @expiresAt, @alwaysOffer)`;
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
  };
}

export async function insertApproval(
  sql: Sql,
  input: { approvalId: string; sid: string; namespace: string; tool: string; input: JsonValue | null; inputTruncated: boolean; cwd: string | null; toolUseId: string | null; createdAt: number; expiresAt: number | null; alwaysOffer: readonly AllowRuleUpdate[] | null },
): Promise<void> {
  const { alwaysOffer, ...rest } = input;
  await sql.run(INSERT, { ...rest, input: input.input === null ? null : JSON.stringify(input.input), inputTruncated: input.inputTruncated ? 1 : 0, alwaysOffer: alwaysOffer === null ? null : JSON.stringify(alwaysOffer) });
}

/** An approval of this session in this namespace; any other is exactly as absent as a missing one. */
export async function getApproval(sql: Sql, key: { approvalId: string; sid: string; namespace: string }): Promise<Approval | undefined> {
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
  return (await sql.all(SELECT_PENDING, { sid }) as ApprovalRow[]).map(toApproval);
}

/** Ends a pending approval; false when it was no longer pending (nothing changed). */
export async function finishApproval(
  sql: Sql,
  input: { approvalId: string; status: Exclude<ApprovalStatus, 'pending'>; at: number; decidedBy: string | null; decidedByLabel?: string | null; message: string | null; answers?: Record<string, string>; always?: boolean },
): Promise<boolean> {
  return (await sql.run(FINISH, { ...input, decidedByLabel: input.decidedByLabel ?? null, answers: input.answers === undefined ? null : JSON.stringify(input.answers), always: input.always === true ? 1 : 0 })).changes === 1;
}

/** Pending approvals nobody can be waiting on: every one (`before` null: the whole hub was down), or those past their waiter's end. */
export async function listLeftPendingApprovals(sql: Sql, input: { before: number | null; limit: number }): Promise<{ approval: Approval; namespace: string }[]> {
  return (await sql.all(SELECT_LEFT_PENDING, input) as ApprovalRow[]).map((row) => ({ approval: toApproval(row), namespace: row.namespace }));
}
