/** What a read of one page of a keyset-paginated list (spec 2.2) asks: the rows after `cursor` (an id), `limit` of them at most. */
export interface KeysetPageRequest {
  readonly cursor?: string | undefined;
  readonly limit: number;
}

/** One page of a keyset-paginated list: its items and, when a further row exists, the cursor that reads on. */
export interface KeysetPage<T> {
  items: T[];
  next_cursor?: string;
}

/**
 * One page of a keyset-paginated list (spec 2.2) from the rows a query read with `limit + 1` (in
 * page order, keyed by id): the views of the first `limit` rows, and `next_cursor`, the id of the
 * last of them, when a further row exists.
 */
export async function keysetPage<R extends { readonly id: string }, T>(
  rows: readonly R[],
  limit: number,
  views: (page: R[]) => T[] | Promise<T[]>,
): Promise<KeysetPage<T>> {
  const page = rows.slice(0, limit);
  const items = await views(page);
  return rows.length > limit ? { items, next_cursor: page[page.length - 1]!.id } : { items };
}
