/** The outcome of one item of a batch. */
export type Settled<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

export interface BatcherOptions<I, R> {
  /** Most items handed to one `run`. */
  readonly maxBatch: number;
  /** Most `run`s in flight at once; further items queue and form the next batch. */
  readonly concurrency: number;
  /**
   * While a batch runs, a further one starts only once this many items wait (default 1): under
   * load the slots then carry larger batches instead of splitting the queue into small ones, and
   * a lone item still starts at once when nothing runs.
   */
  readonly minBatchWhileBusy?: number;
  /** Processes a batch; returns one outcome per item, in order. A throw fails every item with it. */
  readonly run: (items: I[]) => Promise<Settled<R>[]>;
}

/**
 * Groups concurrent requests into batches without a timer: items submitted in one turn of the
 * event loop leave together at its end (`setImmediate`), in one batch if a slot is free; items
 * arriving while all slots are busy queue and leave together when a slot frees. Under no load this
 * adds one turn of the loop; under load one database round trip serves many requests: the requests
 * whose bytes arrived in one poll of the sockets, or that one batch's outcomes released, travel
 * together instead of the first of them alone. Only in-flight requests live here: each caller
 * awaits its own outcome, so nothing is lost that was ever acknowledged.
 */
export function createBatcher<I, R>(options: BatcherOptions<I, R>): { submit(item: I): Promise<R> } {
  const queue: { item: I; resolve: (value: R) => void; reject: (error: unknown) => void }[] = [];
  let active = 0;
  let scheduled = false;
  const minWhileBusy = Math.max(1, Math.min(options.minBatchWhileBusy ?? 1, options.maxBatch));
  const pump = (): void => {
    while (active < options.concurrency && queue.length >= (active === 0 ? 1 : minWhileBusy)) {
      const batch = queue.splice(0, options.maxBatch);
      active += 1;
      options
        .run(batch.map((entry) => entry.item))
        .then(
          (outcomes) =>
            batch.forEach((entry, i) => {
              const outcome = outcomes[i];
              if (!outcome) entry.reject(new Error('batch returned no outcome for an item'));
              else if (outcome.ok) entry.resolve(outcome.value);
              else entry.reject(outcome.error);
            }),
          (error: unknown) => batch.forEach((entry) => entry.reject(error)),
        )
        .finally(() => {
          active -= 1;
          pump();
        });
    }
  };
  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (scheduled) return;
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          pump();
        });
      });
    },
  };
}
