/** A minimal typed listener set: the SDK's own events, separate from the socket's. */
export class Listeners<Events extends { [K in keyof Events]: (...args: never[]) => void }> {
  private readonly map = new Map<keyof Events, Set<Events[keyof Events]>>();

  on<E extends keyof Events>(event: E, listener: Events[E]): () => void {
    let set = this.map.get(event);
    if (!set) this.map.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  emit<E extends keyof Events>(event: E, ...args: Parameters<Events[E]>): void {
    for (const listener of this.map.get(event) ?? []) (listener as (...a: Parameters<Events[E]>) => void)(...args);
  }
}
