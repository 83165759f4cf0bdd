// @ts-check
/**
 * The page: sign-in, the live link, and switching between the session list and one session's
 * detail (`#/s/<sid>`). New views are components beside this one, routed here.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { html } from '../html.js';
import { ApiError, createApi } from '../api.js';
import { clearToken, exchangeCode, loadToken, saveToken, takeSignInFromUrl } from '../auth.js';
import { connectLive } from '../live.js';
import { SessionView } from '../sessions.js';
import { needingYou, pageTitle } from '../attention.js';
import { useStore } from '../hooks.js';
import { watchAttention } from '../notify.js';
import { UsageView } from './usage-view.js';
import { MachinesView } from './machines-view.js';
import { Refused, explain } from './refused.js';
import { SessionDetail } from './session-detail.js';
import { SessionList } from './session-list.js';
import { SignIn } from './sign-in.js';
import { TopBar } from './top-bar.js';
import { HookRefusalsNotice } from './hook-refusals-notice.js';
import { HubLink } from '../hub-link.js';

const RESUME_REFETCH_MS = 300;
/** Not a session id (a sid never holds a space). */
const USAGE_ROUTE = ' usage';
const MACHINES_ROUTE = ' machines';

/** The view in the address: `#/s/<sid>` one session, `#/usage…` the usage view, else the list (null; route.js). */
function routeOf() {
  if (location.hash === '#/usage' || location.hash.startsWith('#/usage?')) return USAGE_ROUTE;
  if (location.hash === '#/machines') return MACHINES_ROUTE;
  const match = /^#\/s\/(.+)$/.exec(location.hash);
  return match ? decodeURIComponent(match[1] ?? '') : null;
}

/** @param {string} code 'unauthorized' | 'forbidden' | another refusal */
const isRefusal = (code) => code === 'unauthorized' || code === 'forbidden';

/** Read once per page load, before the first render: the address must not keep it. */
const FROM_URL = takeSignInFromUrl();
const RUNNER_TOKEN = 'This is a runner token: agents report with it. Sign in with a dashboard, operator or admin token.';
const TOKEN_IN_URL_REFUSED = 'Tokens are not taken from the address (it would stay in the browser history): paste it here instead.';

export function App() {
  const [token, setToken] = useState(() => loadToken());
  const [signInError, setSignInError] = useState(FROM_URL.tokenInUrl ? TOKEN_IN_URL_REFUSED : '');
  const [exchanging, setExchanging] = useState(Boolean(FROM_URL.code));
  useEffect(() => {
    if (!FROM_URL.code) return;
    const code = FROM_URL.code;
    FROM_URL.code = null;
    exchangeCode(code).then(
      (next) => {
        saveToken(next, false);
        setToken(next);
        setExchanging(false);
      },
      (err) => {
        setSignInError(err instanceof Error ? err.message : String(err));
        setExchanging(false);
      },
    );
  }, []);
  const [route, setRoute] = useState(routeOf);
  useEffect(() => {
    const onHash = () => {
      setRoute(routeOf());
      window.scrollTo(0, 0);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const [checking, setChecking] = useState(false);
  /**
   * The token is asked about first: one the hub refuses, or a runner's, is said in the form.
   * @param {string} next @param {boolean} remember
   */
  async function signIn(next, remember) {
    setChecking(true);
    const problem = await createApi(next)
      .whoami()
      .then(
        (me) => (me.role === 'runner' ? RUNNER_TOKEN : ''),
        (err) => (err instanceof ApiError && (isRefusal(err.code) || err.status === 401) ? explain(err.status === 401 ? 'unauthorized' : err.code) : `The token could not be checked: ${err instanceof Error ? err.message : String(err)}`),
      );
    setChecking(false);
    if (problem) return setSignInError(problem);
    setSignInError('');
    saveToken(next, remember);
    setToken(next);
  }
  function signOut() {
    clearToken();
    if (location.hash) history.replaceState(null, '', location.pathname + location.search);
    setRoute(null);
    setToken(null);
  }

  if (!token) {
    return html`<${TopBar} link=${{ state: 'signed-out' }} me=${null} onSignOut=${null} />
      <main>${exchanging ? html`<p id="signin-exchanging" class="muted">Signing in with the start-up link…</p>` : html`<${SignIn} key=${signInError} error=${signInError} checking=${checking} onSignIn=${signIn} />`}</main>`;
  }
  return html`<${SignedIn} key=${token} token=${token} route=${route} onSignOut=${signOut} />`;
}

/**
 * Everything that lives while signed in: the API, the live store, who we are.
 * @param {{ token: string, route: string | null, onSignOut: () => void }} props
 */
function SignedIn({ token, route, onSignOut }) {
  const api = useMemo(() => createApi(token), [token]);
  const store = useMemo(() => new SessionView(), [token]);
  const [link, setLink] = useState(/** @type {{ state: string, detail?: string }} */ ({ state: 'connecting' }));
  const [refused, setRefused] = useState(/** @type {string | null} */ (null));
  const [me, setMe] = useState(/** @type {Awaited<ReturnType<typeof api.whoami>> | null} */ (null));
  const [hub, setHub] = useState(/** @type {import('../format.js').HubHost | null} */ (null));

  useStore(store);
  const needing = needingYou(store.list()).map((s) => s.sid);
  const waiting = needing.length;
  useEffect(() => {
    document.title = pageTitle(waiting);
  }, [waiting]);
  useEffect(() => () => void (document.title = pageTitle(0)), []);
  useEffect(() => {
    const notices = watchAttention(store);
    const live = connectLive({
      token,
      view: store,
      onState: (state, detail) => {
        // what the first subscribe brought is known; attention after it is news
        if (state === 'live') notices.prime();
        if (state === 'refused') {
          setRefused(detail ?? 'unauthorized');
          live.close();
        }
        setLink({ state, detail });
      },
    });
    api.host().then(setHub, () => {});
    api.whoami().then(setMe, (err) => {
      if (err instanceof ApiError && (isRefusal(err.code) || err.status === 401)) {
        setRefused('unauthorized');
        setLink({ state: 'refused', detail: 'unauthorized' });
        live.close();
      }
    });
    const stopResume = watchResume(api, store);
    return () => {
      live.close();
      notices.stop();
      stopResume();
    };
  }, [api, store, token]);

  let view;
  if (refused) view = html`<${Refused} code=${refused} onSignOut=${onSignOut} />`;
  else if (route === USAGE_ROUTE) view = html`<${UsageView} api=${api} />`;
  else if (route === MACHINES_ROUTE) view = html`<${MachinesView} api=${api} store=${store} role=${me?.role ?? null} />`;
  else if (route) view = html`<${SessionDetail} key=${route} sid=${route} store=${store} api=${api} role=${me?.role ?? null} hub=${hub} />`;
  else view = html`<${SessionList} store=${store} api=${api} role=${me?.role ?? null} hub=${hub} />`;
  // while the link is down, nothing here can reach the hub: every control below is disabled (one
  // fieldset), and the page says so first
  const online = link.state === 'live';
  return html`<${TopBar} link=${link} me=${me} onSignOut=${onSignOut} token=${token} needing=${needing} />
    <main>
      ${!online && !refused && html`<p id="link-down" class="link-down" role="status">${linkDownWords(link.state)}</p>`}
      <${HubLink.Provider} value=${{ online }}>
        <fieldset class="link-gate" disabled=${!online && !refused}>
          <${HookRefusalsNotice} api=${api} role=${me?.role ?? null} />${view}
        </fieldset>
      <//>
    </main>`;
}

/** What the page says while it cannot reach the hub. @param {string} state */
function linkDownWords(state) {
  if (state === 'connecting') return 'Connecting to the hub…';
  return 'The hub is out of reach: reconnecting. Until it is back, nothing you do here can reach an agent, so sending, deciding and the run buttons wait.';
}

/**
 * `update` bodies do not carry the resume status; after a metadata or lifecycle change, fetch the
 * snapshot and take its resume status (debounced per session).
 * @param {import('../api.js').Api} api
 * @param {SessionView} store
 */
function watchResume(api, store) {
  /** @type {Map<string, ReturnType<typeof setTimeout>>} */
  const due = new Map();
  const stop = store.onResumeStale((sid) => {
    if (due.has(sid)) return;
    due.set(
      sid,
      setTimeout(() => {
        due.delete(sid);
        api.session(sid).then((snapshot) => store.setResume(snapshot), () => {});
      }, RESUME_REFETCH_MS),
    );
  });
  return () => {
    stop();
    for (const timer of due.values()) clearTimeout(timer);
  };
}
