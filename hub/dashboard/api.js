// @ts-check
/** The HTTP API (spec section 11) with the bearer token; errors carry the hub's message. */

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {string | null} [reason] the refusal's reason code, where the hub gives one (a resume gate's)
   */
  constructor(status, code, message, reason = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.reason = reason;
  }
}

/**
 * @param {string} token
 */
export function createApi(token) {
  /**
   * @param {'GET' | 'POST' | 'DELETE'} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<any>}
   */
  async function call(method, path, body) {
    /** @type {Record<string, string>} */
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res;
    try {
      res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) {
      throw new ApiError(0, 'network', `The hub did not answer (${err instanceof Error ? err.message : String(err)})`);
    }
    const data = await res.json().catch(() => null);
    if (res.ok) return data;
    const code = typeof data?.error === 'string' ? data.error : `http_${res.status}`;
    const reason = typeof data?.reason === 'string' ? data.reason : null;
    const message = typeof data?.message === 'string' && data.message ? data.message : `${code}${reason === null ? '' : ` (${reason})`}`;
    throw new ApiError(res.status, code, message, reason);
  }

  const sid = (/** @type {string} */ s) => `/api/sessions/${encodeURIComponent(s)}`;
  return {
    /** @returns {Promise<{ role: 'agent' | 'runner' | 'dashboard' | 'operator' | 'admin', namespace: string }>} */
    whoami: () => call('GET', '/api/whoami'),
    /** @returns {Promise<{ host: string | null, home: string | null }>} the hub's host, for `~/` paths */
    host: () => call('GET', '/api/host'),
    /** @returns {Promise<{ refusals: { tokenId: string, address: string, status: number, count: number, lastAt: number }[] }>} admins: refused hook deliveries, last 24 h */
    hookRefusals: () => call('GET', '/api/hook-refusals'),
    /** @param {string} s */
    session: (s) => call('GET', sid(s)),
    /** @param {string} s */
    history: (s) => call('GET', `${sid(s)}/history`),
    /** @param {string} s */
    turns: (s) => call('GET', `${sid(s)}/turns`),
    /** @param {string} s @param {'safe' | 'force'} policy */
    resume: (s, policy) => call('POST', `${sid(s)}/resume`, { policy }),
    /** @param {string} s @param {string} reason */
    archive: (s, reason) => call('POST', `${sid(s)}/archive`, { reason }),
    /** @param {string} s @returns {Promise<import('../../shared/protocol/attention.js').ApprovalsResponse>} */
    approvals: (s) => call('GET', `${sid(s)}/approvals`),
    /**
     * @param {string} s @param {string} approvalId @param {'allow' | 'deny'} decision
     * @param {{ answers?: Record<string, string>, message?: string }} [extra] an agent's question answered
     */
    decide: (s, approvalId, decision, extra = {}) => call('POST', `${sid(s)}/approvals/${encodeURIComponent(approvalId)}`, { decision, ...extra }),
    /** @param {string} s @returns {Promise<import('../../shared/protocol/messages.js').MessagesResponse>} */
    messages: (s) => call('GET', `${sid(s)}/messages`),
    /** @param {string} s @param {string} text @returns {Promise<import('../../shared/protocol/messages.js').MessageResponse>} */
    sendMessage: (s, text) => call('POST', `${sid(s)}/messages`, { text }),
    /** @param {string} s @param {string} messageId @returns {Promise<import('../../shared/protocol/messages.js').MessageResponse>} */
    cancelMessage: (s, messageId) => call('DELETE', `${sid(s)}/messages/${encodeURIComponent(messageId)}`),
    /**
     * The HTTP list (filters, text search, pages): shared/protocol/http.ts ListSessionsQuerySchema.
     * @param {Record<string, string | number | undefined>} query
     * @returns {Promise<import('../../shared/protocol/http.js').ListSessionsResponse>}
     */
    sessions: (query) => call('GET', `/api/sessions?${searchParams(query)}`),
    /**
     * @param {{ from?: string, to?: string, groupBy: 'day' | 'flavor' | 'project' | 'model' }} query
     * @returns {Promise<import('../../shared/protocol/http.js').UsageResponse>}
     */
    usage: (query) => call('GET', `/api/usage?${searchParams(query)}`),
    /** @param {string} s */
    repair: (s) => call('POST', `${sid(s)}/repair`, {}),
    /** Machines (docs/machines.md). @returns {Promise<{ machines: import('../../shared/protocol/machines.js').ListedMachine[] }>} */
    machines: () => call('GET', '/api/machines'),
    /** Forget an offline machine (docs/machines.md). @param {string} id */
    forgetMachine: (id) => call('DELETE', `/api/machines/${encodeURIComponent(id)}`),
    /** @param {string} id @param {string} [path] @returns {Promise<{ path: string, dirs: string[] }>} */
    machineDirs: (id, path) => call('GET', `/api/machines/${encodeURIComponent(id)}/dirs?${searchParams({ path })}`),
    /** The agents' own sessions on a machine (spec section 16). @param {string} id @returns {Promise<{ sessions: import('../../shared/protocol/agent-sessions.js').AgentSession[] }>} */
    agentSessions: (id) => call('GET', `/api/machines/${encodeURIComponent(id)}/agent-sessions`),
    /** @param {string} id @param {{ flavor: string, agentSessionId: string }} body @returns {Promise<{ sid: string, created: boolean }>} */
    importAgentSession: (id, body) => call('POST', `/api/machines/${encodeURIComponent(id)}/agent-sessions/import`, body),
    /** One new folder on the machine, for a new session. @param {string} id @param {string} path */
    makeDir: (id, path) => call('POST', `/api/machines/${encodeURIComponent(id)}/dirs`, { path }),
    /** @param {string} id @param {{ flavor: string, path: string, prompt?: string, permissionMode?: string }} body @returns {Promise<{ sid: string, machineId: string }>} */
    startOnMachine: (id, body) => call('POST', `/api/machines/${encodeURIComponent(id)}/sessions`, body),
    /** @param {string} s @param {{ prompt?: string, policy?: 'safe' | 'force' }} body */
    continueSession: (s, body) => call('POST', `${sid(s)}/continue`, body),
    /** Where a Continue would run now, or the hub's refusal (409). @param {string} s @returns {Promise<import('../../shared/protocol/machines.js').ContinuePlaceResponse>} */
    continuePlace: (s) => call('GET', `${sid(s)}/continue`),
    /** @param {string} s @param {'interrupt' | 'stop'} action */
    actOnRun: (s, action) => call('POST', `${sid(s)}/${action}`, {}),
    /** The working tree against HEAD (spec section 15). @param {string} s @returns {Promise<import('../../shared/protocol/work.js').ChangesResponse>} */
    changes: (s) => call('GET', `${sid(s)}/changes`),
    /** One changed file's diff, or every change's. @param {string} s @param {string} [file] @returns {Promise<import('../../shared/protocol/work.js').DiffResponse>} */
    diff: (s, file) => call('GET', `${sid(s)}/changes/diff?${searchParams({ file })}`),
    /** A directory or a file under the session's directory. @param {string} s @param {string} [path] @returns {Promise<import('../../shared/protocol/work.js').FilesResponse>} */
    files: (s, path) => call('GET', `${sid(s)}/files?${searchParams({ path })}`),
    /** @param {string} s @param {{ message: string, files?: string[], push?: boolean }} body @returns {Promise<import('../../shared/protocol/work.js').CommitResponse>} */
    commit: (s, body) => call('POST', `${sid(s)}/commit`, body),
    /** @param {string} s @param {boolean} force */
    removeWorktree: (s, force) => call('DELETE', `${sid(s)}/worktree${force ? '?force=true' : ''}`),
  };
}

/**
 * A query string of the set values only.
 * @param {Record<string, string | number | undefined>} query
 */
function searchParams(query) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  return params.toString();
}

/** @typedef {ReturnType<typeof createApi>} Api */
