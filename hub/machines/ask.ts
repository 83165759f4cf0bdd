/**
 * One request to a machine runner, recorded: the hub asks the socket that registered the machine
 * (whichever hub process holds it), maps the runner's refusal to its section 14 error, and stores
 * and logs who asked what and how it went (`machine_actions`), refused or not.
 */
import { randomUUID } from 'node:crypto';
import type { MachineCalls, HubDeps } from '../services/deps.js';
import { recordMachineAction, type MachineAction } from '../store/machines.js';
import { MachineGone, MachineRefused } from './refused.js';
import type { Requester } from './requester.js';

export interface ActionRecord {
  machineId: string | null;
  sid: string | null;
  action: MachineAction['action'];
  path: string | null;
}

/** Runs `fn` and records its outcome (`ok` or the refusal's code) with who asked. */
export async function recorded<T>(deps: HubDeps, who: Requester, record: ActionRecord | (() => ActionRecord), fn: () => Promise<T>): Promise<T> {
  let outcome = 'ok';
  try {
    return await fn();
  } catch (error) {
    outcome = error instanceof MachineRefused ? error.code : error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : (error as { error?: string }).error ?? 'internal';
    throw error;
  } finally {
    const what = typeof record === 'function' ? record() : record;
    deps.log.info({ ...what, by: who.name, tokenId: who.tokenId, tenant: who.namespace, outcome }, `machine ${what.action}: ${outcome}`);
    await recordMachineAction(deps.store, { actionId: randomUUID(), namespace: who.namespace, byToken: who.tokenId, byLabel: who.label, at: deps.clock.now(), outcome, ...what }).catch(
      (error: unknown) => deps.log.error({ err: error }, 'could not record a machine action'),
    );
  }
}

/**
 * The runner's answer, or a MachineRefused: `machine_offline` when no socket holds the machine or
 * it did not answer in time (`onTimeout` may answer otherwise), the runner's own code when it refused.
 */
export async function askMachine<E extends keyof MachineCalls>(
  deps: HubDeps,
  machineId: string,
  event: E,
  payload: MachineCalls[E][0],
  timeoutMs: number,
  onTimeout?: () => Promise<MachineRefused>,
): Promise<Extract<MachineCalls[E][1], { ok: true }>> {
  const offline = () => new MachineRefused('machine_offline', `machine ${machineId} is not connected: start its runner (session-hub runner) on that computer and retry`);
  if (!deps.machines) throw offline();
  let answer: MachineCalls[E][1] | undefined;
  try {
    answer = await deps.machines.ask(machineId, event, payload, timeoutMs);
  } catch (error) {
    if (error instanceof MachineGone) {
      throw new MachineRefused('machine_offline', `machine ${machineId} disconnected before it answered: what it was asked may or may not have happened; once its runner is back, check the machine's sessions before retrying`);
    }
    if (onTimeout) throw await onTimeout();
    throw new MachineRefused('machine_offline', `machine ${machineId} did not answer within ${timeoutMs / 1000} s: check that its runner is running and connected, then retry`);
  }
  if (answer === undefined) throw offline();
  if (!answer.ok) throw new MachineRefused(answer.error.code, answer.error.message);
  return answer as Extract<MachineCalls[E][1], { ok: true }>;
}
