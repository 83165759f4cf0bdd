// @ts-check
/**
 * One session (`#/s/<sid>`): its name and what it waits for, its approvals, the turns as a timeline
 * (what a person checking on an agent looks for first), usage, then facts, actions, what the agent
 * reported and its history. Live fields come from the store; turns and history are fetched over HTTP
 * and fetched again (debounced) when the session changes.
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { useNow, useStore } from '../hooks.js';
import { messageOf, prettyJson, waitingFor } from '../format.js';
import { sayAttention } from '../attention.js';
import { ActivityBadge } from './activity-badge.js';
import { ApprovalList, useApprovals } from './approval-list.js';
import { SessionUsage } from './session-usage.js';
import { AdminActions } from './admin-actions.js';
import { ClampedText } from './clamped-text.js';
import { MachineActions, useContinuePlace } from './machine-actions.js';
import { LastWords } from './last-words.js';
import { mayDecide } from '../auth.js';
import { CopyId } from './copy-id.js';
import { HistoryList } from './history-list.js';
import { MessagePanel } from './message-panel.js';
import { SessionFacts } from './session-facts.js';
import { TurnTimeline } from './turn-timeline.js';
import { WorkPanel } from './work-panel.js';
import { backToList } from '../route.js';

const REFETCH_DELAY_MS = 250;

/**
 * Turns and history of one session, refetched after it changes (history only when its metadata version moved).
 * @param {import('../api.js').Api} api
 * @param {import('../sessions.js').SessionView} store
 * @param {string} sid
 */
function useSessionRecords(api, store, sid) {
  const [turns, setTurns] = useState(/** @type {{ value: any[] | null, error: string }} */ ({ value: null, error: '' }));
  const [history, setHistory] = useState(/** @type {{ value: any[] | null, error: string }} */ ({ value: null, error: '' }));
  useEffect(() => {
    let closed = false;
    const fetchTurns = () =>
      api.turns(sid).then(
        (body) => closed || setTurns({ value: Array.isArray(body) ? body : [], error: '' }),
        (err) => closed || setTurns({ value: null, error: messageOf(err) }),
      );
    const fetchHistory = () =>
      api.history(sid).then(
        (body) => closed || setHistory({ value: body.history ?? [], error: '' }),
        (err) => closed || setHistory({ value: null, error: messageOf(err) }),
      );
    fetchTurns();
    fetchHistory();
    let lastVersion = store.get(sid)?.metadata.version;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const unsubscribe = store.subscribe((change) => {
      if (change.kind === 'sessions' && !change.sids.includes(sid)) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        const version = store.get(sid)?.metadata.version;
        if (version !== lastVersion) {
          lastVersion = version;
          fetchHistory();
        }
        fetchTurns();
      }, REFETCH_DELAY_MS);
    });
    return () => {
      closed = true;
      clearTimeout(timer);
      unsubscribe();
    };
  }, [api, store, sid]);
  return { turns, history };
}

/**
 * @param {{ sid: string, store: import('../sessions.js').SessionView, api: import('../api.js').Api,
 *   role: string | null, hub: import('../format.js').HubHost | null }} props
 */
export function SessionDetail({ sid, store, api, role, hub }) {
  useStore(store, (change) => change.kind === 'reset' || change.sids.includes(sid));
  const now = useNow();
  const { turns, history } = useSessionRecords(api, store, sid);
  const { approvals } = useApprovals(api, store, sid);
  const s = store.get(sid);
  const live = s?.lifecycle.lastRun?.status === 'running';
  const place = useContinuePlace(api, sid, mayDecide(role) && s !== undefined && !live);
  const back = html`<nav class="back"><a href=${backToList()}>← All sessions</a></nav>`;
  if (!s) {
    return html`<section id="detail" class="detail">${back}
      <section class="summary"><h2>Session</h2><p class="muted">No session ${sid} in this namespace (yet).</p></section>
    </section>`;
  }
  // what a person wants first (a phone shows one column; issue 46): an approval or question it waits
  // on right under the title (approvals decided before the page opened folded), what the agent last
  // said, the one text box (the reply; on an ended session a machine can continue, Continue's next
  // prompt) and Interrupt / Stop; then its turns; the facts and ids a person rarely needs come after
  const waitsOnApproval = approvals?.some((approval) => approval.status === 'pending') ?? false;
  const approvalsPanel = html`<section class="approvals-panel" id="session-approvals">
      <h3>Tool approvals and questions</h3>
      <${ApprovalList} sid=${sid} store=${store} api=${api} role=${role} hub=${hub} now=${now} showEnded=${true} />
    </section>`;
  return html`<section id="detail" class="detail">
    ${back}
    <section class="summary">
      <div class="detail-title"><h2>${s.title}</h2><${ActivityBadge} activity=${s.activity} /></div>
      ${s.attention && html`<p class=${`attention-line attention-${s.attention.kind}`} data-kind=${s.attention.kind}>
        ${sayAttention(s.attention)}${' '}<span class="waited">· ${waitingFor(now - s.attention.since)}</span>
        ${s.attention.message && html`${' '}<${ClampedText} tag="span" class="attention-message" text=${s.attention.message} max=${400} />`}
      </p>`}
    </section>
    ${waitsOnApproval && approvalsPanel}
    <${LastWords} turns=${turns.value} now=${now} />
    ${live
      ? html`<${MessagePanel} sid=${sid} store=${store} api=${api} role=${role} now=${now} />
          <${MachineActions} session=${s} role=${role} api=${api} place=${place} />`
      : html`<${MachineActions} session=${s} role=${role} api=${api} place=${place} />
          <${MessagePanel} sid=${sid} store=${store} api=${api} role=${role} now=${now} continueHere=${place.kind === 'ok'} />`}
    ${!waitsOnApproval && approvalsPanel}
    <${TurnTimeline} turns=${turns.value} error=${turns.error} approvals=${approvals} />
    <${WorkPanel} session=${s} role=${role} api=${api} />
    <${SessionUsage} session=${s} turns=${turns.value} />
    <section class="about" id="session-facts">
      <h3>About this session</h3>
      <${SessionFacts} session=${s} hub=${hub} now=${now} />
      <p class="ids">
        <${CopyId} label="session" value=${s.sid} name="sid" />
        <${CopyId} label="agent's id" value=${s.tag} name="tag" />
      </p>
    </section>
    <${AdminActions} session=${s} role=${role} api=${api} continueOffered=${place.kind === 'ok'} onArchived=${(/** @type {any} */ snapshot) => store.setResume(snapshot)} />
    <section class="metadata">
      <h3>What the agent reported <span class="version" data-version=${s.metadata.version} title="each change the agent or the hub writes is a new version">v${s.metadata.version}</span></h3>
      <details><summary>Show everything it reported (raw)</summary><pre class="json">${prettyJson(s.metadata.value)}</pre></details>
    </section>
    <${HistoryList} history=${history.value} error=${history.error} />
  </section>`;
}
