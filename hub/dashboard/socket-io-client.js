// @ts-check
/**
 * `socket.io-client` for the browser: the page's import map points the SDK's bare import here, and
 * this hands over the client the hub serves at /socket.io/socket.io.min.js (a classic script that
 * index.html loads before any module runs).
 */
export const io = /** @type {any} */ (globalThis).io;
