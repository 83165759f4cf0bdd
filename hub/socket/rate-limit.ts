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

/** Which limit refused an event (spec section 12): a `rate_limited` error names it; /metrics counts it. */
export type RateLimitKind = 'socket' | 'token';

export interface RateSetting {
  ratePerSecond: number;
  burst: number;
}

/**
 * Spec section 12: a bucket per socket first, then one per token shared by all of that token's
 * sockets and HTTP calls, a ceiling for the whole tenant with its own, larger setting (a fleet of
 * runners shares one token).
 */
export class RateLimiter {
  private readonly byToken = new Map<string, TokenBucket>();
  /** The refusal's message, naming the limit that was met (built once: refusals stay cheap). */
  readonly messages: Record<RateLimitKind, string>;

  constructor(
    readonly socket: RateSetting,
    readonly token: RateSetting,
  ) {
    this.messages = {
      socket: `rate limit exceeded: per socket (${socket.ratePerSecond} events/s, bursts to ${socket.burst}; SESSION_HUB_RATE_LIMIT); slow down and retry`,
      token: `rate limit exceeded: per token, for all of its sockets and HTTP calls (${token.ratePerSecond} events/s, bursts to ${token.burst}; SESSION_HUB_TOKEN_RATE_LIMIT); slow down and retry`,
    };
  }

  forSocket(now: number): TokenBucket {
    return new TokenBucket(this.socket.ratePerSecond, this.socket.burst, now);
  }

  forToken(tokenHash: string, now: number): TokenBucket {
    let bucket = this.byToken.get(tokenHash);
    if (!bucket) this.byToken.set(tokenHash, (bucket = new TokenBucket(this.token.ratePerSecond, this.token.burst, now)));
    return bucket;
  }

}

/**
 * A socket refused at least once a second for this long keeps flooding: it gets one `rate_limited`
 * error and is disconnected (its refusals, cheap as they are, still cost a decode and an ack each).
 */
export const FLOOD_CUT_MS = 3000;
/** A refusal this long after the previous one starts a new streak. */
const STREAK_GAP_MS = 1000;

/** Per socket: when its current streak of refusals began, and the last refusal. */
export interface FloodState {
  streakStart: number;
  lastRefusal: number;
}

/** Records a per-socket refusal; true when the socket has been flooding for FLOOD_CUT_MS. */
export function floodingFor(state: FloodState, now: number): boolean {
  if (now - state.lastRefusal > STREAK_GAP_MS) state.streakStart = now;
  state.lastRefusal = now;
  return now - state.streakStart >= FLOOD_CUT_MS;
}
