/** Small fetch wrappers for the resume/history/repair endpoints, over real HTTP. */
export interface HttpAnswer<T = any> {
  status: number;
  body: T;
}

export async function api<T = any>(url: string, token: string | undefined, method: 'GET' | 'POST', path: string, body?: unknown): Promise<HttpAnswer<T>> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as T };
}

export function postResume(url: string, token: string, sid: string, policy?: 'safe' | 'force'): Promise<HttpAnswer> {
  return api(url, token, 'POST', `/api/sessions/${sid}/resume`, policy === undefined ? {} : { policy });
}

export function getSnapshot(url: string, token: string, sid: string): Promise<HttpAnswer> {
  return api(url, token, 'GET', `/api/sessions/${sid}`);
}

/** The snapshot's `resume` field expressed as what POST .../resume (safe) answers, to compare both. */
export function expectedFromStatus(resume: { available: boolean; safe: boolean; reason: string | null }): { status: number; error?: string; reason?: string } {
  if (!resume.available) return { status: 409, error: 'resume_unavailable', reason: resume.reason! };
  if (!resume.safe) return { status: 409, error: 'resume_unsafe', reason: resume.reason! };
  return { status: 200 };
}

/** Polls an async condition (e.g. over HTTP) until it holds; rejects after `timeoutMs`. */
export async function until(predicate: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
