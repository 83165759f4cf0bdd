/**
 * The derived fields of a session a person reads first (issue 17): its display `title`, its
 * `activity` and its `lastPrompt`. They go out in snapshots and in every `update-session`
 * (hub/services/changes.ts), so clients never derive them; each is ONE function of inputs read here.
 */
import { projectPathOf } from '../../shared/project.js';
import type { JsonObject } from '../../shared/protocol/json.js';
import { WAITS_ON_PERSON, type SessionActivity, type TurnSummary } from '../../shared/protocol/session.js';
import { isRunDetached } from '../store/runs.js';
import type { StoredSession } from '../store/sessions.js';
import type { Sql } from '../store/sql.js';
import { getTurn } from '../store/turns.js';

/**
 * A title made from a prompt is cut to this many characters (on one line), like a metadata title:
 * the page fits it to the width it has (two lines at most in the list), so a wide screen shows it
 * whole instead of ~80 characters.
 */
export const TITLE_CHARS = 200;
/** The last prompt a list row shows is cut to this many characters (on one line). */
export const LAST_PROMPT_CHARS = 200;

/**
 * Lifecycle reasons that mean the hub ended the run because it stopped hearing from its runner, or
 * learned its agent is gone (a hook session's keeper: `agent_gone` reported, `agent_silent` no report).
 */
export const LOST_REASONS: ReadonlySet<string> = new Set(['runner_lost', 'runner_silent', 'agent_gone', 'agent_silent']);

export interface ActivityInputs {
  lifecycle: StoredSession['lifecycle'];
  /** The session has an open turn. */
  turnOpen: boolean;
  /**
   * The hub hears from the runner: its socket is bound and heartbeating (presence), or, for a
   * detached run (hook-driven, no socket between events), the run is live — the hub ends such a
   * run as `agent_gone` / `agent_silent` when its agent's keeper says it died or stops reporting
   * (SESSION_HUB_AGENT_ALIVE_MS), or, with no keeper, as `runner_silent` once no hook event came
   * for the idle window (SESSION_HUB_IDLE_MS).
   */
  heard: boolean;
  /** The agent waits on its user's decision or answer (attention `permission` or `question`: WAITS_ON_PERSON). */
  waiting: boolean;
}

/** One state, in the order a person needs it. Attention (`waiting`) slots in before `working`. */
export function activityOf({ lifecycle, turnOpen, heard, waiting }: ActivityInputs): SessionActivity {
  if (lifecycle.state === 'ended') return lifecycle.reason !== null && LOST_REASONS.has(lifecycle.reason) ? 'lost' : 'ended';
  if (lifecycle.state === 'archived') return 'ended';
  if (!heard) return 'lost';
  if (waiting) return 'waiting';
  return turnOpen ? 'working' : 'idle';
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(line);
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join('')}…`;
}

/** `summary` is a string, or `{ text }` as hapi's runners write it. */
function metadataTitle(metadata: JsonObject): string | null {
  const { title, summary } = metadata;
  if (typeof title === 'string' && title.trim()) return title.trim();
  if (typeof summary === 'string' && summary.trim()) return summary.trim();
  if (summary && typeof summary === 'object' && !Array.isArray(summary) && typeof summary.text === 'string' && summary.text.trim()) return summary.text.trim();
  return null;
}

function lastPathPart(path: string): string {
  return path.split(/[\\/]+/).filter(Boolean).pop() ?? path;
}

/** Metadata title or summary, else the first prompt (cut), else the project folder's name, else the tag. */
export function titleOf(input: { metadata: JsonObject; firstPrompt: string | null; tag: string }): string {
  const fromMetadata = metadataTitle(input.metadata);
  if (fromMetadata) return oneLine(fromMetadata, TITLE_CHARS);
  if (input.firstPrompt?.trim()) return oneLine(input.firstPrompt, TITLE_CHARS);
  const project = projectPathOf(input.metadata);
  return project ? lastPathPart(project) : input.tag;
}

export interface SessionView {
  title: string;
  activity: SessionActivity;
  lastPrompt: string | null;
}

/** The title alone: what a metadata write may move. The first prompt is on the session's row: no read. */
export function sessionTitleOf(session: StoredSession): string {
  return titleOf({ metadata: session.metadata, firstPrompt: session.firstPrompt, tag: session.tag });
}

/**
 * Reads what the two functions need. `currentTurn`: the session's open turn when the caller has read
 * it already (toSnapshot), else it is read here.
 */
export async function sessionViewOf(sql: Sql, session: StoredSession, currentTurn?: TurnSummary | null): Promise<SessionView> {
  const open = currentTurn !== undefined ? currentTurn : session.currentTurnId === null ? null : ((await getTurn(sql, session.currentTurnId)) ?? null);
  const runLive = session.lastRun?.status === 'running';
  const heard = session.presence.active || (runLive && ((await isRunDetached(sql, session.lastRun!.runId)) ?? false));
  const { lastPrompt } = session;
  return {
    title: sessionTitleOf(session),
    activity: activityOf({ lifecycle: session.lifecycle, turnOpen: open?.status === 'open', heard, waiting: session.attention !== null && WAITS_ON_PERSON.has(session.attention.kind) }),
    lastPrompt: lastPrompt === null ? null : oneLine(lastPrompt, LAST_PROMPT_CHARS),
  };
}
