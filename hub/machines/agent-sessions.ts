/**
 * Every session on the machine (spec section 16, docs/agent-sessions.md): the sessions the agents
 * keep in their own stores, listed by the machine's runner, and one of them imported as a hub
 * session once — its turns as ended turns at their own times, its resume token, path, machine and
 * host — then continued through the resume gate like any other. What the runner read is validated
 * again here: it comes from a file any process of that user could have written.
 */
import { resumeTokenKeyOf } from '../../shared/flavors.js';
import { AgentSessionHistorySchema, type AgentSession, type AgentSessionHistory } from '../../shared/protocol/agent-sessions.js';
import { MACHINE_ACK_TIMEOUT_MS } from '../../shared/protocol/machines.js';
import { endSessionWork } from '../lifecycle/session-events.js';
import { startSessionWork } from '../lifecycle/session-start.js';
import { recordToolUseWork, stopTurnWork, submitPromptWork } from '../lifecycle/turn-events.js';
import { runWrite } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { recordSessionOrigin } from '../store/machine-session-runs.js';
import { getMachine, type StoredMachine } from '../store/machines.js';
import { getSessionByTag } from '../store/sessions.js';
import { askMachine, recorded } from './ask.js';
import { MachineRefused } from './refused.js';
import type { Requester } from './requester.js';
import { isUnderRoots } from './roots.js';

/** Reading a large transcript takes the runner a while: longer than a directory listing. */
const READ_TIMEOUT_MS = 30_000;

async function onlineMachine(deps: HubDeps, who: Requester, machineId: string): Promise<StoredMachine> {
  const machine = await getMachine(deps.store, { namespace: who.namespace, machineId });
  if (!machine) throw new MachineRefused('machine_not_found', `no machine ${machineId} in this namespace: see GET /api/machines`);
  const online = await deps.machines?.onlineIds(who.namespace);
  if (!online?.has(machineId)) throw new MachineRefused('machine_offline', `machine "${machine.name}" is not connected: start its runner on ${machine.host} (session-hub runner) and retry`);
  return machine;
}

/** GET /api/machines/:machineId/agent-sessions: newest first, each with the hub session that already has it. */
export async function listAgentSessions(deps: HubDeps, who: Requester, machineId: string, path: string | undefined): Promise<{ sessions: AgentSession[] }> {
  const machine = await onlineMachine(deps, who, machineId);
  if (path !== undefined && !isUnderRoots(path, machine.roots)) {
    throw new MachineRefused('path_outside_roots', `${path} is not under a root of machine "${machine.name}" (${machine.roots.join(', ')})`);
  }
  const answer = await askMachine(deps, machineId, 'machine-agent-sessions', { ...(path !== undefined ? { path } : {}), requestedBy: who.name }, MACHINE_ACK_TIMEOUT_MS);
  const sessions = await Promise.all(
    answer.sessions.map(async (session) => {
      const known = await getSessionByTag(deps.store, { namespace: who.namespace, tag: session.agentSessionId });
      return { ...session, sid: known?.sid ?? null };
    }),
  );
  return { sessions };
}

/** The history as the hub will store it, or why not: the runner's word is checked again. */
function checkedHistory(machine: StoredMachine, asked: { flavor: string; agentSessionId: string }, history: unknown): AgentSessionHistory {
  const parsed = AgentSessionHistorySchema.safeParse(history);
  if (!parsed.success) throw new MachineRefused('transcript_refused', `the runner's reading of ${asked.agentSessionId} is not a session the hub takes: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);
  const read = parsed.data;
  if (read.flavor !== asked.flavor || read.agentSessionId !== asked.agentSessionId) throw new MachineRefused('transcript_refused', `the runner answered another session (${read.flavor} ${read.agentSessionId})`);
  if (!isUnderRoots(read.path, machine.roots)) throw new MachineRefused('path_outside_roots', `the session's directory ${read.path} is not under a root of machine "${machine.name}"`);
  if (read.turns.length === 0) throw new MachineRefused('transcript_refused', `${asked.agentSessionId} holds no prompt: nothing to import`);
  return read;
}

/**
 * One write: the session (tag and resume token the agent's id), each turn opened, its tools, its
 * closing message and usage at the transcript's own times, then the session ended. All or nothing.
 */
function importWork(deps: HubDeps, actor: Actor, machine: StoredMachine, history: AgentSessionHistory) {
  return async (...[tx, changes]: Parameters<Parameters<typeof runWrite>[1]>) => {
    const tokenKey = resumeTokenKeyOf(history.flavor);
    const metadata = { path: history.path, host: machine.host, machineId: machine.machineId, flavor: history.flavor, imported: { from: 'agent-store', cut: history.cut }, ...(tokenKey ? { [tokenKey]: history.agentSessionId } : {}) };
    const started = await startSessionWork(deps, actor, { tag: history.agentSessionId, flavor: history.flavor, source: 'startup', metadata })(tx, changes, history.startedAt);
    if (!started.created) return { sid: started.session.sid, created: false };
    const sid = started.session.sid;
    for (const [index, turn] of history.turns.entries()) {
      await submitPromptWork(actor, { sid, prompt: turn.prompt, promptId: `import-${history.agentSessionId}-${index}` })(tx, changes, turn.at);
      for (const tool of turn.tools) {
        await recordToolUseWork(actor, { sid, tool: tool.tool, ...(tool.toolUseId ? { toolUseId: tool.toolUseId } : {}), input: tool.input, ...(tool.output !== undefined ? { output: tool.output } : {}), at: tool.at }, tool.status)(tx, changes, Math.max(tool.at, turn.at));
      }
      await stopTurnWork(deps, actor, { sid, status: 'completed', ...(turn.response !== null ? { response: turn.response } : {}), ...(turn.usage ? { usage: turn.usage } : {}) })(tx, changes, turn.endedAt);
    }
    await endSessionWork(deps, actor, { sid, reason: 'imported', status: 'success' })(tx, changes, history.updatedAt);
    return { sid, created: true };
  };
}

/** POST /api/machines/:machineId/agent-sessions/import: 201 made, 200 the one the hub already had (nothing changed). */
export async function importAgentSession(deps: HubDeps, who: Requester, machineId: string, asked: { flavor: string; agentSessionId: string }): Promise<{ sid: string; created: boolean; cut?: string | null }> {
  const existing = await getSessionByTag(deps.store, { namespace: who.namespace, tag: asked.agentSessionId });
  if (existing) return { sid: existing.sid, created: false };
  const machine = await onlineMachine(deps, who, machineId);
  let sid: string | null = null;
  return recorded(deps, who, () => ({ machineId, sid, action: 'import', path: null }), async () => {
    const answer = await askMachine(deps, machineId, 'machine-agent-session-read', { ...asked, requestedBy: who.name }, READ_TIMEOUT_MS);
    const history = checkedHistory(machine, asked, answer.history);
    const actor: Actor = { namespace: who.namespace, role: 'operator', by: 'hub' };
    const made = await runWrite(deps, importWork(deps, actor, machine, history), { namespace: who.namespace, reads: { namespace: who.namespace, tag: history.agentSessionId } });
    sid = made.sid;
    // a Continue runs where it worked, on this machine: the hub's own record, as for a start
    if (made.created) await recordSessionOrigin(deps.store, { namespace: who.namespace, sid: made.sid, machineId, path: history.path, permissionMode: null, byToken: who.tokenId, at: deps.clock.now() });
    return { ...made, cut: history.cut };
  });
}
