/** Posts Claude Code hook payloads to a test hub's POST /api/hooks as the bridge does, one event a call. */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Clock } from '../../hub/clock.js';
import type { HookBatchResponse, HookEvent } from '../../shared/protocol/hooks.js';
import type { UsageReport } from '../../shared/protocol/usage.js';

interface HubLike {
  url: string;
  tokens: { runner: string };
}

/** A poster for one hub and clock: each event fired `behindMs` before the hub's clock reads, seqs in order. */
export function hookPoster(target: () => { hub: HubLike; clock: Clock }) {
  let seq = 0;
  return async function hook(payload: Record<string, unknown>, options: { behindMs?: number; usage?: UsageReport[] } = {}): Promise<HookBatchResponse> {
    const { hub, clock } = target();
    const event: HookEvent = {
      id: randomUUID(),
      flavor: 'claude',
      firedAt: clock.now() - (options.behindMs ?? 0),
      seq: seq++,
      payload: payload as HookEvent['payload'],
      ...(options.usage ? { usage: options.usage } : {}),
    };
    const response = await fetch(`${hub.url}/api/hooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${hub.tokens.runner}` },
      body: JSON.stringify({ events: [event] }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as HookBatchResponse;
    expect(body.results.map((r) => r.outcome)).toEqual(['applied']);
    return body;
  };
}
