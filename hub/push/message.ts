/**
 * What a push says: which session needs you (its name and agent) and why, in plain words. Pure
 * functions of an event body and the session's label.
 */
import type { UpdateBody } from '../../shared/protocol/broadcast.js';
import type { PushPayload } from '../../shared/protocol/push.js';
import type { SessionLabel } from '../webhooks/event-kinds.js';

/** A session's attention as a push needs it. */
export interface AttentionNow {
  kind: string;
  since: number | null;
  message: string | null;
  tool: string | null;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

/**
 * The attention an `update-session` body sets, or undefined when it sets none (unchanged, or
 * cleared). Read by field presence: the attention state (issue 13, section 1) carries it as
 * `attention: { value: { kind, since, message, tool } | null } | null`; a bare `{ kind, … }` is read
 * too. Without that change merged no body has the field, and nothing is pushed.
 */
export function attentionSet(body: UpdateBody): AttentionNow | undefined {
  if (body.t !== 'update-session') return undefined;
  const field = record((body as Record<string, unknown>).attention);
  if (!field) return undefined;
  const value = 'value' in field ? record(field.value) : field;
  const kind = str(value?.kind);
  if (!value || !kind) return undefined;
  return { kind, since: typeof value.since === 'number' ? value.since : null, message: str(value.message), tool: str(value.tool) };
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The plain words for an attention kind ("waits for your approval to run Bash"). */
export function attentionWords(attention: AttentionNow): string {
  const words: Record<string, string> = {
    permission: attention.tool ? `waits for your approval to run ${attention.tool}` : 'waits for your approval',
    question: 'has a question for you',
    done: 'has finished',
    failed: 'stopped on an error',
    retrying: 'hit an error and keeps retrying',
  };
  const said = words[attention.kind] ?? 'needs you';
  return attention.message ? `${said}: ${clip(attention.message.replace(/\s+/g, ' ').trim(), 160)}` : said;
}

/** The payload a subscription gets; sw.js shows `title` and `body`, and a click opens `url`. */
export function pushPayload(input: { sid: string; session: SessionLabel; attention: AttentionNow; eventAt: number }): PushPayload {
  const { sid, session, attention } = input;
  return {
    title: `${session.name} · ${session.agent}`,
    body: `${session.agent} ${attentionWords(attention)}`,
    sid,
    kind: attention.kind,
    url: `/#/s/${encodeURIComponent(sid)}`,
    since: attention.since ?? input.eventAt,
  };
}
