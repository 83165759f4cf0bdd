/**
 * Fairness for compare-and-set. Writers of one session whose writes arrive in the same batch all
 * expect the same version; the first in the batch wins and the others are answered
 * `version-mismatch`, rebase and come back — together with the winner's next write, which again
 * arrived first. Without help one hot writer starves the others (measured: ~30 s without an
 * acknowledged write). So in a batch, the writes of a socket that lost the last race on a contended
 * field go first. A socket's writes keep their order among themselves (all of them move together);
 * the order between different sockets' writes that arrive together was never promised.
 */

/** What a write competes for, and how to tell from its result that it lost. */
export interface Contention {
  /** The contended thing, e.g. `${sid}:metadata`. */
  key: string;
  /** The writer (its socket). */
  by: string;
  lost(value: unknown): boolean;
}

/** Forgetting everything past this many contended keys keeps the map small; it only costs fairness once. */
const MAX_TRACKED = 10_000;

export class LoserFirst {
  /** Contended key → each writer now losing races on it → the batch it began losing in. */
  private readonly losers = new Map<string, Map<string, number>>();
  private batch = 0;

  /**
   * The batch with the writes of sockets losing races on a key in it moved to the front, the
   * longest-losing first (a stable partition: a socket's writes keep their order).
   */
  order<W extends { contention?: Contention; socketId: string | undefined }>(writes: W[]): W[] {
    this.batch += 1;
    if (this.losers.size === 0) return writes;
    const losingSince = new Map<string, number>();
    for (const { contention } of writes) {
      const since = contention && this.losers.get(contention.key)?.get(contention.by);
      if (since !== undefined && contention) losingSince.set(contention.by, Math.min(since, losingSince.get(contention.by) ?? since));
    }
    if (losingSince.size === 0) return writes;
    const rank = (write: W) => (write.socketId === undefined ? undefined : losingSince.get(write.socketId));
    const ahead = writes.filter((write) => rank(write) !== undefined).sort((a, b) => rank(a)! - rank(b)!);
    return [...ahead, ...writes.filter((write) => rank(write) === undefined)];
  }

  /** Remembers who is losing races on the write's key, and forgets a writer once it wins. */
  settled(contention: Contention | undefined, value: unknown): void {
    if (!contention) return;
    let losing = this.losers.get(contention.key);
    if (contention.lost(value)) {
      if (!losing) {
        if (this.losers.size >= MAX_TRACKED) this.losers.clear();
        this.losers.set(contention.key, (losing = new Map()));
      }
      if (!losing.has(contention.by)) losing.set(contention.by, this.batch);
    } else if (losing?.delete(contention.by) && losing.size === 0) {
      this.losers.delete(contention.key);
    }
  }
}
