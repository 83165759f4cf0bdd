/**
 * What a `machine-spawn` must pass before anything starts (spec section 14): a known payload (its
 * model a model name), an agent this machine has, a permission mode this runner allows, a path
 * under its roots, a resume token of the flavor's own format (shared/flavors.ts).
 */
import { getFlavor, resumeTokenProblem, type RunnerDeclaration } from '../shared/flavors.js';
import { MachineSpawnPayloadSchema, type MachineAgent, type MachineFailedAck, type MachineSpawnPayload } from '../shared/protocol/machines.js';
import { resolveUnderRoots } from './roots.js';
import type { SessionWorktree } from '../shared/protocol/work.js';

export interface SpawnPlan {
  request: MachineSpawnPayload;
  agent: MachineAgent;
  runner: RunnerDeclaration;
  /** The resolved directory (a new worktree's, once made). */
  cwd: string;
  /** The worktree made for this agent (spec section 15), carried on its session's metadata. */
  worktree?: SessionWorktree;
  tokenKey: string;
}

export interface MachinePolicy {
  roots: readonly string[];
  agents: readonly MachineAgent[];
  allowBypass: boolean;
}

function refuse(code: MachineFailedAck['error']['code'], message: string): { ok: false; ack: MachineFailedAck } {
  return { ok: false, ack: { ok: false, error: { code, message } } };
}

export function checkSpawn(payload: unknown, policy: MachinePolicy): { ok: true; plan: SpawnPlan } | { ok: false; ack: MachineFailedAck } {
  const parsed = MachineSpawnPayloadSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return refuse('invalid_payload', `${issue?.path.join('.') || 'payload'}: ${issue?.message ?? 'invalid'}`);
  }
  const request = parsed.data;
  const flavor = getFlavor(request.flavor);
  const agent = policy.agents.find((a) => a.flavor === request.flavor);
  if (!flavor?.runner || !agent) {
    const has = policy.agents.map((a) => a.flavor).join(', ') || 'none';
    return refuse('agent_unavailable', `this machine did not find the ${request.flavor} CLI on its PATH (it has: ${has}): install it and restart the runner`);
  }
  if (request.permissionMode === 'bypassPermissions' && !policy.allowBypass) {
    return refuse('forbidden', 'this machine does not allow bypassPermissions: restart its runner with --allow-bypass to allow it');
  }
  const resolved = resolveUnderRoots(request.path, policy.roots);
  if (!resolved.ok) return refuse(resolved.code, resolved.message);
  if (request.resume && request.resume.tokenKey !== flavor.resumeTokenKey) {
    return refuse('invalid_payload', `resume.tokenKey: ${request.resume.tokenKey} is not ${flavor.id}'s resume-token key (${flavor.resumeTokenKey})`);
  }
  // the token reaches the agent's command line: only what the agent itself makes (the hub checked it too)
  const tokenProblem = request.resume ? resumeTokenProblem(flavor.id, request.resume.token) : null;
  if (tokenProblem !== null) return refuse('invalid_payload', `resume.token ${tokenProblem}: nothing was started`);
  return { ok: true, plan: { request, agent, runner: flavor.runner, cwd: resolved.path, tokenKey: flavor.resumeTokenKey } };
}
