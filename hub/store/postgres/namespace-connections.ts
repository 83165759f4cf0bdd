import type pg from 'pg';

/** One namespace's connection, and the transactions on it that have not ended. */
interface Shared {
  client: pg.PoolClient;
  users: number;
  /** Why it is unusable (dropped mid-transaction): released destroyed once its last user ends. */
  broken: Error | undefined;
}

/**
 * A namespace's transactions that follow one another run on one connection (issue 31). The next
 * transaction starts when the last one has sent its COMMIT (WriteTurns, group commit's overlapping
 * batches); on the same connection its statements queue behind that COMMIT in pg's pipeline, and
 * the server runs them in that order. So a namespace's batches go out back to back with no wait
 * between them, none can take the namespace's lock ahead of the one before (on two connections it
 * could, and its claim would fail), and one server process serves them instead of a lock handed
 * from one to the next.
 *
 * The caller keeps the rule that makes sharing safe: a transaction takes the namespace's connection
 * only while holding the namespace's turn, that is once the one before sent its COMMIT (or ended),
 * and sends nothing after its own COMMIT (no ROLLBACK: the server ended the transaction either way).
 */
export class NamespaceConnections {
  private readonly byNamespace = new Map<string, Shared>();

  constructor(private readonly checkout: () => Promise<pg.PoolClient>) {}

  /** The namespace's connection, shared with the transactions before this one still on it, or a new one from the pool. */
  async take(namespace: string): Promise<{ client: pg.PoolClient; shared: boolean; release: (broken?: Error) => void }> {
    let entry = this.byNamespace.get(namespace);
    const shared = entry !== undefined;
    if (!entry) {
      entry = { client: await this.checkout(), users: 0, broken: undefined };
      this.byNamespace.set(namespace, entry);
    }
    entry.users++;
    const taken = entry;
    let released = false;
    return {
      client: taken.client,
      shared,
      release: (broken) => {
        if (released) return;
        released = true;
        if (broken) {
          taken.broken ??= broken;
          // no later transaction joins a connection that failed
          if (this.byNamespace.get(namespace) === taken) this.byNamespace.delete(namespace);
        }
        if (--taken.users > 0) return;
        if (this.byNamespace.get(namespace) === taken) this.byNamespace.delete(namespace);
        taken.client.release(taken.broken);
      },
    };
  }
}
