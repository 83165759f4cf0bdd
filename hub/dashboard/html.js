// @ts-check
/**
 * The page's one way to make DOM: Preact components written with htm tagged templates (no build
 * step). Values are always rendered as text, never parsed as markup, so data cannot become HTML.
 * Both libraries are served by the hub from node_modules under /vendor/ (see index.html's import map).
 */
import { h, render, Fragment } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
export { render, Fragment };
