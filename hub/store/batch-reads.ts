import { prefetchAppliedRequests, type VersionedField } from './applied-requests.js';
import { prefetchSeqCounters } from './events.js';
import { prefetchSessions } from './sessions.js';
import type { Tx } from './sql.js';

/** What one write of a batch will read: its session, and whether its requestId was applied already. */
export interface WriteReads {
  namespace: string;
  sid: string;
  applied?: { field: VersionedField; requestId: string };
}

/**
 * Reads what a group-committed batch's writes will look up: their sessions, their requestIds, and
 * the namespaces' seq counters, a few statements for the whole batch instead of round trips per
 * write while the write lock is held. They are issued together, so on PostgreSQL (pipeline mode)
 * they go out in one round trip with BEGIN and the locks. PostgreSQL only: SQLite has no round
 * trips, and its rowCache already holds hot sessions across transactions.
 */
export async function prefetchBatchReads(tx: Tx, reads: readonly WriteReads[]): Promise<void> {
  if (tx.dialect !== 'postgres' || reads.length === 0) return;
  const sidsByNamespace = new Map<string, Set<string>>();
  for (const { namespace, sid } of reads) {
    let sids = sidsByNamespace.get(namespace);
    if (!sids) sidsByNamespace.set(namespace, (sids = new Set()));
    sids.add(sid);
  }
  await Promise.all([
    ...[...sidsByNamespace].map(([namespace, sids]) => prefetchSessions(tx, { namespace, sids: [...sids] })),
    prefetchAppliedRequests(tx, reads.flatMap(({ sid, applied }) => (applied ? [{ sid, ...applied }] : []))),
    prefetchSeqCounters(tx, sidsByNamespace.keys()),
  ]);
}
