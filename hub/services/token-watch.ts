import type { Logger } from '../log.js';
import type { Store } from '../store/sql.js';
import { touchTokens } from '../store/tokens.js';
import type { TokenRegistry } from './tokens.js';

/** What the watch needs of the sockets: which tokens hold one, and cutting those whose token went. */
export interface TokenHolders {
  /** The token hashes of this process's open sockets. */
  liveTokenHashes(): Set<string>;
  /** Disconnects this process's sockets holding any of these tokens. */
  cut(tokenHashes: Set<string>): void;
}

/** How often every hub process re-reads the stored tokens: a revoked or expired token is refused within this. */
export const TOKEN_REFRESH_MS = 2000;

/**
 * Every few seconds: writes when stored tokens were last used, re-reads the valid ones (each hub
 * process on its own, so a revoke reaches all of them through the database), and cuts the sockets
 * whose token is no longer accepted (revoked, or expired meanwhile). Tokens from the environment
 * never change: no watch then.
 */
export function watchTokens(input: { tokens: TokenRegistry; store: Store; holders: TokenHolders; log: Logger; everyMs?: number }): { stop(): Promise<void> } {
  const { tokens, store, holders, log } = input;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const tick = async () => {
    const live = holders.liveTokenHashes();
    for (const hash of live) tokens.noteUse(hash);
    await touchTokens(store, tokens.takeUses());
    await tokens.refresh();
    const gone = new Set([...live].filter((hash) => !tokens.accepts(hash)));
    if (gone.size > 0) {
      log.info({ tokens: gone.size }, 'revoked or expired tokens: disconnecting their sockets');
      holders.cut(gone);
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick()
        .catch((error: unknown) => log.warn({ err: error }, 'could not re-read the stored tokens; trying again'))
        .finally(schedule);
    }, input.everyMs ?? TOKEN_REFRESH_MS);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
