import type { ResyncEvent, UpdateEvent } from '../../shared/protocol/broadcast.js';
import type { Sql } from '../store/sql.js';
import { namespaceSeqState, readEventsSince } from '../store/events.js';

export type ReplayPlan = { kind: 'none' } | { kind: 'gap' } | { kind: 'events'; events: UpdateEvent[] };

/**
 * The events a client asking from `sinceSeq` missed, or a gap when some are no longer kept (or the
 * seq is from the future, e.g. another database): then the client must refetch snapshots.
 */
export async function planReplay(sql: Sql, input: { namespace: string; sinceSeq: number | undefined; sids?: ReadonlySet<string> }): Promise<ReplayPlan> {
  if (input.sinceSeq === undefined) return { kind: 'none' };
  const { lastSeq, prunedThrough } = await namespaceSeqState(sql, input.namespace);
  if (input.sinceSeq > lastSeq || input.sinceSeq < prunedThrough) return { kind: 'gap' };
  return { kind: 'events', events: await readEventsSince(sql, { namespace: input.namespace, since: input.sinceSeq, sids: input.sids }) };
}

/** Sends a planned replay (call after the ack): a gap as `resync`, else the missed `update`s in order. */
export function sendReplay(socket: { emit(event: 'resync', body: ResyncEvent): unknown; emit(event: 'update', body: UpdateEvent): unknown }, replay: ReplayPlan): void {
  if (replay.kind === 'gap') socket.emit('resync', { reason: 'gap' });
  if (replay.kind === 'events') for (const event of replay.events) socket.emit('update', event);
}
