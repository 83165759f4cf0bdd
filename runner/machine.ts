/**
 * The machine: one `/runner` connection (the SDK's RunnerClient), registered on every connect, that
 * answers the hub's machine-spawn / -dirs / -interrupt / -stop and hands a person's messages to the
 * agents it drives. Only agents it started are ever interrupted or stopped.
 */
import { readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { RunnerClient, type RunnerSocket } from '../shared/client/runner-client.js';
import {
  MachineDirsPayloadSchema,
  MachineInterruptPayloadSchema,
  MachineMkdirPayloadSchema,
  MachineRegisterAckSchema,
  MachineStopPayloadSchema,
  HANDOVER_WAIT_MS,
  type MachineActionAck,
  type MachineAgent,
  type MachineDirsAck,
  type MachineFailedAck,
  type MachineRegisterPayload,
  type MachineSpawnAck,
} from '../shared/protocol/machines.js';
import { agentEnv } from './agent-env.js';
import { drivableClis } from './agents.js';
import { AgentRun, SpawnFailed } from './agent-run.js';
import type { RunnerConfig } from './config.js';
import type { RunnerLog } from './log.js';
import { makeDirectory } from './files.js';
import { resolveUnderRoots } from './roots.js';
import { checkSpawn, type SpawnPlan } from './spawn-check.js';
import { answerAgentSessions, answerWork, refusalOf } from './work-events.js';
import { AgentSessionStore } from './agent-sessions/store.js';
import { discardSessionWorktree, prepareWorktree } from './work.js';

const REGISTER_TIMEOUT_MS = 10_000;

export class RegisterRefused extends Error {}

export class Machine {
  /** Runs by sid once their session exists, and by spawn requestId before. */
  private readonly runs = new Map<string, AgentRun>();
  private readonly pending = new Map<string, AgentRun>();
  private shuttingDown = false;
  /** The agents' own sessions on this machine (section 16), read once and kept by file. */
  private readonly agentSessions: AgentSessionStore;
  private beating: NodeJS.Timeout | undefined;

  private constructor(
    private readonly client: RunnerClient,
    private readonly config: RunnerConfig,
    private readonly machineId: string,
    private readonly agents: MachineAgent[],
    private readonly log: RunnerLog,
  ) {
    this.agentSessions = new AgentSessionStore(config.roots);
  }

  /** Connects, registers (rejects with RegisterRefused when the hub says no), and starts answering. */
  static async start(config: RunnerConfig, { machineId, takerKey }: { machineId: string; takerKey: string }, agents: MachineAgent[], log: RunnerLog): Promise<Machine> {
    // the kept taker key: a restarted runner is still its sessions' taker of people's messages
    const client = await RunnerClient.connect({ url: config.hubUrl, token: config.token, takerKey });
    const machine = new Machine(client, config, machineId, agents, log);
    try {
      await machine.register();
    } catch (error) {
      client.socket.disconnect();
      throw error;
    }
    machine.listen();
    return machine;
  }

  private get socket(): RunnerSocket {
    return this.client.socket as unknown as RunnerSocket;
  }

  private registration(): MachineRegisterPayload {
    return { machineId: this.machineId, name: this.config.name, host: hostname(), platform: process.platform, roots: this.config.roots, agents: this.agents, allowBypass: this.config.allowBypass };
  }

  private async register(): Promise<void> {
    const ack = MachineRegisterAckSchema.parse(await this.socket.timeout(REGISTER_TIMEOUT_MS).emitWithAck('machine-register', this.registration()));
    if (!ack.ok) {
      const hint = ack.error.code === 'forbidden' ? ' (a machine token is needed: session-hub token create --role machine; a runner token may not register a machine, and a machine id is held by one token)' : '';
      throw new RegisterRefused(`the hub refused machine-register: ${ack.error.code}: ${ack.error.message}${hint}`);
    }
    // a runner with no agent is online but can start nothing: say so where the person looks first
    if (this.agents.length === 0) this.log.warn(`no agent found on PATH: install one of ${drivableClis().join(', ')} where this PATH finds it, then restart the runner`, { path: process.env.PATH ?? '' });
    this.log.info('registered', { machineId: this.machineId, name: this.config.name, roots: this.config.roots, agents: this.agents.map((a) => `${a.flavor} ${a.version ?? '?'}`), hub: this.config.hubUrl });
  }

  /**
   * Presence (spec section 6): a connected runner that stops its heartbeat reads "Lost contact"
   * after the hub's alive timeout, though its agent is alive and waiting for a prompt. Each running
   * agent's session beats, with `thinking` while a turn is open; nothing is sent while disconnected
   * (the reconnect's session-join makes the sessions active again).
   */
  private heartbeat(): void {
    if (!this.socket.connected) return;
    for (const [sid, run] of this.runs) {
      this.client.alive({ sid, thinking: run.thinking }).catch((error: unknown) => this.log.warn('heartbeat not answered', { sid, error: error instanceof Error ? error.message : String(error) }));
    }
  }

  private replacedBy: ((reason: string) => void) | undefined;
  /**
   * Resolves when another runner registered this machine (a second runner started with the same
   * config): this one has let its connection go for good, and the caller stops it. The later runner
   * wins once; reconnecting would take the machine back and the two would kick each other off.
   */
  readonly replaced = new Promise<string>((resolve) => (this.replacedBy = resolve));

  private takenOver(message: string): void {
    if (this.shuttingDown) return;
    this.client.abandon();
    const reason = `another runner registered machine ${this.machineId} (${message || 'the hub let this connection go'}): this runner stops and does not reconnect; run one runner per machine config (${this.config.name}), or give the other its own XDG_CONFIG_HOME`;
    this.log.error(reason, { machineId: this.machineId });
    this.replacedBy?.(reason);
  }

  private listen(): void {
    // the hub's word that a later registration of this machine replaced this connection
    (this.socket as unknown as { on(event: 'error', listener: (error: unknown) => void): void }).on('error', (error) => {
      const said = (error ?? {}) as { code?: unknown; event?: unknown; message?: unknown };
      if (said.code === 'conflict' && said.event === 'machine-register') this.takenOver(String(said.message ?? ''));
    });
    this.beating = setInterval(() => this.heartbeat(), this.config.aliveEveryMs);
    this.beating.unref();
    // the person running it sees the link come and go: agents keep working, their reports wait
    this.socket.on('disconnect', (reason) => {
      // 'io client disconnect': this runner let go (replaced, stopping): nothing is lost
      if (!this.shuttingDown && reason !== 'io client disconnect') this.log.warn(`lost the hub (${reason}): reconnecting; the agents keep running and their reports wait until the hub has them`, { hub: this.config.hubUrl, running: this.runs.size });
    });
    // a reconnect (to this or another hub process) registers again: the machine is online where its socket is
    this.socket.on('connect', () => {
      this.log.info('connected to the hub again', { hub: this.config.hubUrl });
      void this.register().catch((error: unknown) => this.log.error('register failed', { error: String(error) }));
    });
    this.socket.on('machine-spawn', (payload, ack) => void this.spawn(payload).then(ack));
    this.socket.on('machine-dirs', (payload, ack) => ack(this.dirs(payload)));
    this.socket.on('machine-mkdir', (payload, ack) => void this.mkdir(payload).then(ack));
    this.socket.on('machine-interrupt', (payload, ack) => void this.interrupt(payload).then(ack));
    this.socket.on('machine-stop', (payload, ack) => void this.stopOne(payload).then(ack));
    answerWork(this.socket, { roots: this.config.roots, log: this.log, turnOpen: (sid) => this.runs.get(sid)?.thinking === true });
    answerAgentSessions(this.socket, this.agentSessions, this.log);
    this.client.onMessage(async (message) => {
      const run = this.runs.get(message.sid);
      if (!run) throw new Error(`this runner does not drive ${message.sid}`);
      this.log.info('message to agent', { sid: message.sid, messageId: message.id, from: message.by.label ?? message.by.tokenId });
      run.send(message.text);
    });
  }

  private async spawn(payload: unknown): Promise<MachineSpawnAck> {
    const checked = checkSpawn(payload, { roots: this.config.roots, agents: this.agents, allowBypass: this.config.allowBypass });
    const requestedBy = (payload as { requestedBy?: unknown } | null)?.requestedBy;
    if (!checked.ok) {
      this.log.warn('spawn refused', { requestedBy, code: checked.ack.error.code, message: checked.ack.error.message });
      return checked.ack;
    }
    if (this.shuttingDown) return { ok: false, error: { code: 'spawn_failed', message: 'the runner is shutting down' } };
    const { request } = checked.plan;
    const plan = await this.withWorktree(checked.plan);
    if ('ok' in plan) {
      this.log.warn('spawn refused', { requestedBy, code: plan.error.code, message: plan.error.message });
      return plan;
    }
    // one agent per session: the hub claims a continue, and this runner never starts a second one
    if (request.resume && this.drives(request.resume.sid)) {
      this.log.warn('spawn refused', { requestedBy, code: 'session_running', sid: request.resume.sid });
      return { ok: false, error: { code: 'session_running', message: `this runner already drives session ${request.resume.sid}: send it a message, or stop it first` } };
    }
    const env = agentEnv(process.env, [this.config.token]);
    const run = new AgentRun(plan, { client: this.client, hubUrl: this.config.hubUrl, token: this.config.token, machineId: this.machineId, env, log: this.log, closing: () => this.shuttingDown });
    this.pending.set(request.requestId, run);
    try {
      const sid = await run.start();
      this.runs.set(sid, run);
      void run.finished.then(() => this.runs.get(sid) === run && this.runs.delete(sid));
      this.log.info('agent started', { sid, pid: run.pid, flavor: request.flavor, path: plan.cwd, worktree: plan.worktree?.branch, requestedBy: request.requestedBy, requestId: request.requestId, resume: request.resume !== undefined, permissionMode: request.permissionMode ?? 'default' });
      return { ok: true, sid, ...(plan.worktree ? { path: plan.cwd } : {}) };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.warn('agent did not start', { flavor: request.flavor, path: plan.cwd, requestedBy: request.requestedBy, error: message });
      await run.stop({ status: 'failure', reason: 'spawn_failed' }).catch(() => undefined);
      // no session came of it: the worktree made for it would only block the next try of its branch
      if (plan.worktree && run.sid === null) {
        await discardSessionWorktree(plan.worktree).catch((failure: unknown) => this.log.warn('could not remove the worktree of an agent that did not start', { path: plan.worktree?.path, error: String(failure) }));
      }
      return { ok: false, error: { code: error instanceof SpawnFailed ? 'spawn_failed' : 'internal', message: message.slice(-2000) } };
    } finally {
      this.pending.delete(request.requestId);
    }
  }

  /** The plan in a new worktree when asked for one (spec section 15), or why none could be made. */
  private async withWorktree(plan: SpawnPlan): Promise<SpawnPlan | MachineFailedAck> {
    const asked = plan.request.worktree;
    if (!asked) return plan;
    try {
      const made = await prepareWorktree(plan.cwd, asked, this.config.roots);
      this.log.info('worktree made', { path: made.worktree.path, branch: made.worktree.branch, base: made.worktree.base, requestedBy: plan.request.requestedBy });
      return { ...plan, cwd: made.cwd, worktree: made.worktree };
    } catch (error) {
      return refusalOf(error);
    }
  }

  /** A live agent of this session, or one starting for it. */
  private drives(sid: string): boolean {
    return this.runs.has(sid) || [...this.pending.values()].some((run) => run.plan.request.resume?.sid === sid);
  }

  private dirs(payload: unknown): MachineDirsAck {
    const parsed = MachineDirsPayloadSchema.safeParse(payload);
    if (!parsed.success) return { ok: false, error: { code: 'invalid_payload', message: parsed.error.issues[0]?.message ?? 'invalid' } };
    const resolved = resolveUnderRoots(parsed.data.path, this.config.roots);
    if (!resolved.ok) return { ok: false, error: { code: resolved.code, message: resolved.message } };
    try {
      const dirs = readdirSync(resolved.path, { withFileTypes: true }).filter((entry) => entry.isDirectory() && !entry.name.startsWith('.')).map((entry) => entry.name).sort();
      return { ok: true, path: resolved.path, dirs };
    } catch (error) {
      return { ok: false, error: { code: 'not_found', message: `cannot list ${resolved.path}: ${error instanceof Error ? error.message : String(error)}` } };
    }
  }

  private async mkdir(payload: unknown): Promise<MachineDirsAck> {
    const parsed = MachineMkdirPayloadSchema.safeParse(payload);
    if (!parsed.success) return { ok: false, error: { code: 'invalid_payload', message: parsed.error.issues[0]?.message ?? 'invalid' } };
    try {
      const path = await makeDirectory(parsed.data.path, this.config.roots);
      this.log.info('folder made', { path, requestedBy: parsed.data.requestedBy });
      return { ok: true, path, dirs: [] };
    } catch (error) {
      return refusalOf(error);
    }
  }

  private async interrupt(payload: unknown): Promise<MachineActionAck> {
    const parsed = MachineInterruptPayloadSchema.safeParse(payload);
    if (!parsed.success) return { ok: false, error: { code: 'invalid_payload', message: parsed.error.issues[0]?.message ?? 'invalid' } };
    const run = this.runs.get(parsed.data.sid);
    if (!run) return { ok: false, error: { code: 'not_found', message: `this runner does not drive ${parsed.data.sid}` } };
    this.log.info('interrupt', { sid: parsed.data.sid, requestedBy: parsed.data.requestedBy });
    await run.interrupt();
    return { ok: true };
  }

  private async stopOne(payload: unknown): Promise<MachineActionAck> {
    const parsed = MachineStopPayloadSchema.safeParse(payload);
    if (!parsed.success) return { ok: false, error: { code: 'invalid_payload', message: parsed.error.issues[0]?.message ?? 'invalid' } };
    const { sid, requestId, requestedBy, handover } = parsed.data;
    const run = (sid !== undefined ? this.runs.get(sid) : undefined) ?? (requestId !== undefined ? this.pending.get(requestId) : undefined);
    if (!run) return { ok: false, error: { code: 'not_found', message: `this runner drives no ${sid ?? requestId}` } };
    this.log.info(handover ? 'handing the session over to a terminal' : 'stop', { sid: run.sid, requestId, requestedBy, now: handover?.now });
    if (handover) {
      // `session-hub continue`: the agent's turn ends first (unless --now), and the run ends well
      const deadline = Date.now() + HANDOVER_WAIT_MS;
      while (!handover.now && run.thinking && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
      await run.stop({ status: 'success', reason: 'handed_over' });
      this.log.info('handed over', { sid: run.sid, requestedBy });
      return { ok: true };
    }
    await run.stop({ status: 'cancelled', reason: 'cancelled' });
    this.log.info('stopped', { sid: run.sid, requestedBy });
    return { ok: true };
  }

  /** The runner exits: every agent it started is stopped, their runs end `interrupted`; then the socket closes. */
  async shutdown(reason: string): Promise<void> {
    this.shuttingDown = true;
    const all = [...new Set([...this.runs.values(), ...this.pending.values()])];
    this.log.info('shutting down: stopping agents', { reason, agents: all.map((run) => run.sid) });
    await Promise.all(all.map((run) => run.stop({ status: 'interrupted', reason: 'runner_stopped' }).catch(() => undefined)));
    clearInterval(this.beating);
    await this.client.close();
  }
}
