/** A person's message to a session, as the page's reply box sends it (operator token); must be queued (201). */
import { expect } from 'vitest';
import type { Message } from '../../shared/protocol/messages.js';

export async function postMessage(hub: { url: string; tokens: { operator: string } }, sid: string, text: string): Promise<Message> {
  const response = await fetch(`${hub.url}/api/sessions/${sid}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${hub.tokens.operator}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { message: Message }).message;
}
