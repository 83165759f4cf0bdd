// @ts-check
/**
 * The page's copy of the namespace's sessions: snapshots from `subscribe`, kept current by
 * `update` bodies (spec section 5). No DOM and no socket here.
 */

/**
 * @typedef {{ version: number, value: Record<string, unknown> }} VersionedMetadata
 * @typedef {{ version: number, value: Record<string, unknown> | null }} VersionedAgentState
 * @typedef {{ status: string, endedAt: number | null, reason: string | null }} LastRun
 * @typedef {{ state: 'running' | 'idle' | 'ended' | 'archived', since: number, reason: string | null, by: string | null, lastRun: LastRun | null }} Lifecycle
 * @typedef {{ active: boolean, activeAt: number | null, thinking: boolean }} Presence
 * @typedef {{ available: boolean, safe: boolean, tokenKey: string | null, reason: string | null }} ResumeStatus
 * @typedef {{ turnId: string, sid: string, kind: 'prompt' | 'recovery', prompt: string | null, promptTruncated: boolean,
 *   status: string, openedAt: number, closedAt: number | null, response: string | null, activityCount: number }} TurnSummary
 * @typedef {{ sid: string, namespace: string, tag: string, flavor: string, parentSid: string | null, createdAt: number,
 *   updatedAt: number, metadata: VersionedMetadata, agentState: VersionedAgentState, lifecycle: Lifecycle,
 *   presence: Presence, resume: ResumeStatus, currentTurn: TurnSummary | null }} SessionSnapshot
 * @typedef {{ t: 'update-session', sid: string, metadata: VersionedMetadata | null, agentState: VersionedAgentState | null,
 *   lifecycle: Lifecycle | null, presence: Presence | null }
 *   | { t: 'session-created', sid: string, session: SessionSnapshot }
 *   | { t: 'turn', sid: string, turn: TurnSummary }} UpdateBody
 * @typedef {{ id: string, seq: number, createdAt: number, body: UpdateBody }} UpdateEvent
 *
 * @typedef {{ kind: 'reset' }
 *   | { kind: 'session', sid: string, staleResume: boolean }} Change
 *   `staleResume`: the change may have moved the resume status, which `update` bodies do not carry.
 */

export class SessionStore {
  constructor() {
    /** @type {Map<string, SessionSnapshot>} */
    this.sessions = new Map();
    /** @type {Set<(change: Change) => void>} */
    this.listeners = new Set();
  }

  /** @param {(change: Change) => void} fn */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** @param {Change} change */
  emit(change) {
    for (const fn of this.listeners) fn(change);
  }

  /** @param {string} sid */
  get(sid) {
    return this.sessions.get(sid);
  }

  /** Newest first by creation, so rows do not jump around as they update. */
  list() {
    return [...this.sessions.values()].sort((a, b) => b.createdAt - a.createdAt || (a.sid < b.sid ? -1 : 1));
  }

  /** @param {SessionSnapshot[]} snapshots */
  replaceAll(snapshots) {
    this.sessions = new Map(snapshots.map((s) => [s.sid, s]));
    this.emit({ kind: 'reset' });
  }

  /** @param {UpdateEvent} event */
  apply(event) {
    const body = event.body;
    if (body.t === 'session-created') {
      this.sessions.set(body.sid, body.session);
      this.emit({ kind: 'session', sid: body.sid, staleResume: false });
      return;
    }
    const current = this.sessions.get(body.sid);
    if (!current) return; // not in our view (a later snapshot will bring it)
    const updatedAt = Math.max(current.updatedAt, event.createdAt);
    if (body.t === 'turn') {
      const turn = body.turn;
      let currentTurn = current.currentTurn;
      if (turn.status === 'open') currentTurn = turn;
      else if (currentTurn?.turnId === turn.turnId) currentTurn = null;
      this.sessions.set(body.sid, { ...current, currentTurn, updatedAt });
      this.emit({ kind: 'session', sid: body.sid, staleResume: false });
      return;
    }
    /** @type {SessionSnapshot} */
    const next = { ...current };
    if (body.metadata) next.metadata = body.metadata;
    if (body.agentState) next.agentState = body.agentState;
    if (body.lifecycle) next.lifecycle = body.lifecycle;
    if (body.presence) next.presence = body.presence;
    // A heartbeat alone is not an update of the session.
    if (body.metadata || body.agentState || body.lifecycle) next.updatedAt = updatedAt;
    this.sessions.set(body.sid, next);
    this.emit({ kind: 'session', sid: body.sid, staleResume: Boolean(body.metadata || body.lifecycle) });
  }

  /**
   * Take the resume status (and only that) from a freshly fetched snapshot.
   * @param {SessionSnapshot} fetched
   */
  setResume(fetched) {
    const current = this.sessions.get(fetched.sid);
    if (!current) return;
    this.sessions.set(fetched.sid, { ...current, resume: fetched.resume });
    this.emit({ kind: 'session', sid: fetched.sid, staleResume: false });
  }
}
