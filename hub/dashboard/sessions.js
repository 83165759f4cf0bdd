// @ts-check
/**
 * The page's view of the SDK's live map (`DashboardClient.sessions`, which applies the snapshots
 * and `update`s: shared/client/apply-update.ts): the order rows are shown in, and change notices
 * batched per task so that a subscribe of many snapshots renders once. No DOM and no socket here.
 */

/**
 * @typedef {import('../../shared/protocol/session.js').SessionSnapshot} SessionSnapshot
 * @typedef {import('../../shared/protocol/session.js').TurnSummary} TurnSummary
 * @typedef {import('../../shared/protocol/broadcast.js').UpdateEvent} UpdateEvent
 * @typedef {import('../../shared/protocol/attention.js').Approval} Approval
 * @typedef {import('../../shared/client/dashboard-client.js').DashboardClient} DashboardClient
 * @typedef {{ kind: 'reset' } | { kind: 'sessions', sids: string[] }} Change
 *   `reset`: render everything again (sessions may have left the map); `sessions`: these changed or appeared.
 * @typedef {'activity' | 'created'} SortOrder
 */

export class SessionView {
  constructor() {
    /** @type {DashboardClient | null} */
    this.client = null;
    /** @type {Set<(change: Change) => void>} */
    this.listeners = new Set();
    /** @type {Set<(sid: string) => void>} */
    this.staleResumeListeners = new Set();
    /** @type {Set<(approval: Approval) => void>} */
    this.approvalListeners = new Set();
    /** @type {Set<(message: import('../../shared/protocol/messages.js').Message) => void>} */
    this.messageListeners = new Set();
    /** @type {Set<string>} */
    this.dirty = new Set();
    this.flushQueued = false;
  }

  /** @param {DashboardClient} client */
  attach(client) {
    this.client = client;
    client.on('session', (snapshot) => this.mark(snapshot.sid));
    // After a resync (the map was replaced) or a reconnect, sessions may have left the map.
    client.on('resync', () => this.reset());
    client.on('reconnect', () => this.reset());
    // `update` bodies do not carry the resume status; a metadata or lifecycle change may move it.
    client.on('update', (event) => {
      const body = event.body;
      if (body.t === 'update-session' && (body.metadata || body.lifecycle)) for (const fn of this.staleResumeListeners) fn(body.sid);
      // a turn event the map does not hold (activity on a turn that already closed) still changes
      // what the detail view shows: tell the listeners
      if (body.t === 'turn') this.mark(body.sid);
      // approvals are not part of the snapshot: the views that show them listen here
      if (body.t === 'approval') for (const fn of this.approvalListeners) fn(body.approval);
      // so are a person's messages to the agent
      if (body.t === 'message') for (const fn of this.messageListeners) fn(body.message);
    });
    this.reset();
  }

  /** @param {(change: Change) => void} fn */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** @param {(sid: string) => void} fn called when a session's resume status may be stale */
  onResumeStale(fn) {
    this.staleResumeListeners.add(fn);
    return () => this.staleResumeListeners.delete(fn);
  }

  /** @param {(approval: Approval) => void} fn called when an approval opens or changes status */
  onApproval(fn) {
    this.approvalListeners.add(fn);
    return () => this.approvalListeners.delete(fn);
  }

  /** @param {(message: import('../../shared/protocol/messages.js').Message) => void} fn called when a message is queued or changes state */
  onMessage(fn) {
    this.messageListeners.add(fn);
    return () => this.messageListeners.delete(fn);
  }

  /** @param {string} sid */
  get(sid) {
    return this.client?.sessions.get(sid);
  }

  /**
   * The sessions in display order: by last activity (`lastActivityAt`: prompts, each tool use,
   * usage, writes, lifecycle; not heartbeats — `updatedAt` does not move while a turn runs its
   * tools, so a working agent sank and its row read "20 min ago"), or by creation. Newest first;
   * the sid breaks ties.
   * @param {SortOrder} [order]
   */
  list(order = 'activity') {
    const all = this.client ? [...this.client.sessions.values()] : [];
    const key = order === 'created' ? (/** @type {SessionSnapshot} */ s) => s.createdAt : lastActivityOf;
    return all.sort((a, b) => key(b) - key(a) || (a.sid < b.sid ? -1 : 1));
  }

  /**
   * Take the resume status (and only that) from a freshly fetched snapshot.
   * @param {SessionSnapshot} fetched
   */
  setResume(fetched) {
    this.client?.setResume(fetched.sid, fetched.resume);
  }

  /** @param {string} sid */
  mark(sid) {
    this.dirty.add(sid);
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      const sids = [...this.dirty];
      this.dirty.clear();
      if (sids.length) this.emit({ kind: 'sessions', sids });
    });
  }

  reset() {
    this.dirty.clear();
    this.emit({ kind: 'reset' });
  }

  /** @param {Change} change */
  emit(change) {
    for (const fn of this.listeners) fn(change);
  }
}

/** When the session last did something a person would call activity (its row's time). @param {SessionSnapshot} s */
export function lastActivityOf(s) {
  return Math.max(s.lastActivityAt ?? 0, s.updatedAt);
}
