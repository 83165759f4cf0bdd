import { TEST_TOKENS } from './tokens.js';

/** One JSON call to a hub's HTTP API, as the operator unless another token is given: its status and body. */
export async function httpCall(url: string, method: string, path: string, options: { token?: string; body?: unknown } = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${options.token ?? TEST_TOKENS.operator}`, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
