// @ts-check
/** Small Preact hooks shared by the components. */
import { useEffect, useState } from 'preact/hooks';

/**
 * Re-renders the caller whenever the session store changes (batched per task by the store).
 * @param {import('./sessions.js').SessionView} store
 * @param {(change: import('./sessions.js').Change) => boolean} [relevant] which changes matter
 */
export function useStore(store, relevant = () => true) {
  const [, setVersion] = useState(0);
  useEffect(() => store.subscribe((change) => relevant(change) && setVersion((v) => v + 1)), [store]);
}

/** The current time, renewed every `everyMs`, so relative times keep ticking. */
export function useNow(everyMs = 5000) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
