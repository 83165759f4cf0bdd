/** Reads a session's stored state over the real HTTP API, as a dashboard or runner would. */
import type { HistoryEntry, SessionSnapshot, TurnWithActivity } from '../../shared/protocol/session.js';

interface HubLike {
  url: string;
  tokens: { runner: string };
}

async function getJson<T>(hub: HubLike, path: string): Promise<T> {
  const response = await fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${hub.tokens.runner}` } });
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

export const fetchSession = (hub: HubLike, sid: string) => getJson<SessionSnapshot>(hub, `/api/sessions/${sid}`);
export const fetchTurns = (hub: HubLike, sid: string) => getJson<TurnWithActivity[]>(hub, `/api/sessions/${sid}/turns`);
export const fetchHistory = async (hub: HubLike, sid: string) => (await getJson<{ history: HistoryEntry[] }>(hub, `/api/sessions/${sid}/history`)).history;

/** Every history version still has `key` = `value`, and so does the current document: nothing ever removed it. */
export async function expectTokenNeverRemoved(hub: HubLike, sid: string, key: string, value: string): Promise<void> {
  const [session, history] = await Promise.all([fetchSession(hub, sid), fetchHistory(hub, sid)]);
  if (session.metadata.value[key] !== value) throw new Error(`current metadata lost ${key}: ${JSON.stringify(session.metadata.value)}`);
  for (const entry of history) {
    if (entry.metadata[key] !== value || entry.cleared.includes(key) || entry.dropped.includes(key)) {
      throw new Error(`history v${entry.version} lost ${key}: ${JSON.stringify(entry)}`);
    }
  }
}
