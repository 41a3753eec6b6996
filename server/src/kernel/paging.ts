import { badRequest } from './errors.js';

/** A keyset position: the `(created_at, id)` of the last item the client has. */
export interface Keyset {
  createdAt: number;
  id: number;
}

/** Cursors are `<createdAtMs>.<id>`; the route schema checks the shape, this the range. */
export const CURSOR_PATTERN = '^[0-9]{1,15}\\.[0-9]{1,15}$';

/** Before the newest possible item: the first page of a newest-first list. */
export const NEWEST: Keyset = { createdAt: Number.MAX_SAFE_INTEGER, id: Number.MAX_SAFE_INTEGER };
/** Before the oldest possible item: the first page of an oldest-first list. */
export const OLDEST: Keyset = { createdAt: -1, id: 0 };

export function formatCursor(createdAt: number, id: number): string {
  return `${createdAt}.${id}`;
}

/** Parses `?cursor=`; undefined gives `first`, anything malformed a 400. */
export function parseCursor(cursor: string | undefined, first: Keyset): Keyset {
  if (cursor === undefined) return first;
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(cursor);
  if (!match) throw badRequest('cursor must be "<createdAtMs>.<id>" as given by a previous page.');
  const createdAt = Number(match[1]);
  const id = Number(match[2]);
  if (!Number.isSafeInteger(createdAt) || !Number.isSafeInteger(id)) throw badRequest('cursor is out of range.');
  return { createdAt, id };
}

/** A post or comment id given as a number or a numeric string. */
export function parseId(value: string | number, what: string): number {
  const id = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(id) || id < 1) throw badRequest(`${what} must be a positive whole number.`);
  return id;
}
