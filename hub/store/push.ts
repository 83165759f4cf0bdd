/**
 * Web Push: subscriptions (one row per browser endpoint, owned by the token that made it), the
 * hub's VAPID key pair (one row, shared by every process) and the sender's cursor per namespace.
 */
import type { Sql } from './sql.js';

const UPSERT_SUBSCRIPTION = `
  INSERT INTO push_subscriptions (endpoint, namespace, token_id, p256dh, auth, created_at)
  VALUES (@endpoint, @namespace, @tokenId, @p256dh, @auth, @now)
  ON CONFLICT (endpoint) DO UPDATE SET namespace = @namespace, token_id = @tokenId, p256dh = @p256dh, auth = @auth, created_at = @now`;
const DELETE_IN_NAMESPACE = `DELETE FROM push_subscriptions WHERE endpoint = @endpoint AND namespace = @namespace`;
const DELETE_ONE = `DELETE FROM push_subscriptions WHERE endpoint = @endpoint`;
/**
 * A namespace's subscriptions whose token still holds: a revoked or expired stored token's
 * browsers get nothing. Tokens given by SESSION_HUB_TOKENS have no row and always hold.
 */
const SELECT_LIVE = `
  SELECT s.endpoint, s.token_id AS "tokenId", s.p256dh, s.auth
  FROM push_subscriptions s LEFT JOIN tokens t ON t.id = s.token_id
  WHERE s.namespace = @namespace
    AND (t.id IS NULL OR (t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > @now)))
  ORDER BY s.created_at, s.endpoint`;
const SELECT_NAMESPACES = `SELECT DISTINCT namespace FROM push_subscriptions ORDER BY namespace`;
const COUNT = `SELECT COUNT(*) AS n FROM push_subscriptions WHERE namespace = @namespace`;

const INSERT_VAPID = `INSERT INTO push_vapid (id, public_key, private_key, created_at) VALUES (1, @publicKey, @privateKey, @now) ON CONFLICT (id) DO NOTHING`;
const SELECT_VAPID = `SELECT public_key AS "publicKey", private_key AS "privateKey" FROM push_vapid WHERE id = 1`;

const SELECT_CURSOR = `SELECT seq FROM push_cursors WHERE namespace = @namespace`;
const START_CURSOR = `INSERT INTO push_cursors (namespace, seq) VALUES (@namespace, @seq) ON CONFLICT (namespace) DO NOTHING`;
const UPSERT_CURSOR = {
  sqlite: `INSERT INTO push_cursors (namespace, seq) VALUES (@namespace, @seq) ON CONFLICT (namespace) DO UPDATE SET seq = MAX(seq, @seq)`,
  postgres: `INSERT INTO push_cursors AS c (namespace, seq) VALUES (@namespace, @seq) ON CONFLICT (namespace) DO UPDATE SET seq = GREATEST(c.seq, @seq)`,
};

export interface StoredPushSubscription {
  endpoint: string;
  tokenId: string;
  p256dh: string;
  auth: string;
}

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** Stores a subscription; the same endpoint subscribed again (another token, new keys) replaces the old row. */
export async function saveSubscription(
  sql: Sql,
  input: { endpoint: string; namespace: string; tokenId: string; p256dh: string; auth: string; now: number },
): Promise<void> {
  await sql.run(UPSERT_SUBSCRIPTION, input);
}

/** Removes a subscription of this namespace; false when it has none with that endpoint. */
export async function removeSubscription(sql: Sql, input: { endpoint: string; namespace: string }): Promise<boolean> {
  return (await sql.run(DELETE_IN_NAMESPACE, input)).changes > 0;
}

/** The push service said the subscription is gone (404/410). */
export async function dropSubscription(sql: Sql, endpoint: string): Promise<void> {
  await sql.run(DELETE_ONE, { endpoint });
}

export async function listLiveSubscriptions(sql: Sql, input: { namespace: string; now: number }): Promise<StoredPushSubscription[]> {
  return sql.all<StoredPushSubscription>(SELECT_LIVE, input);
}

export async function countSubscriptions(sql: Sql, namespace: string): Promise<number> {
  return Number((await sql.get<{ n: number }>(COUNT, { namespace }))!.n);
}

export async function listPushNamespaces(sql: Sql): Promise<string[]> {
  return (await sql.all<{ namespace: string }>(SELECT_NAMESPACES)).map((row) => row.namespace);
}

/** The stored key pair, or `candidate` stored now when there is none (the first process to start wins; all read the same row). */
export async function vapidKeysOrInsert(sql: Sql, candidate: () => VapidKeys, now: number): Promise<VapidKeys> {
  const stored = await sql.get<VapidKeys>(SELECT_VAPID);
  if (stored) return stored;
  await sql.run(INSERT_VAPID, { ...candidate(), now });
  return (await sql.get<VapidKeys>(SELECT_VAPID))!;
}

export async function pushCursor(sql: Sql, namespace: string): Promise<number | undefined> {
  const row = await sql.get<{ seq: number }>(SELECT_CURSOR, { namespace });
  return row === undefined ? undefined : Number(row.seq);
}

/** Sets the namespace's cursor if it has none yet. */
export async function startPushCursor(sql: Sql, input: { namespace: string; seq: number }): Promise<void> {
  await sql.run(START_CURSOR, input);
}

/** Moves the namespace's cursor forward (never back). */
export async function advancePushCursor(sql: Sql, input: { namespace: string; seq: number }): Promise<void> {
  await sql.run(UPSERT_CURSOR, input);
}
