import type { ResyncEvent, UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { Sql } from '../store/sql.js';
import { readReplay } from '../store/events.js';

/** `through`: the namespace's latest seq when the replay was read (every event up to it is in it, or older than asked). */
export type ReplayPlan = { kind: 'none' } | { kind: 'gap' } | { kind: 'events'; events: UpdateEvent[]; through: number };

/**
 * The events a client asking from `sinceSeq` missed, or a gap when some are no longer kept (or the
 * seq is from the future, e.g. another database): then the client must refetch snapshots.
 */
export async function planReplay(sql: Sql, input: { namespace: string; sinceSeq: number | undefined; sids?: ReadonlySet<string> }): Promise<ReplayPlan> {
  if (input.sinceSeq === undefined) return { kind: 'none' };
  // a malformed handshake lastSeq (Infinity: hub/socket/server.ts) is beyond any seq: a gap
  if (!Number.isSafeInteger(input.sinceSeq)) return { kind: 'gap' };
  // one read: a prune between reading pruned_through and the events would skip events unnoticed
  const { lastSeq, prunedThrough, events } = await readReplay(sql, { namespace: input.namespace, since: input.sinceSeq, sids: input.sids });
  if (input.sinceSeq > lastSeq || input.sinceSeq < prunedThrough) return { kind: 'gap' };
  return { kind: 'events', events, through: Math.max(lastSeq, events.at(-1)?.seq ?? lastSeq) };
}

/** The seq a planned replay brings its socket up to, if any: live updates at or below it are not sent again. */
export function replayedThrough(replay: ReplayPlan): number | undefined {
  return replay.kind === 'events' ? replay.through : undefined;
}

/** Sends a planned replay (call after the ack): a gap as `resync`, else the missed `update`s in order. */
export function sendReplay(socket: { emit(event: 'resync', body: ResyncEvent): unknown; emit(event: 'update', body: UpdateEvent): unknown }, replay: ReplayPlan): void {
  if (replay.kind === 'gap') socket.emit('resync', { reason: 'gap' });
  if (replay.kind === 'events') for (const event of replay.events) socket.emit('update', event);
}
