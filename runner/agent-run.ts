/**
 * One agent the runner started, reported as one hub session (spec sections 6, 7, 14): session-start
 * with its metadata, each turn once (prompt, tool calls, usage, closing message), its resume token,
 * approvals through the hub, and the run's true end. Reports go out in the order the agent did things.
 */
import { randomUUID } from 'node:crypto';
import { WORK_METADATA_KEYS } from '../shared/protocol/work.js';
import { hostname } from 'node:os';
import { retrying, type BackoffOptions } from '../shared/client/backoff.js';
import { isFinalError } from '../shared/client/errors.js';
import type { RunnerClient } from '../shared/client/runner-client.js';
import type { JsonObject } from '../shared/protocol/json.js';
import { ATTENTION_MESSAGE_MAX_CHARS, type RunEndStatus, type TurnSummary } from '../shared/protocol/session.js';
import { DRIVEN_BY_KEY, STOP_KILL_AFTER_MS, type DrivenBy } from '../shared/protocol/machines.js';
import { DRIVERS } from './drivers/index.js';
import type { AgentDriver, DriverEvents } from './drivers/driver.js';
import { askHub } from './hub-approvals.js';
import type { RunnerLog } from './log.js';
import type { SpawnPlan } from './spawn-check.js';

export interface RunContext {
  client: RunnerClient;
  hubUrl: string;
  token: string;
  machineId: string;
  env: Record<string, string>;
  log: RunnerLog;
  /** The runner is exiting: a report that fails once more is given up (the hub ends the run by its grace). */
  closing: () => boolean;
}

/** A report's retries while the hub is away (restarting, failing over): soon at first, then every few seconds. */
const REPORT_BACKOFF: BackoffOptions = { baseMs: 200, maxMs: 5000 };

/** How the run ended when the runner ended it; else from the agent's exit. */
type Ending = { status: RunEndStatus; reason: string };

export class AgentRun {
  sid: string | null = null;
  private driver: AgentDriver | undefined;
  private agentSessionId: string | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private ending: Ending | undefined;
  private ended = false;
  private emitted = false;
  private retried = false;
  private turnOpen = false;
  private readonly done: Promise<void>;
  private finish!: () => void;
  private exitedBeforeStart: ((stderr: string) => void) | undefined;
  /** The attention this run set for its agent's own errors, so it clears only that (never a person's approval). */
  private errorAttention: { kind: 'retrying' | 'failed'; message: string } | null = null;
  /** Each asked tool call's approval, by toolUseId: its result is reported with the status the person's decision gave it. */
  private readonly asked = new Map<string, AskedTool>();

  constructor(readonly plan: SpawnPlan, private readonly ctx: RunContext) {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  /** Starts the agent and its hub session; resolves with the sid, or rejects with the agent's stderr when it exited first. */
  async start(): Promise<string> {
    const { request } = this.plan;
    const exitedFirst = new Promise<never>((_, reject) => (this.exitedBeforeStart = (stderr) => reject(new SpawnFailed(stderr))));
    exitedFirst.catch(() => undefined);
    this.driver = this.launch(request.resume?.token);
    const id = this.driver.initialSessionId ?? (await Promise.race([this.idReported(), exitedFirst]));
    this.agentSessionId = id;
    const metadata: JsonObject = {
      path: this.plan.cwd,
      host: hostname(),
      machineId: this.ctx.machineId,
      [DRIVEN_BY_KEY]: 'machine' satisfies DrivenBy,
      flavor: request.flavor,
      [this.plan.tokenKey]: id,
      ...(request.permissionMode ? { permissionMode: request.permissionMode } : {}),
      ...(this.plan.worktree ? { [WORK_METADATA_KEYS.worktree]: this.plan.worktree } : {}),
    };
    const { session } = await Promise.race([
      this.ctx.client.startSession({
        tag: id,
        flavor: request.flavor,
        source: request.resume ? 'resume' : 'startup',
        ...(request.resume ? { sid: request.resume.sid } : {}),
        metadata,
        pid: this.driver.pid,
        // a continue: the key the hub made for it, so this agent takes the session's messages
        ...(request.resume?.takerKey ? { taker: { key: request.resume.takerKey, process: `runner pid ${process.pid} on ${hostname()}`.slice(0, 128) } } : {}),
      }),
      exitedFirst,
    ]);
    this.sid = session.sid;
    this.exitedBeforeStart = undefined;
    if (request.prompt) this.send(request.prompt);
    return session.sid;
  }

  /** A person's message, or the first prompt: the agent's next input, at once. */
  send(text: string): void {
    this.driver?.send(text);
  }

  interrupt(): Promise<void> {
    return this.driver?.interrupt() ?? Promise.resolve();
  }

  /** Ends the agent's process tree; the run ends with `ending`. Resolves once the end is reported. */
  async stop(ending: Ending): Promise<void> {
    this.ending ??= ending;
    await this.driver?.stop(STOP_KILL_AFTER_MS);
    await this.done;
  }

  /** A turn is open: the agent is working (presence `thinking`). */
  get thinking(): boolean {
    return this.turnOpen;
  }

  /** The agent's process group leader. */
  get pid(): number | undefined {
    return this.driver?.pid;
  }

  get finished(): Promise<void> {
    return this.done;
  }

  private launch(resumeToken: string | undefined): AgentDriver {
    const factory = DRIVERS[this.plan.runner.driver]!;
    return factory(
      { command: this.plan.agent.path, cwd: this.plan.cwd, env: this.ctx.env, ...(resumeToken ? { resumeToken } : {}), ...(this.plan.request.permissionMode ? { permissionMode: this.plan.request.permissionMode } : {}), ...(this.plan.request.model ? { model: this.plan.request.model } : {}) },
      this.events(),
    );
  }

  private idWaiters: ((id: string) => void)[] = [];
  private idReported(): Promise<string> {
    return new Promise((resolve) => this.idWaiters.push(resolve));
  }

  /**
   * Reports in the agent's order, each retried until the hub has it (a hub that crashed and came
   * back gets what the agent did meanwhile), then the next: every report is safe to repeat (a
   * promptId, a toolUseId, usage totals that never double, a turn-stop or end of what is already
   * closed, a metadata write of one value). Given up only when the hub refuses it for good or the
   * runner is exiting; a failure is logged, never thrown at the agent.
   */
  private report(what: string, call: (sid: string) => Promise<unknown>): void {
    this.chain = this.chain.then(async () => {
      const sid = this.sid;
      if (sid === null) return;
      try {
        await retrying(() => call(sid), {
          backoff: REPORT_BACKOFF,
          isFinal: isFinalError,
          giveUp: this.ctx.closing,
          onRetry: (error, attempt) => {
            if (attempt === 0) this.ctx.log.warn('report not answered: retrying until the hub has it', { sid, what, error: error instanceof Error ? error.message : String(error) });
          },
        });
      } catch (error) {
        this.ctx.log.warn('report failed', { sid, what, error: error instanceof Error ? error.message : String(error) });
      }
    });
  }

  /**
   * The agent's own error on the page (docs/attention.md): `retrying` while it retries by itself,
   * `failed` when its turn ended on one; null clears what this run set, once the agent moves on.
   * Sent in the reports' order, so it never lands before the turn it belongs to.
   */
  private agentError(kind: 'retrying' | 'failed' | null, message = ''): void {
    if (kind === null ? this.errorAttention === null : this.errorAttention?.kind === kind && this.errorAttention.message === message) return;
    this.errorAttention = kind === null ? null : { kind, message };
    const details = kind === null ? {} : { message: message.slice(0, ATTENTION_MESSAGE_MAX_CHARS) };
    this.report(kind === null ? 'attention cleared' : `attention ${kind}`, (sid) => this.ctx.client.setAttention(sid, kind, details));
  }

  private events(): DriverEvents {
    let rejected: string | undefined;
    return {
      sessionId: (id) => {
        this.idWaiters.splice(0).forEach((resolve) => resolve(id));
        if (id === this.agentSessionId) return;
        this.agentSessionId = id;
        this.report('resume token', (sid) => this.ctx.client.updateMetadata(sid, { patch: { [this.plan.tokenKey]: id } }));
      },
      turnStart: (prompt) => {
        this.turnOpen = true;
        this.agentError(null);
        const promptId = randomUUID(); // one per prompt: a retried submit answers the same turn
        this.report('prompt', (sid) => this.ctx.client.submitPrompt({ sid, prompt, promptId }));
      },
      toolUse: (tool) => {
        this.emitted = true;
        if (this.errorAttention?.kind === 'retrying') this.agentError(null);
        const status = toolStatus(this.asked.get(tool.toolUseId), tool.failed === true);
        this.asked.delete(tool.toolUseId);
        this.report('tool', (sid) => this.ctx.client.toolUse({ sid, tool: tool.tool, toolUseId: tool.toolUseId, input: tool.input as never, ...(tool.output !== undefined ? { output: tool.output as never } : {}), ...(tool.startedAt !== undefined ? { at: tool.startedAt } : {}), status }));
      },
      usage: (usage) => this.report('usage', (sid) => this.ctx.client.reportUsage({ sid, usage })),
      retrying: (message) => this.agentError('retrying', message),
      turnStop: (end) => {
        this.turnOpen = false;
        if (end.response) this.emitted = true;
        this.report('turn end', (sid) => this.ctx.client.stopTurn({ sid, status: end.status, ...(end.response ? { response: end.response } : {}) }));
        if (end.status === 'error') this.agentError('failed', end.error ?? end.response ?? 'the agent ended its turn on an error');
        else this.agentError(null);
      },
      approval: async (request) => {
        // the retrying notice cleared first, and reported, so it can never clear the approval's own attention
        if (this.errorAttention?.kind === 'retrying') this.agentError(null);
        await this.chain;
        const id = request.toolUseId;
        if (id !== null) this.asked.set(id, 'waiting');
        const decision = await askHub({ client: this.ctx.client, sid: () => this.sid, cwd: this.plan.cwd, closed: () => this.ended }, request);
        if (id !== null && this.asked.has(id)) this.asked.set(id, decision.allow ? 'allowed' : decision.cancelled ? 'cancelled' : 'denied');
        return decision;
      },
      resumeRejected: (error) => {
        rejected = error;
      },
      exit: ({ code, signal, stderr }) => {
        if (this.exitedBeforeStart) {
          this.exitedBeforeStart(stderr || `exited with ${signal ?? code}`);
          this.ended = true;
          this.finish();
          return;
        }
        if (rejected !== undefined && !this.retried && !this.ending) {
          this.retried = true;
          void this.freshStart(rejected);
          return;
        }
        const ending = this.ending ?? (code === 0 ? { status: 'success' as const, reason: 'completed' } : { status: 'failure' as const, reason: 'error' });
        this.ctx.log.info('agent exited', { sid: this.sid, pid: this.driver?.pid, code, signal, status: ending.status });
        this.report('end', (sid) => this.ctx.client.endSession({ sid, reason: ending.reason, status: ending.status }));
        void this.chain.then(() => {
          this.ended = true;
          this.finish();
        });
      },
    };
  }

  /** The agent refused its resume token: section 7's resume-failed, and on `fresh-start` a fresh agent with the turns replayed. */
  private async freshStart(error: string): Promise<void> {
    await this.chain;
    const { request } = this.plan;
    let verdict: Awaited<ReturnType<RunnerClient['resumeFailed']>> | undefined;
    try {
      verdict = await this.ctx.client.resumeFailed({ sid: this.sid!, tokenKey: this.plan.tokenKey, token: request.resume!.token, stage: 'resume', emitted: this.emitted, aborted: false, error: error.slice(0, 500) });
    } catch (failure) {
      this.ctx.log.warn('resume-failed not answered', { sid: this.sid, error: failure instanceof Error ? failure.message : String(failure) });
    }
    if (verdict?.action !== 'fresh-start') {
      this.report('end', (sid) => this.ctx.client.endSession({ sid, reason: 'error', status: 'failure' }));
      await this.chain;
      this.ended = true;
      this.finish();
      return;
    }
    this.ctx.log.info('resume rejected: fresh start with the turns replayed', { sid: this.sid, turns: verdict.replay?.length ?? 0 });
    this.driver = this.launch(undefined);
    const id = this.driver.initialSessionId;
    if (id) this.events().sessionId(id);
    // the continue's prompt went to the agent that refused: it follows the replay, in the same input
    const replay = replayText(verdict.replay ?? [], request.prompt);
    if (replay) this.driver.send(replay);
  }
}

/** Where an asked tool call's approval stands when its result comes. */
type AskedTool = 'waiting' | 'allowed' | 'denied' | 'cancelled';

/**
 * A tool's true end (issue 46): denied by a person, or never run because its turn was interrupted
 * or its run ended while it waited (its approval still open, or closed by the hub), is never "done";
 * a result the agent marked an error is `failed`.
 */
export function toolStatus(asked: AskedTool | undefined, failed: boolean): 'done' | 'failed' | 'denied' | 'cancelled' {
  if (asked === 'denied') return 'denied';
  if (asked === 'waiting' || asked === 'cancelled') return 'cancelled';
  return failed ? 'failed' : 'done';
}

/** The earlier turns as one input for a fresh agent: what was asked and answered, in order, then the next instruction if one waits. */
export function replayText(turns: readonly TurnSummary[], next?: string): string {
  const lines = turns.filter((turn) => turn.prompt || turn.response).map((turn) => `User: ${turn.prompt ?? ''}\nAssistant: ${turn.response ?? ''}`);
  if (lines.length === 0) return next ?? '';
  const ask = next ? `The next instruction:\n\n${next}` : 'Acknowledge briefly and wait for the next instruction.';
  return `This conversation continues an earlier session whose history the agent no longer has. The earlier turns, replayed:\n\n${lines.join('\n\n')}\n\n${ask}`;
}

export class SpawnFailed extends Error {}
