/**
 * `session-hub doctor`: what in a hub database needs a person's attention. Pure reads; the CLI prints
 * the report. Thresholds come from the hub's own configuration so doctor agrees with the sweeps.
 */
import { FLAVORS } from '../../shared/flavors.js';
import type { Db } from '../store/db.js';
import {
  findMissingTokens,
  findOldOpenTurns,
  findStuckRuns,
  type MissingTokenFinding,
  type OpenTurnFinding,
  type StuckRunFinding,
} from '../store/doctor.js';

/** A live run with no session activity for this long is reported even with a runner attached. */
export const DEFAULT_SILENT_RUN_MS = 24 * 3_600_000;
/** Each check reports at most this many rows (a database with more has bigger problems than a long list). */
const LIMIT = 1000;

export interface DoctorReport {
  ok: boolean;
  checkedAt: number;
  thresholds: { runGraceMs: number; silentRunMs: number; turnTimeoutMs: number };
  missingTokens: MissingTokenFinding[];
  stuckRuns: StuckRunFinding[];
  openTurns: OpenTurnFinding[];
}

export function diagnose(db: Db, input: { now: number; runGraceMs: number; turnTimeoutMs: number; silentRunMs?: number }): DoctorReport {
  const silentRunMs = input.silentRunMs ?? DEFAULT_SILENT_RUN_MS;
  const missingTokens = [...FLAVORS.values()].flatMap((flavor) =>
    findMissingTokens(db, { flavor: flavor.id, tokenKey: flavor.resumeTokenKey, limit: LIMIT }),
  );
  const stuckRuns = findStuckRuns(db, { lostBefore: input.now - input.runGraceMs, silentBefore: input.now - silentRunMs, limit: LIMIT });
  const openTurns = findOldOpenTurns(db, { openedBefore: input.now - input.turnTimeoutMs, limit: LIMIT });
  return {
    ok: missingTokens.length + stuckRuns.length + openTurns.length === 0,
    checkedAt: input.now,
    thresholds: { runGraceMs: input.runGraceMs, silentRunMs, turnTimeoutMs: input.turnTimeoutMs },
    missingTokens,
    stuckRuns,
    openTurns,
  };
}
