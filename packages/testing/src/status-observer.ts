import type { TestKernel } from '@gw/kernel/testing';

type Db = TestKernel['kernel']['cradle']['db'];

/** What an observer saw of one status change: the row's status inside the change's transaction and outside it (committed). */
export interface SeenChange<C> {
  readonly change: C;
  readonly inside: string | undefined;
  readonly outside: string | undefined;
}

/**
 * What a test plugin's status observer records: each change to a row of `table` (the row with id
 * `idOf(change)`) with the row's status inside the change's transaction and outside it. On a
 * change to `failOn` it throws instead (and records nothing), which must roll the change back.
 */
export class StatusChangeRecorder<C extends { readonly status: string }> {
  readonly seen: SeenChange<C>[] = [];
  failOn: string | null = null;

  constructor(
    private readonly table: string,
    private readonly idOf: (change: C) => string,
  ) {}

  /** The observer's `onStatus`: `trx` is the change's transaction, `db` reads outside it. */
  async record(trx: Db, change: C, db: Db): Promise<void> {
    if (this.failOn === change.status) throw new Error(`observer refuses ${change.status}`);
    const inside = (await trx(this.table).where('id', this.idOf(change)).first())?.status;
    const outside = (await db(this.table).where('id', this.idOf(change)).first())?.status;
    this.seen.push({ change, inside, outside });
  }
}
