/**
 * The page's list of a session's messages (hub/dashboard/message-list.js): a message's state only
 * moves on from queued. Found as a race by a browser test: the POST's "queued" answer arrived after
 * the live "delivered" of a runner that took the message at once, and the page showed it queued.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../shared/protocol/messages.js';

// a page module, plain JS: loaded by its URL, typed here
const { putMessage } = (await import(pathToFileURL(join(import.meta.dirname, '..', '..', 'hub', 'dashboard', 'message-list.js')).href)) as {
  putMessage(list: readonly Message[] | null, message: Message): Message[];
};

const message = (state: Message['state'], extra: Partial<Message> = {}) => ({ id: 'm1', sid: 's1', text: 'hi', state, createdAt: 1, ...extra }) as unknown as Message;

describe('putMessage', () => {
  it('keeps a delivered message delivered when its earlier "queued" arrives late', () => {
    const delivered = putMessage(null, message('delivered'));
    expect(putMessage(delivered, message('queued')).map((m) => m.state)).toEqual(['delivered']);
  });

  it('moves queued on to its end, and keeps one per id, oldest first', () => {
    const list = putMessage(putMessage(null, message('queued', { id: 'b', createdAt: 5 })), message('queued', { id: 'a', createdAt: 2 }));
    expect(list.map((m) => m.id)).toEqual(['a', 'b']);
    expect(putMessage(list, message('cancelled', { id: 'b', createdAt: 5 })).map((m) => [m.id, m.state])).toEqual([['a', 'queued'], ['b', 'cancelled']]);
  });
});
