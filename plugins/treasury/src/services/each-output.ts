import type { OutputQuery, ReceivedOutput, ReceivedOutputs } from '@gw/plugin-watchers/contract';

/** Outputs asked of the watchers per read while walking a whole listing. */
const PAGE = 1000;

/** Every output the watchers' listing answers for `query`, read page after page (a walk over the whole record). */
export async function* eachOutput(outputs: ReceivedOutputs, query: Omit<OutputQuery, 'limit' | 'after'>): AsyncGenerator<ReceivedOutput> {
  let after: string | undefined;
  do {
    const page = await outputs.list({ ...query, limit: PAGE, ...(after ? { after } : {}) });
    yield* page.outputs;
    after = page.next ?? undefined;
  } while (after);
}
