/**
 * The three loads of `npm run bench:real-traffic` (issue 31), each as lanes that make one call at a
 * time: an agent's Claude Code turn through `POST /api/hooks` (one event a call, as the installed
 * synchronous hooks send them), an SDK runner's turn over `/runner`, and a runner's metadata patches
 * that set no title. A lane's `next()` makes its next call and resolves once it is acknowledged;
 * it throws when the hub refuses it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import { RunnerClient } from '../shared/client/index.js';

export interface Lane {
  next(): Promise<void>;
  close(): Promise<void>;
}

/** Where a lane connects: a hub process and the tokens of the tenant it writes. */
export interface LaneTarget {
  url: string;
  runnerToken: string;
  agentToken: string;
}

export interface Load {
  name: string;
  open(target: LaneTarget, index: number): Promise<Lane>;
}

const TOOLS_PER_TURN = 3;
const REQUEST_TIMEOUT_MS = 30_000;
const FIXTURE = resolve(import.meta.dirname, '../../test/hook/fixtures/agents/claude-code-2.1.197-headless-allowed-by-settings.json');

type Payload = Record<string, unknown>;

/** The real CLI's payload of each hook event (claude-code 2.1.197, recorded by test/agents). */
function recordedPayloads(): Map<string, Payload> {
  const { payloads } = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { payloads: Payload[] };
  const byName = new Map<string, Payload>();
  for (const payload of payloads) if (!byName.has(payload.hook_event_name as string)) byName.set(payload.hook_event_name as string, payload);
  return byName;
}

/** One turn's events in the order the CLI fires them: a prompt, each tool before and after, a stop. */
function turnPayloads(recorded: Map<string, Payload>, sessionId: string, turn: number): { payload: Payload; take?: boolean }[] {
  const as = (name: string, extra: Payload = {}) => ({ ...recorded.get(name)!, session_id: sessionId, prompt_id: `prompt-${turn}`, ...extra });
  const events: { payload: Payload; take?: boolean }[] = [{ payload: as('UserPromptSubmit', { prompt: `Run step ${turn}` }) }];
  for (let tool = 0; tool < TOOLS_PER_TURN; tool++) {
    const id = `toolu_bench_${turn}_${tool}`;
    const input = { command: `echo step-${turn}-${tool}`, description: `Step ${tool}` };
    events.push({ payload: as('PreToolUse', { tool_use_id: id, tool_input: input }) });
    events.push({ payload: as('PostToolUse', { tool_use_id: id, tool_input: input }) });
  }
  // Stop is Claude Code's message hook: the hook process asks for the session's queued messages
  events.push({ payload: as('Stop'), take: true });
  return events;
}

/**
 * One keep-alive connection per lane through node:http: the agents' own CPU is not the hub's, but
 * on one machine it competes with it, and `fetch` (undici) cost the bench ~1.5 ms of CPU a call
 * against ~0.3 ms here, most of a core at 500 calls/s taken from the hub and PostgreSQL.
 */
const keepAlive = new Agent({ keepAlive: true });

function postJson(url: string, token: string, body: unknown): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolvePost, reject) => {
    const req = request(url, {
      method: 'POST',
      agent: keepAlive,
      timeout: REQUEST_TIMEOUT_MS,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolvePost({ status: response.statusCode ?? 0, body: text }));
      response.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`POST ${url}: no answer in ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** (a) An agent's hook process per event: the event alone, with its session's taker proof. */
export const agentHooks: Load = {
  name: "agents' hook events",
  async open(target, index) {
    const recorded = recordedPayloads();
    const sessionId = randomUUID();
    const taker = { key: randomBytes(24).toString('base64url'), process: `claude bench agent ${index}` };
    let seq = 0;
    const post = async (payload: Payload, take?: boolean) => {
      const event = { id: randomUUID(), flavor: 'claude', firedAt: Date.now(), ageMs: 0, seq: seq++, payload, taker, ...(take ? { take } : {}) };
      const response = await postJson(`${target.url}/api/hooks`, target.agentToken, { events: [event] });
      if (response.status !== 200) throw new Error(`POST /api/hooks: ${response.status} ${response.body}`);
      const { results } = JSON.parse(response.body) as { results: { outcome: string; detail?: string }[] };
      const outcome = results[0]?.outcome;
      if (outcome !== 'applied') throw new Error(`hook event ${String(payload.hook_event_name)}: ${outcome} ${results[0]?.detail ?? ''}`);
    };
    await post({ ...recorded.get('SessionStart')!, session_id: sessionId });
    let queue: { payload: Payload; take?: boolean }[] = [];
    let turn = 0;
    return {
      async next() {
        if (queue.length === 0) queue = turnPayloads(recorded, sessionId, turn++);
        const { payload, take } = queue.shift()!;
        await post(payload, take);
      },
      close: async () => undefined,
    };
  },
};

async function runnerWithSession(target: LaneTarget, label: string): Promise<{ runner: RunnerClient; sid: string }> {
  const runner = await RunnerClient.connect({ url: target.url, token: target.runnerToken, requestTimeoutMs: REQUEST_TIMEOUT_MS, socketOptions: { transports: ['websocket'] } });
  const { session } = await runner.startSession({ tag: `bench-${label}-${randomUUID()}`, flavor: 'claude', source: 'startup', metadata: { path: '/work/project', host: 'bench-machine' } });
  return { runner, sid: session.sid };
}

/** (b) An SDK runner's turn: prompt-submit, tool-use start and end per tool, turn-stop. */
export const runnerTurns: Load = {
  name: "runners' turn events",
  async open(target, index) {
    const { runner, sid } = await runnerWithSession(target, `turns-${index}`);
    let step = 0;
    let turn = 0;
    const stepsPerTurn = 2 + 2 * TOOLS_PER_TURN;
    return {
      async next() {
        const at = step++ % stepsPerTurn;
        if (at === 0) await runner.submitPrompt({ sid, prompt: `Run step ${++turn}` });
        else if (at === stepsPerTurn - 1) await runner.stopTurn({ sid, response: 'All done.', status: 'completed' });
        else {
          const tool = Math.floor((at - 1) / 2);
          const toolUseId = `toolu_bench_${turn}_${tool}`;
          if (at % 2 === 1) await runner.toolUse({ sid, tool: 'Bash', toolUseId, input: { command: `echo step-${turn}-${tool}` } });
          else await runner.toolUse({ sid, tool: 'Bash', toolUseId, output: { stdout: `step-${turn}-${tool}` } });
        }
      },
      close: () => runner.close(),
    };
  },
};

/** (c) A runner's metadata patches that set no title. */
export const untitledPatches: Load = {
  name: 'metadata patches, no title',
  async open(target, index) {
    const { runner, sid } = await runnerWithSession(target, `patches-${index}`);
    let n = 0;
    return {
      async next() {
        await runner.updateMetadata(sid, { patch: { benchN: ++n, benchAt: Date.now() } });
      },
      close: () => runner.close(),
    };
  },
};

export const LOADS: readonly Load[] = [agentHooks, runnerTurns, untitledPatches];
