import { TokenBucket } from '../socket/rate-limit.js';

/**
 * Attempts at `POST /api/sign-in/code` (issue 33.6 c): a bucket per client address and one for the
 * whole process, so neither one client nor many can make the hub try codes (or write log lines)
 * without bound. A code has 144 random bits: guessing is hopeless anyway; this keeps it cheap.
 */
export const SIGN_IN_PER_ADDRESS = { ratePerSecond: 0.1, burst: 10 } as const;
export const SIGN_IN_OVERALL = { ratePerSecond: 1, burst: 30 } as const;
/** Addresses remembered at most: past it the oldest are forgotten (a flood of addresses costs no memory). */
const MAX_ADDRESSES = 10_000;
/** Refused codes are logged at most once per this long, with how many there were. */
export const SIGN_IN_LOG_EVERY_MS = 60_000;

export class SignInLimiter {
  private readonly byAddress = new Map<string, TokenBucket>();
  private readonly overall: TokenBucket;
  private refusedSinceLog = 0;
  private loggedAt = -Infinity;

  constructor(now: number) {
    this.overall = new TokenBucket(SIGN_IN_OVERALL.ratePerSecond, SIGN_IN_OVERALL.burst, now);
  }

  /** Which limit refuses this attempt, or undefined when it may go on. */
  admit(address: string, now: number): 'address' | 'overall' | undefined {
    let bucket = this.byAddress.get(address);
    if (!bucket) {
      if (this.byAddress.size >= MAX_ADDRESSES) this.byAddress.delete(this.byAddress.keys().next().value!);
      bucket = new TokenBucket(SIGN_IN_PER_ADDRESS.ratePerSecond, SIGN_IN_PER_ADDRESS.burst, now);
      this.byAddress.set(address, bucket);
    }
    if (!bucket.take(now)) return 'address';
    if (!this.overall.take(now)) return 'overall';
    return undefined;
  }

  /** A refused code: the number to log now (refusals since the last line), or undefined to stay quiet. */
  refused(now: number): number | undefined {
    this.refusedSinceLog++;
    if (now - this.loggedAt < SIGN_IN_LOG_EVERY_MS) return undefined;
    const count = this.refusedSinceLog;
    this.refusedSinceLog = 0;
    this.loggedAt = now;
    return count;
  }
}
