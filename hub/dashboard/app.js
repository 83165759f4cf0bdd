// @ts-check
/** The dashboard page's entry: renders the App component (components/app.js) into the page. */
import { html, render } from './html.js';
import { App } from './components/app.js';

const root = document.getElementById('app');
if (!root) throw new Error('#app missing from index.html');
render(html`<${App} />`, root);
