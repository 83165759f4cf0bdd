import { SubscribePayloadSchema, UnsubscribePayloadSchema } from '../../shared/protocol/dashboard.js';
import type { HubDeps } from '../services/deps.js';
import { toSnapshot } from '../services/snapshots.js';
import { namespaceSeqState } from '../store/events.js';
import { getSession, listAllSessions, type StoredSession } from '../store/sessions.js';
import type { SessionSnapshot } from '../../shared/protocol/session.js';
import type { DashboardClientToServerEvents } from '../../shared/protocol/events.js';
import { eventHandlers, type HandleOptions } from './handle.js';
import { liveAfter } from './publisher.js';
import { planReplay, replayedThrough, sendReplay } from './replay.js';
import { rooms } from './rooms.js';
import type { DashboardSocket } from './types.js';

/** The `/dashboard` events (spec section 10): read only. */
export function registerDashboardHandlers(socket: DashboardSocket, deps: HubDeps, options: HandleOptions): void {
  const { namespace } = socket.data.identity;
  const on = eventHandlers<DashboardClientToServerEvents>(socket, options);

  on('subscribe', SubscribePayloadSchema, 'ok', async (payload, ctx) => {
    // snapshots, their seq and the replay are read in one transaction so they agree (under the
    // namespace's write lock: other tenants' writes go on meanwhile)
    const { sessions, seq, replay } = await deps.store.transaction(async (tx) => {
      const stored: StoredSession[] = [];
      if (payload.sids) {
        for (const sid of payload.sids) {
          const session = await getSession(tx, { namespace, sid });
          if (session) stored.push(session);
        }
      } else stored.push(...(await listAllSessions(tx, namespace)));
      const sids = payload.sids ? new Set(stored.map((s) => s.sid)) : undefined;
      const sessions: SessionSnapshot[] = [];
      for (const session of stored) sessions.push(await toSnapshot(tx, deps, session));
      return {
        sessions,
        seq: (await namespaceSeqState(tx, namespace)).lastSeq,
        replay: await planReplay(tx, { namespace, sinceSeq: payload.sinceSeq ?? socket.data.lastSeq, sids }),
      };
    }, { namespace });
    const joined = payload.sids ? sessions.map((session) => rooms.sessionWatchers(session.sid)) : [rooms.namespace(namespace)];
    // the snapshots (and replay) cover every event through `seq`: with several processes, some of
    // those may still be on their way to this one, and must not follow as live updates
    for (const room of joined) {
      liveAfter(socket, room, Math.max(seq, replayedThrough(replay) ?? seq));
      void socket.join(room);
    }
    ctx.afterAck(() => sendReplay(socket, replay));
    return { ok: true, sessions, seq };
  });

  on('unsubscribe', UnsubscribePayloadSchema, 'ok', (payload) => {
    if (payload.sids) for (const sid of payload.sids) void socket.leave(rooms.sessionWatchers(sid));
    else for (const room of socket.rooms) if (room !== socket.id) void socket.leave(room);
    return { ok: true };
  });

  socket.on('disconnect', (reason) => socket.data.log.debug({ reason }, 'dashboard disconnected'));
}
