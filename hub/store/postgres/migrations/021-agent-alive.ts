/** As hub/store/sqlite/migrations/021-agent-alive.ts: when a hook session's agent last reported it lives. */
export const migration021 = `
ALTER TABLE runs ADD COLUMN agent_alive_at BIGINT;
CREATE INDEX runs_live_by_agent_alive ON runs (agent_alive_at) WHERE status = 'running' AND agent_alive_at IS NOT NULL;
`;
