/**
 * Spec 9 (revised): a turn times out after no activity, not after its opening.
 * - turns.last_activity_at: the hub's time of the turn's latest activity (its prompt, a tool use,
 *   usage, an attention change, a thinking heartbeat); set for open turns, NULL on turns closed
 *   before this migration (nothing reads it once a turn is closed);
 * - the sweep's partial index walks open turns by it instead of by opening;
 * - running activities, a handful at any time, indexed by turn (the sweep's "tool still running"
 *   test) and by session (a session's end abandons them).
 */
export const migration014 = `
ALTER TABLE turns ADD COLUMN last_activity_at INTEGER;
UPDATE turns SET last_activity_at = opened_at WHERE status = 'open';
DROP INDEX turns_open_by_age;
CREATE INDEX turns_open_by_activity ON turns (last_activity_at) WHERE status = 'open';
CREATE INDEX activities_running_by_turn ON activities (turn_id) WHERE status = 'running';
CREATE INDEX activities_running_by_session ON activities (sid) WHERE status = 'running';
`;
