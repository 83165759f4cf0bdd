// @ts-check
/**
 * Whether the page reaches the hub now (its live link is up), for every component that would send
 * something: while it does not, the page says so and offers nothing that would fail (issue 46.6).
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** @type {import('preact').Context<{ online: boolean }>} */
export const HubLink = createContext({ online: true });

/** True while the page's live link to the hub is up. */
export function useHubOnline() {
  return useContext(HubLink).online;
}
