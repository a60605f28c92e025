import Type, { type TSchema } from 'typebox';
import { ULID_PATTERN } from '../ids.js';

/** The paging fields of a cursor-paginated list's query (spec 2.2), spread into the list's query object. */
export const PAGE_QUERY = {
  cursor: Type.Optional(Type.String({ pattern: ULID_PATTERN, description: 'next_cursor of the previous page.' })),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
};

/** The pagination envelope (spec 2.2) of a list of `item`: a page of items and the cursor of the next page. */
export function pageSchema<T extends TSchema>(item: T) {
  return Type.Object({ items: Type.Array(item), next_cursor: Type.Optional(Type.String({ pattern: ULID_PATTERN })) }, { additionalProperties: false });
}
