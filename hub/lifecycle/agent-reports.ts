/**
 * A hook session's agent keeper reports (POST /api/hooks/agent, issue 34.2): the agent process lives,
 * or it has just exited without a session end. `alive` stamps the live detached run, which from then
 * on ends when the reports stop (the sweep: `agent_silent` after SESSION_HUB_AGENT_ALIVE_MS) instead
 * of after the idle window; `gone` ends it at once as lost (`agent_gone`): its open turn aborted, its
 * attention cleared, its approvals superseded, as any run the hub ends. Queued messages stay queued.
 * A later hook event of the same agent session reopens it (hook-events.ts, `lostByHub`). A report
 * names the agent's pid: only the run that process opened (its pid stored from the hook events) is its.
 */
import type { HookAgentReport, HookAgentReportResponse } from '../../shared/protocol/hooks.js';
import { runWrite } from '../services/changes.js';
import type { Actor, HubDeps } from '../services/deps.js';
import { getRun, noteAgentAlive } from '../store/runs.js';
import { getSessionByTag } from '../store/sessions.js';
import { endAbandonedRun } from './transitions.js';

export async function reportAgent(deps: HubDeps, actor: Actor, report: HookAgentReport): Promise<HookAgentReportResponse> {
  // three reports fit in the window: one lost request does not end a live agent's session
  const everyMs = Math.max(1, Math.floor(deps.config.agentAliveMs / 3));
  const live = await runWrite(deps, async (tx, changes, now) => {
    const session = await getSessionByTag(tx, { namespace: actor.namespace, tag: report.tag });
    if (!session || session.flavor !== report.flavor || session.lastRun?.status !== 'running') return false;
    const run = await getRun(tx, session.lastRun.runId);
    // a runner's socket run has its own presence; only hook (detached) runs are kept by a keeper
    if (!run?.detached) return false;
    // the agent resumed in another process (claude --resume after claude -p exited) runs the same
    // session: the first process's keeper, reporting late, must not end the second's run
    if (report.pid !== undefined && run.pid !== null && run.pid !== report.pid) return false;
    if (report.agent === 'alive') {
      await noteAgentAlive(tx, { runId: run.runId, at: now });
      return true;
    }
    await endAbandonedRun(tx, changes, session, { reason: 'agent_gone', now });
    return false;
  }, { namespace: actor.namespace });
  return { live, everyMs };
}
