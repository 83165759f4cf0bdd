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

/**
 * Calls `attempt` until it resolves, pacing retries with `jitteredDelay`, as the SDK's own writes
 * do: a final error (one a retry cannot fix: ./errors.ts) is thrown at once, and so is the last
 * error once `giveUp()` says so (checked before each retry). Only for calls a repeat cannot
 * apply twice (a requestId, a toolUseId, a promptId, or a write that sets what it sets).
 */
export async function retrying<T>(attempt: () => Promise<T>, options: { backoff?: BackoffOptions; isFinal: (error: unknown) => boolean; giveUp: () => boolean; onRetry?: (error: unknown, attempt: number) => void }): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (options.isFinal(error) || options.giveUp()) throw error;
      options.onRetry?.(error, tries);
      await sleep(jitteredDelay(tries, options.backoff));
    }
  }
}
