/** A token bucket: `ratePerSecond` refill, up to `burst` at once. */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.updatedAt = now;
  }

  take(now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.updatedAt) / 1000) * this.ratePerSecond);
    this.updatedAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** One bucket per socket and one per token (shared by all of that token's sockets). */
export class RateLimiter {
  private readonly byToken = new Map<string, TokenBucket>();

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
  ) {}

  forSocket(now: number): TokenBucket {
    return new TokenBucket(this.ratePerSecond, this.burst, now);
  }

  forToken(tokenHash: string, now: number): TokenBucket {
    let bucket = this.byToken.get(tokenHash);
    if (!bucket) this.byToken.set(tokenHash, (bucket = new TokenBucket(this.ratePerSecond, this.burst, now)));
    return bucket;
  }
}
