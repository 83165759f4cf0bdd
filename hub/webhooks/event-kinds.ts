/**
 * What an `update` event is, in the filter names people pick (`session-ended`, `turn`, …), and the
 * one line of text that says so. Pure functions of the event body and the session's name.
 */
import type { UpdateBody } from '../../shared/protocol/broadcast.js';
import type { Attention } from '../../shared/protocol/session.js';
import type { WebhookEventKind, WebhookEventName } from '../../shared/protocol/webhooks.js';

/** The attention an update-session body sets (a null value is a clear, not a ping). */
function attentionOf(body: UpdateBody): Attention | null {
  return body.t === 'update-session' ? (body.attention?.value ?? null) : null;
}

/** Every filter name the event matches (most telling first); empty for other updates (presence, metadata …). */
export function kindsOf(body: UpdateBody): Exclude<WebhookEventKind, 'update'>[] {
  if (body.t === 'session-created') return ['session-created'];
  if (body.t === 'turn') return ['turn'];
  // an approval's own body: its session's attention change (permission) is the ping
  if (body.t === 'approval') return [];
  // a person's message to the agent: the person knows; no ping of its own
  if (body.t === 'message') return [];
  const kinds: Exclude<WebhookEventKind, 'update'>[] = [];
  if (body.lifecycle?.state === 'ended') kinds.push('session-ended');
  if (body.lifecycle?.state === 'archived') kinds.push('session-archived');
  if (attentionOf(body)) kinds.push('attention');
  return kinds;
}

/** The kind a delivery is labelled with: the first one the event matches, else `update`. */
export function primaryKind(body: UpdateBody): WebhookEventKind {
  return kindsOf(body)[0] ?? 'update';
}

export function matchesFilter(body: UpdateBody, events: readonly WebhookEventName[]): boolean {
  if (events.includes('all')) return true;
  return kindsOf(body).some((kind) => events.includes(kind));
}

/** The session as a person recognises it. */
export interface SessionLabel {
  name: string;
  agent: string;
}

const clip = (text: string, max = 120) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const quoted = (text: string | null | undefined) => (text ? ` "${clip(text.replace(/\s+/g, ' ').trim())}"` : '');
const because = (reason: string | null | undefined) => (reason ? ` (${clip(reason, 80)})` : '');

function attentionLine(attention: Attention): string {
  const { tool, message } = attention;
  const what: Record<Attention['kind'], string> = {
    permission: `wants permission${tool ? ` to use ${tool}` : ''}`,
    question: 'is waiting for your answer',
    done: 'finished and waits for the next prompt',
    failed: 'stopped on an error',
    retrying: 'hit an error and keeps retrying',
  };
  return `${what[attention.kind]}${message ? `: ${clip(message)}` : ''}`;
}

/** One readable line: who (agent and session name) and what happened, in plain words. */
export function describeEvent(body: UpdateBody, session: SessionLabel): string {
  const who = `${session.agent} session "${session.name}"`;
  if (body.t === 'session-created') return `${who} started`;
  if (body.t === 'turn') {
    const { turn } = body;
    if (turn.status === 'open') return `${who} started a turn${quoted(turn.prompt)}`;
    return `${who} finished a turn (${turn.status})${quoted(turn.response)}`;
  }
  if (body.t === 'approval') {
    const { approval } = body;
    return `${who}: approval to use ${approval.tool} is ${approval.status}${quoted(approval.message)}`;
  }
  if (body.t === 'message') {
    const { message } = body;
    return `${who}: a message to the agent is ${message.state}${message.via ? ` (${message.via})` : ''}${quoted(message.text)}`;
  }
  const attention = attentionOf(body);
  if (attention) return `${who} ${attentionLine(attention)}`;
  if (body.lifecycle) {
    const { state, reason } = body.lifecycle;
    if (state === 'ended') return `${who} ended${because(reason)}`;
    if (state === 'archived') return `${who} was archived${because(reason)}`;
    return `${who} is ${state}${because(reason)}`;
  }
  if (body.presence) return `${who} is ${body.presence.active ? 'connected' : 'disconnected'}${body.presence.thinking ? ' and thinking' : ''}`;
  if (body.metadata) return `${who} metadata changed (version ${body.metadata.version})`;
  if (body.agentState) return `${who} agent state changed (version ${body.agentState.version})`;
  return `${who} changed`;
}
