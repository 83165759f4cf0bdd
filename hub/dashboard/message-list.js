// @ts-check
/**
 * The session's messages as the page keeps them: one per id, oldest first. A state only moves on
 * from `queued`: a "queued" that arrives after the message's end (the POST's own answer, behind the
 * live "delivered" of a runner that took it at once) does not bring it back. Pure, no DOM.
 */

/** @typedef {import('../../shared/protocol/messages.js').Message} Message */

/**
 * @param {readonly Message[] | null} list
 * @param {Message} message
 * @returns {Message[]}
 */
export function putMessage(list, message) {
  const held = (list ?? []).find((m) => m.id === message.id);
  if (held && held.state !== 'queued' && message.state === 'queued') return [...(list ?? [])];
  return [...(list ?? []).filter((m) => m.id !== message.id), message].sort((a, b) => a.createdAt - b.createdAt);
}
