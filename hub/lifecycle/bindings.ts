/**
 * Which runner sockets are bound to which sessions, in this process. Transport liveness only:
 * losing every socket makes a session inactive and starts its run's grace; it never ends anything.
 */
export class RunnerBindings {
  private readonly sessionsBySocket = new Map<string, Set<string>>();
  private readonly socketsBySession = new Map<string, Set<string>>();

  bind(socketId: string, sid: string): void {
    add(this.sessionsBySocket, socketId, sid);
    add(this.socketsBySession, sid, socketId);
  }

  /** Returns true when no socket is left on the session. */
  unbind(socketId: string, sid: string): boolean {
    remove(this.sessionsBySocket, socketId, sid);
    remove(this.socketsBySession, sid, socketId);
    return !this.socketsBySession.has(sid);
  }

  /** Unbinds a socket from everything; returns the sessions left with no socket. */
  unbindSocket(socketId: string): string[] {
    const sids = [...(this.sessionsBySocket.get(socketId) ?? [])];
    return sids.filter((sid) => this.unbind(socketId, sid));
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
