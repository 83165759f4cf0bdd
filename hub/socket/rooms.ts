/** Socket.IO room names, in one place. */
export const rooms = {
  /** Runner sockets working on a session (`/runner`). */
  session: (sid: string) => `session:${sid}`,
  /** Runner sockets that proved they are the session's own (its taker key): the only ones offered its messages. */
  takers: (sid: string) => `takers:${sid}`,
  /** Dashboards subscribed to every session of a namespace (`/dashboard`). */
  namespace: (namespace: string) => `namespace:${namespace}`,
  /** Dashboards subscribed to one session (`/dashboard`). */
  sessionWatchers: (sid: string) => `watch:${sid}`,
  /** The one runner socket that registered a machine (`/runner`); machine ids are unique across namespaces. */
  machine: (machineId: string) => `machine:${machineId}`,
};
