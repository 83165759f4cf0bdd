/**
 * One agent's headless mode behind one interface: the runner starts or resumes it, hands it
 * prompts, interrupts its turn, stops it, and reads what it does as events. Which module drives a
 * flavor is data in the flavor registry (`runner.driver` in shared/flavors.ts).
 */
import type { PermissionMode } from '../../shared/protocol/machines.js';
import type { UsageReport } from '../../shared/protocol/usage.js';

export interface DriverStart {
  /** The agent CLI found on PATH. */
  command: string;
  /** The resolved working directory (under a root). */
  cwd: string;
  /** The agent's whole environment, built by the runner (never the runner's own). */
  env: Record<string, string>;
  permissionMode?: PermissionMode;
  model?: string;
  /** Continue this agent session (its resume token), else a fresh one. */
  resumeToken?: string;
}

/** A tool call waiting for a person: a permission, or a question the agent asks (AskUserQuestion). */
export interface ApprovalRequest {
  tool: string;
  toolUseId: string | null;
  input: Record<string, unknown>;
}

/** `cancelled`: nobody decided, the run was interrupted or ended (the hub closed the approval): the tool must not run. */
export type ApprovalDecision =
  | { allow: true; answers?: Record<string, string> }
  | { allow: false; message?: string; cancelled?: true };

/** `error`: the agent's own words for why the turn failed (auth, rate limit, model unreachable), when status is `error`. */
export type TurnEnd = { status: 'completed' | 'aborted' | 'error'; response: string | null; error?: string };

/** What an agent does, in order. */
export interface DriverEvents {
  /** The agent's own session id (its resume token), once known; again if it changes. */
  sessionId(token: string): void;
  /** A turn began with this prompt (the runner's own input). */
  turnStart(prompt: string): void;
  /**
   * A tool call finished; `startedAt`: when the agent called it (epoch ms), so its duration is its
   * own, not 0; `failed`: the agent marked its result an error (a denied or interrupted call too).
   */
  toolUse(tool: { tool: string; toolUseId: string; input: unknown; output?: unknown; startedAt?: number; failed?: boolean }): void;
  usage(usage: UsageReport[]): void;
  /** The agent hit an error it retries by itself (its model unreachable, rate limited): its own words; the turn stays open. */
  retrying(message: string): void;
  turnStop(end: TurnEnd): void;
  /** The agent waits on this; the answer goes back to it. */
  approval(request: ApprovalRequest): Promise<ApprovalDecision>;
  /**
   * The agent refused to resume its session (the vendor no longer knows the id), before any output:
   * the runner reports `resume-failed` (spec section 7).
   */
  resumeRejected(error: string): void;
  /** The agent process ended: its exit code or signal, and its last stderr lines. */
  exit(end: { code: number | null; signal: NodeJS.Signals | null; stderr: string }): void;
}

export interface AgentDriver {
  /** The process group leader's pid (spawned detached: the whole tree is one group). */
  readonly pid: number | undefined;
  /** The agent's session id when it is known at start (chosen by the runner, or the resumed one); else it comes as `sessionId`. */
  readonly initialSessionId: string | null;
  /** Hands the agent its next input: at once, while it works or idles. */
  send(prompt: string): void;
  /** Ends the current turn; the agent stays. Resolves when the agent took the interrupt. */
  interrupt(): Promise<void>;
  /** Ends the agent's whole process tree: TERM, then KILL after `killAfterMs`. Resolves once it exited. */
  stop(killAfterMs: number): Promise<void>;
}

export type DriverFactory = (start: DriverStart, events: DriverEvents) => AgentDriver;
