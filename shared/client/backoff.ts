/** Retry pacing shared by the SDK's writes and reconnects. */
export interface BackoffOptions {
  /** First delay, before jitter. */
  baseMs: number;
  /** Largest delay, before jitter. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 10, maxMs: 1000 };

/** Exponential backoff with "full jitter": a random delay in [0, min(max, base·2^attempt)]. */
export function jitteredDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(attempt, 30));
  return Math.random() * ceiling;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
