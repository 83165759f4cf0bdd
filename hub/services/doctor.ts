/**
 * `session-hub doctor`: what in a hub database needs a person's attention. Pure reads; the CLI prints
 * the report. Thresholds come from the hub's own configuration so doctor agrees with the sweeps.
 */
import { FLAVORS } from '../../shared/flavors.js';
import { DEFAULT_TOOL_TIMEOUT_MS } from '../config.js';
import { dueTurnThresholds } from './turn-deadlines.js';
import type { Sql } from '../store/sql.js';
import { listWebhooks } from '../store/webhooks.js';
import type { Webhook } from '../../shared/protocol/webhooks.js';
import {
  findLostStops,
  findMissingTokens,
  findOldOpenTurns,
  findStuckRuns,
  findUnendedSessions,
  type LostStopFinding,
  type MissingTokenFinding,
  type OpenTurnFinding,
  type StuckRunFinding,
  type UnendedSessionFinding,
} from '../store/doctor.js';

/** A live run with no session activity for this long is reported even with a runner attached. */
export const DEFAULT_SILENT_RUN_MS = 24 * 3_600_000;
/** Turns whose Stop never came and sessions that never ended are reported from this far back. */
export const DEFAULT_LOST_EVENTS_MS = 7 * 86_400_000;
/** Each check reports at most this many rows (a database with more has bigger problems than a long list). */
const LIMIT = 1000;

export interface DoctorReport {
  ok: boolean;
  checkedAt: number;
  thresholds: { runGraceMs: number; silentRunMs: number; turnTimeoutMs: number; toolTimeoutMs: number; lostEventsMs: number };
  missingTokens: MissingTokenFinding[];
  stuckRuns: StuckRunFinding[];
  openTurns: OpenTurnFinding[];
  /** Hook events lost anyway (issue 23): turns closed as timeout that no Stop reached... */
  lostStops: LostStopFinding[];
  /** ...and hook sessions the hub ended after silence, their SessionEnd never received. */
  unendedSessions: UnendedSessionFinding[];
  /** Webhooks paused, failing, or that lost events to retention before delivering them. */
  webhooks: Webhook[];
}

/** A webhook worth a look: paused, failing now, or missing events it could not deliver in time. */
function webhookNeedsAttention(webhook: Webhook): boolean {
  return webhook.pausedAt !== null || webhook.failures > 0 || webhook.lostEvents > 0;
}

export async function diagnose(
  sql: Sql,
  input: { now: number; runGraceMs: number; turnTimeoutMs: number; toolTimeoutMs?: number; silentRunMs?: number; lostEventsMs?: number },
): Promise<DoctorReport> {
  const silentRunMs = input.silentRunMs ?? DEFAULT_SILENT_RUN_MS;
  const toolTimeoutMs = input.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const lostEventsMs = input.lostEventsMs ?? DEFAULT_LOST_EVENTS_MS;
  const missingTokens: MissingTokenFinding[] = [];
  for (const flavor of FLAVORS.values()) {
    missingTokens.push(...(await findMissingTokens(sql, { flavor: flavor.id, tokenKey: flavor.resumeTokenKey, limit: LIMIT })));
  }
  const stuckRuns = await findStuckRuns(sql, { lostBefore: input.now - input.runGraceMs, silentBefore: input.now - silentRunMs, limit: LIMIT });
  const openTurns = await findOldOpenTurns(sql, { ...dueTurnThresholds(input.now, { turnTimeoutMs: input.turnTimeoutMs, toolTimeoutMs }), limit: LIMIT });
  const lostStops = await findLostStops(sql, { since: input.now - lostEventsMs, limit: LIMIT });
  const unendedSessions = await findUnendedSessions(sql, { since: input.now - lostEventsMs, limit: LIMIT });
  const webhooks = (await listWebhooks(sql)).filter(webhookNeedsAttention);
  return {
    ok: missingTokens.length + stuckRuns.length + openTurns.length + lostStops.length + unendedSessions.length + webhooks.length === 0,
    checkedAt: input.now,
    thresholds: { runGraceMs: input.runGraceMs, silentRunMs, turnTimeoutMs: input.turnTimeoutMs, toolTimeoutMs, lostEventsMs },
    missingTokens,
    stuckRuns,
    openTurns,
    lostStops,
    unendedSessions,
    webhooks,
  };
}
