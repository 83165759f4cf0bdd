/**
 * Which runner sockets are bound to which sessions, in this process. Transport liveness only:
 * losing every socket makes a session inactive and starts its run's grace; it never ends anything.
 */
export class RunnerBindings {
  private readonly sessionsBySocket = new Map<string, Set<string>>();
  private readonly socketsBySession = new Map<string, Set<string>>();
  /** Sockets released from a session by its finalize: no longer its runner, still its transport. */
  private readonly releasedBySocket = new Map<string, Set<string>>();

  bind(socketId: string, sid: string): void {
    add(this.sessionsBySocket, socketId, sid);
    add(this.socketsBySession, sid, socketId);
    remove(this.releasedBySocket, socketId, sid);
  }

  /**
   * `session-finalize` ends the runner's binding: the socket no longer holds the session (it cannot
   * keep a later run alive or claim it), but it is still the transport the session was seen on, so
   * its disconnect still makes the session inactive at once when no bound socket is left (spec 6).
   */
  release(socketId: string, sid: string): void {
    this.unbind(socketId, sid);
    add(this.releasedBySocket, socketId, sid);
  }

  /** Returns true when no socket is left on the session. */
  unbind(socketId: string, sid: string): boolean {
    remove(this.sessionsBySocket, socketId, sid);
    remove(this.socketsBySession, sid, socketId);
    return !this.socketsBySession.has(sid);
  }

  /** Unbinds a socket from everything (a disconnect); returns the sessions left with no bound socket. */
  unbindSocket(socketId: string): string[] {
    const sids = [...(this.sessionsBySocket.get(socketId) ?? [])];
    const released = [...(this.releasedBySocket.get(socketId) ?? [])];
    this.releasedBySocket.delete(socketId);
    const left = sids.filter((sid) => this.unbind(socketId, sid));
    return [...left, ...released.filter((sid) => !this.socketsBySession.has(sid) && !left.includes(sid))];
  }

  isSocketBound(socketId: string, sid: string): boolean {
    return this.sessionsBySocket.get(socketId)?.has(sid) ?? false;
  }

  isBound(sid: string): boolean {
    return this.socketsBySession.has(sid);
  }
}

function add(map: Map<string, Set<string>>, key: string, value: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function remove(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
