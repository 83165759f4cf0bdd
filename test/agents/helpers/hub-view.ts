/**
 * What a person reads on the hub about an agent's session, over HTTP with a dashboard token: the
 * session by the agent's own session id (its tag), its turns with their tools, its approvals; and
 * waiting for the hub to reach a state within a bound (the agent's hooks deliver in the background).
 */
import type { ListSessionsResponse } from '../../../shared/protocol/http.js';
import type { Approval } from '../../../shared/protocol/attention.js';
import type { Message, MessagesResponse } from '../../../shared/protocol/messages.js';
import type { SessionSnapshot, TurnWithActivity } from '../../../shared/protocol/session.js';
import type { TestHub } from '../../helpers/hub.js';

export interface HubView {
  sessions(): Promise<SessionSnapshot[]>;
  session(sid: string): Promise<SessionSnapshot>;
  turns(sid: string): Promise<TurnWithActivity[]>;
  approvals(sid: string): Promise<Approval[]>;
  decide(sid: string, approvalId: string, decision: 'allow' | 'deny', message?: string): Promise<number>;
  /** A person's message to the session (as the reply box sends it): the HTTP status. */
  post(sid: string, text: string): Promise<number>;
  messages(sid: string): Promise<Message[]>;
}

export function hubView(hub: () => Pick<TestHub, 'url' | 'tokens'>): HubView {
  async function get<T>(path: string): Promise<T> {
    const response = await fetch(`${hub().url}${path}`, { headers: { authorization: `Bearer ${hub().tokens.dashboard}` } });
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }
  return {
    sessions: async () => (await get<ListSessionsResponse>('/api/sessions?limit=500')).sessions,
    session: (sid) => get<SessionSnapshot>(`/api/sessions/${sid}`),
    turns: (sid) => get<TurnWithActivity[]>(`/api/sessions/${sid}/turns`),
    approvals: async (sid) => (await get<{ approvals: Approval[] }>(`/api/sessions/${sid}/approvals`)).approvals,
    decide: async (sid, approvalId, decision, message) => {
      const response = await fetch(`${hub().url}/api/sessions/${sid}/approvals/${approvalId}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hub().tokens.operator}`, 'content-type': 'application/json' },
        body: JSON.stringify({ decision, ...(message ? { message } : {}) }),
      });
      return response.status;
    },
    post: async (sid, text) => {
      const response = await fetch(`${hub().url}/api/sessions/${sid}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hub().tokens.operator}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text }),
      });
      return response.status;
    },
    messages: async (sid) => (await get<MessagesResponse>(`/api/sessions/${sid}/messages`)).messages,
  };
}

/** Polls `probe` until it returns a value (not undefined) or `withinMs` pass; then the last reason. */
export async function eventually<T>(probe: () => Promise<T | undefined>, withinMs: number, what: string): Promise<T> {
  const deadline = Date.now() + withinMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`within ${withinMs} ms: ${what}${last ? ` (last: ${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The agent session tagged `tag` once the hub holds its last turn completed with usage and
 * `sessionDone` holds for the session (by default: ended): what a headless run leaves behind.
 */
export async function settledRun(
  view: HubView,
  tag: unknown,
  sessionDone: (snapshot: SessionSnapshot) => boolean = (snapshot) => snapshot.activity === 'ended',
): Promise<{ snapshot: SessionSnapshot; turn: TurnWithActivity }> {
  const session = await eventually(async () => (await view.sessions()).find((s) => s.tag === tag), 10_000, 'the session on the hub');
  return eventually(async () => {
    const [snapshot, turns] = [await view.session(session.sid), await view.turns(session.sid)];
    const turn = turns.at(-1);
    return sessionDone(snapshot) && turn?.status === 'completed' && turn.usage.length > 0 ? { snapshot, turn } : undefined;
  }, 10_000, 'the turn completed with usage and the session done');
}
