/**
 * A hook session's agent reports that it lives (issue 34.2): the bridge's keeper stamps its detached
 * run's `agent_alive_at`; a run whose keeper stopped reporting is ended by the sweep as lost. NULL:
 * no keeper ever reported for the run (an older bridge): the idle-window rule stays.
 */
export const migration021 = `
ALTER TABLE runs ADD COLUMN agent_alive_at INTEGER;
CREATE INDEX runs_live_by_agent_alive ON runs (agent_alive_at) WHERE status = 'running' AND agent_alive_at IS NOT NULL;
`;
