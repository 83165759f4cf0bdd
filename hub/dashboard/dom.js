// @ts-check
/**
 * The one way the page makes DOM: elements from tag + attributes, text always as text nodes.
 * Nothing here (or anywhere in the page) assigns innerHTML, so data can never become markup.
 */

/**
 * @typedef {string | number | boolean | null | undefined | Node | ChildList} Child
 * @typedef {Array<Child>} ChildList
 * @typedef {Record<string, string | number | boolean | null | undefined | EventListener>} Attrs
 */

/**
 * @param {string} tag e.g. 'div' or 'span.badge.ok'
 * @param {Attrs} [attrs] `on<event>` keys become listeners; false/null/undefined are left out
 * @param {...Child} children strings become text nodes
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const [name = 'div', ...classes] = tag.split('.');
  const el = document.createElement(name);
  if (classes.length) el.className = classes.join(' ');
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value == null) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = [el.className, String(value)].filter(Boolean).join(' ');
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/**
 * @param {Node} parent
 * @param {Child[]} children
 */
function append(parent, children) {
  for (const child of children) {
    if (child == null || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

/**
 * Replace an element's content.
 * @param {Element} el
 * @param {...Child} children
 */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} missing from index.html`);
  return el;
}
