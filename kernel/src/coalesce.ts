/**
 * Shares one in-flight load among concurrent callers asking for the same key (the DataLoader
 * idea without its cache): a second caller arriving while the first load runs gets the same
 * promise; once it settles the entry is gone and the next caller loads afresh. Nothing outlives
 * the load, so no stale value is ever served.
 */
export function createCoalescer<T>(): (key: string, load: () => Promise<T>) => Promise<T> {
  const inflight = new Map<string, Promise<T>>();
  return (key, load) => {
    const running = inflight.get(key);
    if (running) return running;
    const started = load().finally(() => inflight.delete(key));
    inflight.set(key, started);
    return started;
  };
}
