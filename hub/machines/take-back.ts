/**
 * The way back to the terminal (spec section 16, `session-hub continue <sid>`): a machine runner
 * that drives the session ends its agent (after its open turn, or at once), its run ending
 * `success`; then the resume gate of section 7 answers the session's agent, directory and resume
 * token, for the command to start the agent's own CLI there. Recorded with who asked.
 */
import { resumeTokenProblem } from '../../shared/flavors.js';
import { DRIVEN_BY_KEY, HANDOVER_WAIT_MS, MACHINE_ACK_TIMEOUT_MS, STOP_KILL_AFTER_MS, type TakeBackRequest, type TakeBackResponse } from '../../shared/protocol/machines.js';
import type { HubDeps } from '../services/deps.js';
import { requireSession } from '../services/require-session.js';
import { resumeSession } from '../services/resume.js';
import { getSessionOrigin } from '../store/machine-session-runs.js';
import { getSession } from '../store/sessions.js';
import { askMachine, recorded } from './ask.js';
import { placeOf } from './choose.js';
import { MachineRefused } from './refused.js';
import type { Requester } from './requester.js';

/** The runner reports its run's end after the agent is gone: the gate must see it ended. */
const RUN_END_WAIT_MS = 15_000;

async function runEnded(deps: HubDeps, who: Requester, sid: string): Promise<void> {
  const deadline = Date.now() + RUN_END_WAIT_MS;
  while (Date.now() < deadline) {
    const session = await getSession(deps.store, { namespace: who.namespace, sid });
    if (session?.lastRun?.status !== 'running') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new MachineRefused('session_running', `the machine runner ended its agent, but session ${sid}'s run was not reported ended within ${RUN_END_WAIT_MS / 1000} s: retry in a moment`);
}

export async function takeBack(deps: HubDeps, who: Requester, sid: string, request: TakeBackRequest): Promise<TakeBackResponse> {
  const session = await requireSession(deps.store, who, sid);
  const origin = await getSessionOrigin(deps.store, { namespace: who.namespace, sid });
  const machineId = origin?.machineId ?? placeOf(session).machineId ?? null;
  const path = origin?.path ?? placeOf(session).path;
  return recorded(deps, who, { machineId, sid, action: 'take-back', path: path ?? null }, async () => {
    if (path === undefined) throw new MachineRefused('no_machine', `session ${sid} has no directory (metadata.path): there is nowhere to continue it`);
    let handedOver = false;
    if (session.lastRun?.status === 'running') {
      if (session.metadata[DRIVEN_BY_KEY] !== 'machine' || machineId === null) {
        throw new MachineRefused('session_running', `session ${sid} is running in a terminal already: continue it there, or end it first`);
      }
      const wait = request.now ? STOP_KILL_AFTER_MS + MACHINE_ACK_TIMEOUT_MS : HANDOVER_WAIT_MS + STOP_KILL_AFTER_MS + MACHINE_ACK_TIMEOUT_MS;
      await askMachine(deps, machineId, 'machine-stop', { sid, requestedBy: who.name, handover: { now: request.now } }, wait);
      await runEnded(deps, who, sid);
      handedOver = true;
    }
    const resume = await resumeSession(deps, { namespace: who.namespace, role: 'operator', by: 'user' }, sid, request.policy);
    const problem = resumeTokenProblem(session.flavor, resume.token);
    if (problem !== null) throw new MachineRefused('invalid_payload', `session ${sid}'s resume token (${resume.tokenKey}) ${problem}: it was not written by the agent, and is not handed to a terminal`);
    return { sid, flavor: session.flavor, path, tokenKey: resume.tokenKey, token: String(resume.token), handedOver };
  });
}
