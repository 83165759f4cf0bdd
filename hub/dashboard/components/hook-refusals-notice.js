import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';

/**
 * For admins: a small notice when the hub refused hook deliveries in the last day (a wrong,
 * revoked or missing token where an agent runs fails in silence otherwise). Read once per sign-in.
 * @param {{ api: import('../api.js').Api, role: string | null }} props
 */
export function HookRefusalsNotice({ api, role }) {
  const [count, setCount] = useState(0);
  useEffect(() => {
    if (role !== 'admin') return;
    api.hookRefusals().then(
      (/** @type {{ refusals: { count: number }[] }} */ answer) => setCount(answer.refusals.reduce((sum, r) => sum + r.count, 0)),
      () => {},
    );
  }, [api, role]);
  if (count === 0) return null;
  return html`<p class="hook-refusals" role="status">
    The hub refused ${count} hook ${count === 1 ? 'delivery' : 'deliveries'} in the last 24 h: an agent's hooks have a wrong or revoked token.
    <code>session-hub doctor</code> names the tokens and addresses.
  </p>`;
}
