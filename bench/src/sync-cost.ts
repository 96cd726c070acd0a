import type { Queryable } from "@community/db/lists";
import { BENCH_TOKEN, LARGE_TEAM } from "./dataset";

/** What keeping a copy current costs after `changes` writes: a sync from a token against a full walk. */
export interface SyncCostReport {
  changes: number;
  sync: { requests: number; bytes: number; seconds: number; entries: number };
  walk: { requests: number; bytes: number; seconds: number; items: number };
}

const EVENTS = "/v1/me/community/team/events";

async function get(url: string): Promise<{ body: unknown; bytes: number }> {
  // Uncompressed bytes: the transfer a client without Accept-Encoding pays, the same for both.
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, "accept-encoding": "identity" },
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url} gave ${response.status}`);
  return { body: JSON.parse(text), bytes: Buffer.byteLength(text) };
}

/**
 * On the api at `baseUrl`: a token, then `changes` updates of distinct events of the large team
 * (through `db`, as another system would write), then the changes since the token page by page,
 * and a full cursor walk of the list, counting requests, bytes and time of each.
 */
export async function measureSyncCost(baseUrl: string, db: Queryable, changes: number): Promise<SyncCostReport> {
  const start = (await get(`${baseUrl}${EVENTS}/changes`)).body as { meta: { sync: { next: string } } };
  await db.query(
    `UPDATE events SET name = name || ' (changed)'
      WHERE id IN (SELECT id FROM events WHERE team_id = $1 ORDER BY id LIMIT $2)`,
    [LARGE_TEAM, changes],
  );
  const sync = { requests: 0, bytes: 0, seconds: 0, entries: 0 };
  let since = start.meta.sync.next;
  let began = performance.now();
  for (;;) {
    const { body, bytes } = await get(`${baseUrl}${EVENTS}/changes?since=${encodeURIComponent(since)}`);
    const page = body as { changes: unknown[]; meta: { sync: { next: string; has_more: boolean } } };
    sync.requests++;
    sync.bytes += bytes;
    sync.entries += page.changes.length;
    since = page.meta.sync.next;
    if (!page.meta.sync.has_more) break;
  }
  sync.seconds = (performance.now() - began) / 1000;
  const walk = { requests: 0, bytes: 0, seconds: 0, items: 0 };
  let cursor = "";
  began = performance.now();
  for (;;) {
    const { body, bytes } = await get(`${baseUrl}${EVENTS}?cursor=${encodeURIComponent(cursor)}&per_page=100`);
    const page = body as { guides: unknown[]; meta: { pagination: { next_cursor: string | null } } };
    walk.requests++;
    walk.bytes += bytes;
    walk.items += page.guides.length;
    if (page.meta.pagination.next_cursor === null) break;
    cursor = page.meta.pagination.next_cursor;
  }
  walk.seconds = (performance.now() - began) / 1000;
  return { changes, sync, walk };
}
