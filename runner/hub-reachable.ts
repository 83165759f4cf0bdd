/**
 * Before it connects, the runner asks the hub's /healthz once: where the connection is refused or
 * the host is unknown, nothing will answer however long it waits (a wrong --hub, a hub not
 * started), so it fails at once with what to check instead of retrying for its whole connect
 * timeout. Anything else (a slow answer, an error status, a proxy) goes on to the real connect.
 */
const PROBE_MS = 3000;
/** Errors that say nothing listens there, or there is no such host: waiting cannot help. */
const NOTHING_THERE: Record<string, string> = { ECONNREFUSED: 'connection refused (nothing listens there)', ENOTFOUND: 'no such host' };

/** Why the hub at `url` cannot answer (one line), or undefined when it may. */
export async function noHubThere(url: string): Promise<string | undefined> {
  try {
    await fetch(new URL('/healthz', url), { signal: AbortSignal.timeout(PROBE_MS) });
    return undefined;
  } catch (error) {
    const code = String((error as { cause?: { code?: unknown } }).cause?.code ?? '');
    const said = NOTHING_THERE[code];
    return said ? `no hub answers at ${url}: ${said}; is the hub running (session-hub start), and is --hub (or SESSION_HUB_URL) its address?` : undefined;
  }
}
