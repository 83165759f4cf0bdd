/**
 * Webhooks: one row per webhook, holding its cursor over the namespace's event log and its retry
 * state. The cursor only moves forward (every update that advances it says `cursor_seq < @seq`), so a
 * late or repeated write can never send it back.
 */
import type { Webhook, WebhookEventName, WebhookFormat } from '../../shared/protocol/webhooks.js';
import type { Sql } from './sql.js';

const COLUMNS = `id, namespace, url, events, format, cursor_seq AS "cursorSeq", failures, failing_since AS "failingSince",
  next_attempt_at AS "nextAttemptAt", paused_at AS "pausedAt", last_error AS "lastError", delivered,
  last_delivered_at AS "lastDeliveredAt", lost_events AS "lostEvents", created_at AS "createdAt"`;

const INSERT = `
  INSERT INTO webhooks (id, namespace, url, events, format, secret, cursor_seq, created_at)
  VALUES (@id, @namespace, @url, @events, @format, @secret, @cursorSeq, @now)`;
const SELECT_BY_NAMESPACE = `SELECT ${COLUMNS} FROM webhooks WHERE namespace = @namespace ORDER BY created_at, id`;
const SELECT_ALL = `SELECT ${COLUMNS} FROM webhooks ORDER BY namespace, created_at, id`;
const SELECT_ONE = `SELECT ${COLUMNS}, secret FROM webhooks WHERE id = @id`;
const SELECT_DUE = `SELECT ${COLUMNS}, secret FROM webhooks WHERE paused_at IS NULL AND next_attempt_at <= @now ORDER BY created_at, id`;
const DELETE = `DELETE FROM webhooks WHERE id = @id`;
const DELIVERED = `
  UPDATE webhooks SET cursor_seq = @seq, failures = 0, failing_since = NULL, next_attempt_at = 0, last_error = NULL,
    delivered = delivered + 1, last_delivered_at = @now
  WHERE id = @id AND cursor_seq < @seq`;
const SKIPPED = `UPDATE webhooks SET cursor_seq = @seq, lost_events = lost_events + @lost, last_error = COALESCE(@note, last_error) WHERE id = @id AND cursor_seq < @seq`;
const FAILED = `
  UPDATE webhooks SET failures = failures + 1, failing_since = COALESCE(failing_since, @now), next_attempt_at = @nextAttemptAt,
    last_error = @error, paused_at = CASE WHEN failures + 1 >= @pauseAfter THEN @now ELSE NULL END
  WHERE id = @id`;
// also acknowledges events lost to retention: doctor stops listing them
const RESUMED = `UPDATE webhooks SET paused_at = NULL, failures = 0, failing_since = NULL, next_attempt_at = 0, lost_events = 0 WHERE id = @id`;
const COUNT_PAUSED = `SELECT COUNT(*) AS n FROM webhooks WHERE paused_at IS NOT NULL`;

interface WebhookRow extends Omit<Webhook, 'events' | 'format'> {
  events: string;
  format: string;
}

/** A webhook with what delivering needs: its secret. */
export interface WebhookWithSecret extends Webhook {
  secret: string;
}

function fromRow<Row extends WebhookRow>(row: Row): Omit<Row, 'events' | 'format'> & { events: WebhookEventName[]; format: WebhookFormat } {
  return { ...row, events: JSON.parse(row.events) as WebhookEventName[], format: row.format as WebhookFormat };
}

export async function insertWebhook(
  sql: Sql,
  input: { id: string; namespace: string; url: string; events: readonly WebhookEventName[]; format: WebhookFormat; secret: string; cursorSeq: number; now: number },
): Promise<void> {
  await sql.run(INSERT, { ...input, events: JSON.stringify(input.events) });
}

/** A namespace's webhooks, or every one (namespace undefined: the offline CLI and doctor). */
export async function listWebhooks(sql: Sql, namespace?: string): Promise<Webhook[]> {
  const rows = namespace === undefined ? await sql.all<WebhookRow>(SELECT_ALL) : await sql.all<WebhookRow>(SELECT_BY_NAMESPACE, { namespace });
  return rows.map(fromRow);
}

export async function getWebhook(sql: Sql, id: string): Promise<WebhookWithSecret | undefined> {
  const row = await sql.get<WebhookRow & { secret: string }>(SELECT_ONE, { id });
  return row && fromRow(row);
}

/** Webhooks not paused whose next attempt is due. */
export async function listDueWebhooks(sql: Sql, now: number): Promise<WebhookWithSecret[]> {
  return (await sql.all<WebhookRow & { secret: string }>(SELECT_DUE, { now })).map(fromRow);
}

export async function deleteWebhook(sql: Sql, id: string): Promise<boolean> {
  return (await sql.run(DELETE, { id })).changes > 0;
}

/** A 2xx for the event at `seq`: the cursor moves past it and the failure streak ends. False: the webhook is gone (or already past `seq`). */
export async function markDelivered(sql: Sql, input: { id: string; seq: number; now: number }): Promise<boolean> {
  return (await sql.run(DELIVERED, input)).changes > 0;
}

/** Moves the cursor past events the filter does not want (lost: 0) or that retention pruned (lost: how many, with a note). */
export async function skipTo(sql: Sql, input: { id: string; seq: number; lost: number; note: string | null }): Promise<void> {
  await sql.run(SKIPPED, input);
}

/** One more failed attempt; the webhook is paused when the streak reaches `pauseAfter`. */
export async function markFailed(sql: Sql, input: { id: string; now: number; nextAttemptAt: number; error: string; pauseAfter: number }): Promise<void> {
  await sql.run(FAILED, input);
}

export async function resumeWebhook(sql: Sql, id: string): Promise<boolean> {
  return (await sql.run(RESUMED, { id })).changes > 0;
}

export async function countPausedWebhooks(sql: Sql): Promise<number> {
  return Number((await sql.get<{ n: number }>(COUNT_PAUSED))!.n);
}
