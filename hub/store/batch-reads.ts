import { prefetchAppliedRequests, type VersionedField } from './applied-requests.js';
import { prefetchSessions } from './sessions.js';
import type { Tx } from './sql.js';

/** What one write of a batch will read: its session, and whether its requestId was applied already. */
export interface WriteReads {
  namespace: string;
  sid: string;
  applied?: { field: VersionedField; requestId: string };
}

/**
 * Reads what a group-committed batch's writes will look up, a few statements for the whole batch
 * instead of one round trip per write while the write lock is held. PostgreSQL only: SQLite has no
 * round trips, and its rowCache already holds hot sessions across transactions.
 */
export async function prefetchBatchReads(tx: Tx, reads: readonly WriteReads[]): Promise<void> {
  if (tx.dialect !== 'postgres' || reads.length === 0) return;
  const sidsByNamespace = new Map<string, Set<string>>();
  for (const { namespace, sid } of reads) {
    let sids = sidsByNamespace.get(namespace);
    if (!sids) sidsByNamespace.set(namespace, (sids = new Set()));
    sids.add(sid);
  }
  for (const [namespace, sids] of sidsByNamespace) await prefetchSessions(tx, { namespace, sids: [...sids] });
  await prefetchAppliedRequests(tx, reads.flatMap(({ sid, applied }) => (applied ? [{ sid, ...applied }] : [])));
}
