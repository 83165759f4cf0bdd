/**
 * Within one process, write transactions wait their turn here rather than each holding a pooled
 * connection blocked on an advisory lock (a crowd of waiters on one lock made commits ~3x slower).
 * The turns mirror the locks (advisory-locks.ts): a namespace's transactions one at a time, and
 * different namespaces' at the same time; a transaction of no single namespace (a sweep, a prune)
 * after every one queued before it, and every later one after it.
 */
export class WriteTurns {
  /** The last queued turn of each namespace, until it ends. */
  private readonly byNamespace = new Map<string, Promise<void>>();
  /** The last queued all-namespaces turn. */
  private global: Promise<void> = Promise.resolve();

  /** Waits for the turn; answers the function that ends it. */
  async take(namespace: string | undefined): Promise<() => void> {
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    let before: Promise<unknown>;
    if (namespace === undefined) {
      before = Promise.all([this.global, ...this.byNamespace.values()]);
      this.global = mine;
      this.byNamespace.clear();
    } else {
      before = Promise.all([this.global, this.byNamespace.get(namespace)]);
      this.byNamespace.set(namespace, mine);
    }
    await before;
    return () => {
      if (namespace !== undefined && this.byNamespace.get(namespace) === mine) this.byNamespace.delete(namespace);
      done();
    };
  }
}
