/**
 * The runner side of the SDK: one `/runner` socket, the sessions it started or joined, typed
 * lifecycle calls, and versioned writes that never lose an update and never apply one twice.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Socket } from 'socket.io-client';
import type { UpdateEvent } from '../protocol/broadcast.js';
import type { AckOf, RunnerClientToServerEvents, RunnerServerToClientEvents } from '../protocol/events.js';
import type { JsonObject } from '../protocol/json.js';
import type {
  PromptSubmitPayload,
  ResumeFailedAck,
  ResumeFailedPayload,
  SessionAlivePayload,
  SessionArchivePayload,
  SessionEndPayload,
  SessionStartPayload,
  ToolUsePayload,
  TurnStopPayload,
  UsagePayload,
} from '../protocol/lifecycle.js';
import { RunnerMessagePayloadSchema, type Message, type RunnerMessageAck } from '../protocol/messages.js';
import type { ApprovalAskAck, ApprovalAskPayload } from '../protocol/attention.js';
import type { Attention, AttentionKind, SessionSnapshot, TurnSummary } from '../protocol/session.js';
import { applySessionUpdate, applyTurn, newerSnapshot } from './apply-update.js';
import { DEFAULT_BACKOFF, jitteredDelay, sleep, type BackoffOptions } from './backoff.js';

/** Rebases after a `version-mismatch` sent without a pause, before backing off. */
const PROMPT_REBASES = 3;
import { DEFAULT_REQUEST_TIMEOUT_MS, unwrapOk, type ClientOptions } from './connection.js';
import { HubRequestError } from './errors.js';
import { HubLink, type Link } from './hub-link.js';
import { KeyedLock } from './keyed-lock.js';

/** Beyond an approval's wait: its answer on the way back. */
const APPROVAL_ANSWER_SLACK_MS = 30_000;

/** The `/runner` socket, typed with the swapped event maps. */
export type RunnerSocket = Socket<RunnerServerToClientEvents, RunnerClientToServerEvents>;

/** Hands a person's message to the agent; resolves once the agent has it (the hub then marks it delivered). */
export type MessageHandler = (message: Message) => void | Promise<void>;

/** Computes the next whole metadata document from the stored one. May run several times (rebase). */
export type MetadataUpdater = (current: JsonObject) => JsonObject;
/** Computes the next agentState from the stored one. May run several times (rebase). */
export type StateUpdater = (current: JsonObject | null) => JsonObject | null;

export interface WriteOptions {
  /** The whole call, retries included, must finish within this. Default: the client's `writeTimeoutMs`. */
  timeoutMs?: number;
  /** Idempotency key; one is generated per call and reused by all its retries. */
  requestId?: string;
}

export interface RunnerClientOptions extends ClientOptions {
  /** Per-call budget of `updateMetadata` / `updateState`, retries included. Default 30000 ms. */
  writeTimeoutMs?: number;
  /** Attempts per write before giving up (version-mismatch rebases included). Default 100. */
  maxAttempts?: number;
  /** Pacing between attempts. Default base 10 ms, cap 1000 ms, full jitter. */
  backoff?: BackoffOptions;
  /**
   * The secret that proves this runner is its sessions' own taker of people's messages (at least 32
   * characters; docs/messages.md, "Who takes a message"). The first runner (or hook) of a session
   * registers its key; only a runner presenting it is offered the session's messages. Default: a
   * random one per client, so a runner process restarted onto its old sessions passes the key it
   * kept to keep taking their messages.
   */
  takerKey?: string;
}

export interface RunnerClientEvents {
  /** Every broadcast received (live or replayed), after it was applied to the cache. */
  update: (event: UpdateEvent) => void;
  /** A cached snapshot changed. */
  session: (snapshot: SessionSnapshot) => void;
  /** The hub could not replay what was missed; the client refetched (re-joined) every session. */
  resync: (sids: string[]) => void;
  /** The socket reconnected and the client re-joined its sessions. */
  reconnect: () => void;
  /** A background step (re-join, refetch) failed. */
  error: (error: Error) => void;
}

type VersionedField = 'metadata' | 'agentState';
/** A versioned ack with the field's value under one name. */
type VersionedOutcome =
  | { result: 'success'; version: number; value: JsonObject | null }
  | { result: 'version-mismatch'; version: number; value: JsonObject | null }
  | { result: 'error'; code: HubRequestError['code']; message: string };
type Ok<T> = Extract<T, { ok: true }>;

/**
 * A runner's connection to the hub.
 *
 * @example
 * const runner = await RunnerClient.connect({ url: 'http://127.0.0.1:3737', token: process.env.SESSION_HUB_TOKEN! });
 * const { session } = await runner.startSession({ tag: agentSessionId, flavor: 'claude', source: 'startup', metadata: { path: cwd } });
 * await runner.submitPrompt({ sid: session.sid, prompt: 'fix the tests' });
 * await runner.updateMetadata(session.sid, (m) => ({ ...m, title: 'Fix the tests' }));
 * await runner.close(); // flushes in-flight writes first
 */
export class RunnerClient extends HubLink<RunnerClientToServerEvents, RunnerClientEvents> {
  private readonly options: RunnerClientOptions;
  private readonly sessions = new Map<string, SessionSnapshot>();
  /** Sessions to re-join after a reconnect. */
  private readonly joined = new Set<string>();
  private readonly locks = new KeyedLock();
  private readonly inflight = new Set<Promise<unknown>>();
  /** A join asked for a replay since the last refetch: a `resync` is about that. */
  private replayRequested = false;
  private readonly messageHandlers = new Set<MessageHandler>();
  /** Sent with every session-start and session-join: the hub offers a session's messages only to its own taker. */
  private readonly taker: { key: string; process: string };
  /** A session started with a taker of its own (a continue's key from the hub): its joins present that one. */
  private readonly sessionTakers = new Map<string, { key: string; process: string }>();

  private constructor(link: Link<RunnerSocket>, options: RunnerClientOptions) {
    super(link, options);
    this.options = options;
    this.taker = { key: options.takerKey ?? randomBytes(24).toString('base64url'), process: `runner pid ${process.pid} on ${hostname()}`.slice(0, 128) };
    const { socket } = link;
    socket.on('update', (event) => this.onUpdate(event));
    socket.on('resync', () => this.onResync());
    socket.on('message', (payload, ack) => void this.onMessagePayload(payload, ack));
    // after any reconnect — to the same process or, failing over, to another one
    socket.on('connect', () => this.onConnect());
  }

  /**
   * Connects to `/runner`. Rejects with a `HubRequestError` (`unauthorized`, `forbidden`, `timeout`).
   *
   * @example
   * const runner = await RunnerClient.connect({ url, token, writeTimeoutMs: 10_000 });
   */
  static connect(options: RunnerClientOptions): Promise<RunnerClient> {
    return HubLink.open('/runner', options, (link: Link<RunnerSocket>) => new RunnerClient(link, options));
  }

  /**
   * A person's messages to the agents of this runner's sessions (docs/messages.md). The hub sends
   * each queued message to the runners of its session; the message is marked delivered once a
   * handler resolves, and stays queued for the next taker when every handler throws or none is
   * registered. Register before starting or joining sessions: queued messages come right after.
   * Returns a function that removes the handler.
   *
   * @example
   * runner.onMessage(async (message) => { await agent.send(message.sid, message.text); });
   */
  onMessage(handler: MessageHandler): () => void {
    this.messageHandlers.add(handler);
    return () => this.messageHandlers.delete(handler);
  }

  private async onMessagePayload(payload: unknown, ack: (answer: RunnerMessageAck) => void): Promise<void> {
    const parsed = RunnerMessagePayloadSchema.safeParse(payload);
    if (!parsed.success) return ack({ ok: false, error: { code: 'invalid_payload', message: parsed.error.issues[0]?.message ?? 'invalid message' } });
    if (this.messageHandlers.size === 0) return ack({ ok: false, error: { code: 'not_found', message: 'no message handler on this runner' } });
    const errors: string[] = [];
    let took = false;
    for (const handler of [...this.messageHandlers]) {
      try {
        await handler(parsed.data.message);
        took = true;
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
      }
    }
    ack(took ? { ok: true } : { ok: false, error: { code: 'internal', message: errors.join('; ').slice(0, 500) } });
  }

  /** The largest broadcast seq seen; what a reconnect asks the hub to replay from. */
  get lastSeq(): number | undefined {
    return this.seq;
  }

  /** The cached snapshot of a started or joined session (kept current by broadcasts). */
  session(sid: string): SessionSnapshot | undefined {
    return this.sessions.get(sid);
  }

  /**
   * Subscribes to the client's own events; returns an unsubscribe function.
   *
   * @example
   * runner.on('resync', (sids) => log.warn({ sids }, 'refetched after a replay gap'));
   */
  on<E extends keyof RunnerClientEvents>(event: E, listener: RunnerClientEvents[E]): () => void {
    return this.listeners.on(event, listener);
  }

  /**
   * `session-start`: get-or-create by tag, opens a run, joins the session's room. A `taker` in the
   * payload replaces the client's own for this session, its later joins included.
   *
   * @example
   * const { session, created } = await runner.startSession({ tag: 'abc', flavor: 'codex', source: 'startup' });
   */
  async startSession(payload: SessionStartPayload): Promise<{ session: SessionSnapshot; created: boolean; takerRefused?: string }> {
    const ack = unwrapOk(await this.request('session-start', { taker: this.taker, ...payload }), 'session-start');
    if (payload.taker) this.sessionTakers.set(ack.session.sid, payload.taker);
    this.remember(ack.session);
    this.joined.add(ack.session.sid);
    return { session: this.sessions.get(ack.session.sid)!, created: ack.created, ...(ack.takerRefused === undefined ? {} : { takerRefused: ack.takerRefused }) };
  }

  /**
   * `session-join`: (re)joins a session and its live run; answers a fresh snapshot. Missed events
   * after `lastSeq` are replayed; if they are gone the client refetches (see the `resync` event).
   *
   * @example
   * const snapshot = await runner.joinSession(sid);
   */
  async joinSession(sid: string): Promise<SessionSnapshot> {
    const sinceSeq = this.seq;
    if (sinceSeq !== undefined) this.replayRequested = true;
    // joined before the ack: a resync for this join can arrive in the same tick as its ack
    const wasJoined = this.joined.has(sid);
    this.joined.add(sid);
    try {
      const taker = this.sessionTakers.get(sid) ?? this.taker;
      const ack = unwrapOk(await this.request('session-join', sinceSeq === undefined ? { sid, taker } : { sid, sinceSeq, taker }), 'session-join');
      return this.remember(ack.session);
    } catch (error) {
      if (!wasJoined || (error instanceof HubRequestError && error.final)) this.joined.delete(sid);
      throw error;
    }
  }

  /**
   * `prompt-submit`: opens a turn. Pass a `promptId` to make a re-send answer the same turn.
   * @example
   * const { turnId } = await runner.submitPrompt({ sid, prompt: 'hello', promptId: 'p-1' });
   */
  async submitPrompt(payload: PromptSubmitPayload): Promise<{ turnId: string }> {
    const { turnId } = unwrapOk(await this.request('prompt-submit', payload), 'prompt-submit');
    return { turnId };
  }

  /**
   * `tool-use`: records tool activity; a repeated `toolUseId` is stored once.
   * @example
   * await runner.toolUse({ sid, tool: 'Bash', toolUseId: 'tu_1', input: { command: 'ls' }, output: 'a.txt' });
   */
  async toolUse(payload: ToolUsePayload): Promise<{ turnId: string; activityId: string }> {
    const { turnId, activityId } = unwrapOk(await this.request('tool-use', payload), 'tool-use');
    return { turnId, activityId };
  }

  /**
   * `turn-stop`: closes the open turn; answers it, or null when none was open.
   * @example
   * await runner.stopTurn({ sid, response: 'Done.' });
   */
  async stopTurn(payload: TurnStopPayload): Promise<TurnSummary | null> {
    return unwrapOk(await this.request('turn-stop', payload), 'turn-stop').turn;
  }

  /**
   * `usage`: the turn's token totals so far, per model (docs/usage.md); a repeated or late report
   * never lowers or doubles them. Answers the turn with its usage and the hub's cost.
   * @example
   * await runner.reportUsage({ sid, usage: [{ model: 'claude-sonnet-4-5', inputTokens: 1200, outputTokens: 340 }] });
   */
  async reportUsage(payload: UsagePayload): Promise<TurnSummary> {
    return unwrapOk(await this.request('usage', payload), 'usage').turn;
  }

  /**
   * `session-end`: ends the run (or, for a flavor whose session-end is a turn boundary, closes the turn).
   * @example
   * await runner.endSession({ sid, reason: 'completed' });
   */
  async endSession(payload: SessionEndPayload): Promise<SessionSnapshot> {
    return this.remember(unwrapOk(await this.request('session-end', payload), 'session-end').session);
  }

  /**
   * `session-finalize`: the true end for every flavor; the client stops re-joining the session.
   * @example
   * await runner.finalizeSession({ sid, reason: 'completed' });
   */
  async finalizeSession(payload: SessionEndPayload): Promise<SessionSnapshot> {
    const session = this.remember(unwrapOk(await this.request('session-finalize', payload), 'session-finalize').session);
    this.joined.delete(payload.sid);
    this.sessionTakers.delete(payload.sid);
    return session;
  }

  /**
   * `session-archive`: lifecycle `archived`, by the runner.
   * @example
   * await runner.archiveSession({ sid, reason: 'User terminated' });
   */
  async archiveSession(payload: SessionArchivePayload): Promise<SessionSnapshot> {
    return this.remember(unwrapOk(await this.request('session-archive', payload), 'session-archive').session);
  }

  /**
   * `session-alive`: presence heartbeat (`time` defaults to now).
   * @example
   * setInterval(() => void runner.alive({ sid, thinking: true }), 10_000);
   */
  async alive(payload: Omit<SessionAlivePayload, 'time'> & { time?: number }): Promise<void> {
    unwrapOk(await this.request('session-alive', { ...payload, time: payload.time ?? Date.now() }), 'session-alive');
  }

  /**
   * `resume-failed`: reports a resume the agent refused; answers `fresh-start` (with turns to replay) or `fail`.
   * @example
   * const verdict = await runner.resumeFailed({ sid, tokenKey: 'claudeSessionId', token, stage: 'resume', emitted: false, aborted: false });
   */
  async resumeFailed(payload: ResumeFailedPayload): Promise<Ok<ResumeFailedAck>> {
    return unwrapOk(await this.request('resume-failed', payload), 'resume-failed');
  }

  /**
   * `approval-ask`: opens an approval on the session (by sid: it stays when the agent's own id
   * changes) and waits up to `waitMs` for a person. Answers the decision, or `decision: null` when
   * nobody decided in time (ask again). The ack timeout covers the wait and the answer's way back.
   * @example
   * const ack = await runner.askApproval({ sid, tool: 'Bash', toolUseId: null, input: { command: 'ls' }, cwd, waitMs: 300_000 });
   */
  async askApproval(payload: ApprovalAskPayload): Promise<ApprovalAskAck> {
    return this.request('approval-ask', payload, payload.waitMs + APPROVAL_ANSWER_SLACK_MS);
  }

  /**
   * `attention`: the session waits for a person (`permission`, `question`, `done`, `failed`), or —
   * with `null` — no longer. Answers the attention as stored (the same kind again keeps its `since`).
   * @example
   * await runner.setAttention(sid, 'question', { message: 'Which branch should I use?' });
   * await runner.setAttention(sid, null); // working again
   */
  async setAttention(sid: string, kind: AttentionKind | null, details: { message?: string; tool?: string } = {}): Promise<Attention | null> {
    const { attention } = unwrapOk(await this.request('attention', { sid, kind, ...details }), 'attention');
    const held = this.sessions.get(sid);
    // our own write comes back as an ack, not an update: the cached snapshot follows it here
    if (held) {
      const next = { ...held, attention };
      this.sessions.set(sid, next);
      this.listeners.emit('session', next);
    }
    return attention;
  }

  /**
   * Writes metadata with compare-and-set. Pass an updater (it receives the stored document and may
   * run again on a fresher one after a `version-mismatch`) or `{ patch }` (an RFC 7386 merge patch).
   * Writes of one client to one session's metadata run one at a time; a retried write carries the
   * same `requestId`, so the hub applies it at most once. Rejects with a `HubRequestError`:
   * `not_found`, `forbidden`, `invalid_payload`, `payload_too_large` at once, `timeout` after the budget.
   *
   * @example
   * await runner.updateMetadata(sid, (m) => ({ ...m, title: 'Refactor' }));
   * await runner.updateMetadata(sid, { patch: { codexSessionId: null } }); // explicit clear
   */
  updateMetadata(sid: string, update: MetadataUpdater | { patch: JsonObject }, options: WriteOptions = {}): Promise<{ version: number; metadata: JsonObject }> {
    const build = typeof update === 'function' ? (current: JsonObject) => ({ metadata: update(current) }) : () => ({ patch: update.patch });
    const deadline = this.deadlineOf(options);
    return this.track(
      this.locks.run(`${sid}\u0000metadata`, async () => {
        const { version, value } = await this.writeVersioned(sid, 'metadata', (current) => build(current as JsonObject), options, deadline);
        return { version, metadata: value as JsonObject };
      }),
    );
  }

  /**
   * Replaces agentState with compare-and-set; the updater may run again after a `version-mismatch`.
   *
   * @example
   * await runner.updateState(sid, (s) => ({ ...(s ?? {}), pendingPermission: null }));
   */
  updateState(sid: string, updater: StateUpdater, options: WriteOptions = {}): Promise<{ version: number; agentState: JsonObject | null }> {
    const deadline = this.deadlineOf(options);
    return this.track(
      this.locks.run(`${sid}\u0000agentState`, async () => {
        const { version, value } = await this.writeVersioned(sid, 'agentState', (current) => ({ agentState: updater(current) }), options, deadline);
        return { version, agentState: value };
      }),
    );
  }

  /**
   * Waits until every request sent so far has settled (call before the process exits).
   * @example
   * process.once('SIGTERM', async () => { await runner.flush(); process.exit(0); });
   */
  async flush(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /**
   * Flushes, then disconnects for good.
   * @example
   * await runner.close();
   */
  async close(): Promise<void> {
    await this.flush();
    this.disconnectForGood();
  }

  // ---- internals ----

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inflight.add(promise);
    const done = () => this.inflight.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /** One request with the per-request ack timeout; a timeout becomes a `timeout` HubRequestError. */
  private request<E extends keyof RunnerClientToServerEvents>(
    event: E,
    payload: Parameters<RunnerClientToServerEvents[E]>[0],
    timeoutMs?: number,
  ): Promise<AckOf<RunnerClientToServerEvents[E]>> {
    return this.track(this.emitRequest(event, payload, timeoutMs));
  }

  private async snapshotFor(sid: string): Promise<SessionSnapshot> {
    // never write from nothing: without a cached snapshot, fetch the stored one first (seed 000)
    return this.sessions.get(sid) ?? (await this.joinSession(sid));
  }

  /**
   * A write's budget runs from the call, not from when the lock lets it go: writes queued behind
   * one another while the hub is away give up together instead of one budget after another
   * (and `close()` does not wait for the sum of them).
   */
  private deadlineOf(options: WriteOptions): number {
    return Date.now() + (options.timeoutMs ?? this.options.writeTimeoutMs ?? 30_000);
  }

  private async writeVersioned(
    sid: string,
    field: VersionedField,
    build: (current: JsonObject | null) => Record<string, unknown>,
    options: WriteOptions,
    deadline: number,
  ): Promise<{ version: number; value: JsonObject | null }> {
    const event = field === 'metadata' ? 'update-metadata' : 'update-state';
    const requestId = options.requestId ?? randomUUID();
    const maxAttempts = this.options.maxAttempts ?? 100;
    const backoff = this.options.backoff ?? DEFAULT_BACKOFF;
    let lastError: HubRequestError = new HubRequestError('timeout', `${event} did not complete in time`, event);

    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const held = (await this.snapshotFor(sid))[field];
      const payload = { sid, expectedVersion: held.version, requestId, ...build(held.value) };
      let ack: VersionedOutcome;
      try {
        const raw = (await this.request(event, payload as never, Math.min(remaining, this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS))) as Record<string, unknown>;
        ack = (raw.result === 'error' ? raw : { result: raw.result, version: raw.version, value: raw[field] }) as VersionedOutcome;
      } catch (error) {
        if (!(error instanceof HubRequestError)) throw error;
        lastError = error;
        await sleep(Math.min(jitteredDelay(attempt, backoff), Math.max(0, deadline - Date.now())));
        continue;
      }
      if (ack.result === 'success') {
        this.storeVersioned(sid, field, ack.version, ack.value);
        return { version: ack.version, value: ack.value };
      }
      if (ack.result === 'version-mismatch') {
        // rebase: the updater runs again on the fresh stored value the hub answered with
        this.storeVersioned(sid, field, ack.version, ack.value);
        // the first rebases go at once: the rebased write should reach the hub with the winner's
        // next one, and the hub puts a race's losers first in its batch (hub/services/loser-first.ts);
        // a writer that keeps losing (e.g. to writers on another hub process, which orders its own
        // batches) backs off, so its attempts are not spent in a burst
        if (attempt >= PROMPT_REBASES) await sleep(jitteredDelay(attempt - PROMPT_REBASES, backoff));
        continue;
      }
      lastError = new HubRequestError(ack.code, ack.message, event);
      if (lastError.final) throw lastError;
      await sleep(jitteredDelay(attempt, backoff));
    }
    throw lastError.code === 'timeout' ? lastError : new HubRequestError(lastError.code, `${event} gave up: ${lastError.message}`, event);
  }

  private storeVersioned(sid: string, field: VersionedField, version: number, value: JsonObject | null): void {
    const held = this.sessions.get(sid);
    if (!held || held[field].version >= version) return;
    const next = field === 'metadata' ? { ...held, metadata: { version, value: value ?? {} } } : { ...held, agentState: { version, value } };
    this.sessions.set(sid, next);
    this.listeners.emit('session', next);
  }

  private remember(snapshot: SessionSnapshot): SessionSnapshot {
    const next = newerSnapshot(this.sessions.get(snapshot.sid), snapshot);
    this.sessions.set(snapshot.sid, next);
    this.listeners.emit('session', next);
    return next;
  }

  private onUpdate(event: UpdateEvent): void {
    if (this.seq === undefined || event.seq > this.seq) this.seq = event.seq;
    const { body } = event;
    const held = this.sessions.get(body.sid);
    let next: SessionSnapshot | undefined;
    if (body.t === 'session-created') next = newerSnapshot(held, body.session);
    else if (held && body.t === 'update-session') next = applySessionUpdate(held, body, event.createdAt);
    else if (held && body.t === 'turn') next = applyTurn(held, body, event.createdAt);
    if (next && next !== held) {
      this.sessions.set(body.sid, next);
      this.listeners.emit('session', next);
    }
    this.listeners.emit('update', event);
  }

  /** Replay was impossible: forget the seq and refetch every joined session (session-join answers a fresh snapshot). */
  private onResync(): void {
    if (!this.replayRequested) return; // a late resync for joins the last refetch already covered
    this.replayRequested = false;
    this.seq = undefined;
    const sids = [...this.joined];
    void this.rejoinAll().then(() => this.listeners.emit('resync', sids));
  }

  private onConnect(): void {
    if (!this.connectedOnce) return;
    void this.rejoinAll().then(() => this.listeners.emit('reconnect'));
  }

  private async rejoinAll(): Promise<void> {
    await Promise.all(
      [...this.joined].map(async (sid) => {
        try {
          await this.joinSession(sid);
        } catch (error) {
          if (error instanceof HubRequestError && error.final) this.joined.delete(sid);
          this.listeners.emit('error', error as Error);
        }
      }),
    );
  }
}
