import type { Logger } from '../log.js';
import type { Store } from '../store/sql.js';
import { recordHookRefusal } from '../store/hook-refusals.js';
import { hashToken, tokenIdOf } from './tokens.js';

/** One log line and one store write per presented token and address per this long; the refusals between are counted. */
export const REFUSAL_REPORT_EVERY_MS = 60_000;

/**
 * Refused hook deliveries made visible hub-side (a wrong or missing token fails in silence
 * otherwise): a warning in the log and a row `doctor` and the admins' page read, rate-limited so a
 * flood of bad tokens costs one line and one write a minute per token and address.
 */
export class HookRefusals {
  private readonly pending = new Map<string, { count: number; reportedAt: number }>();

  constructor(private readonly input: { store: Store; log: Logger; now: () => number }) {}

  note(refusal: { token: string | undefined; address: string; namespace: string | null; status: number; message: string }): void {
    const tokenId = refusal.token ? tokenIdOf(hashToken(refusal.token)) : 'none';
    const key = `${tokenId} ${refusal.address}`;
    const now = this.input.now();
    const entry = this.pending.get(key) ?? { count: 0, reportedAt: Number.NEGATIVE_INFINITY };
    entry.count += 1;
    this.pending.set(key, entry);
    if (now - entry.reportedAt < REFUSAL_REPORT_EVERY_MS) return;
    const count = entry.count;
    entry.count = 0;
    entry.reportedAt = now;
    this.input.log.warn({ tokenId, address: refusal.address, status: refusal.status, refused: count }, `hook delivery refused: ${refusal.message}`);
    recordHookRefusal(this.input.store, { tokenId, address: refusal.address, namespace: refusal.namespace, status: refusal.status, message: refusal.message, count, at: now }).catch(
      (error: unknown) => this.input.log.warn({ err: error }, 'could not record a refused hook delivery'),
    );
    // a long-running hub seeing many bad tokens: forget pairs quiet for a while
    if (this.pending.size > 10_000) for (const [k, e] of this.pending) if (now - e.reportedAt >= REFUSAL_REPORT_EVERY_MS) this.pending.delete(k);
  }
}
