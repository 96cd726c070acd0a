// A live copy of the team's events, kept in memory until you stop it (docs/sync.md, "Live copy").
import { createClient } from "@community/client";

const client = createClient({
  baseUrl: process.env.COMMUNITY_API_URL ?? "http://localhost:3000",
  token: process.env.COMMUNITY_API_TOKEN ?? "",
});

// The store is yours: here a Map; a real one keeps items and token in one database transaction.
const events = new Map();
let token;
let applied = { upserts: 0, deletes: 0 };
const store = {
  getToken: () => token,
  setToken: (next) => {
    token = next;
    console.log(`${applied.upserts} upserts, ${applied.deletes} deletes: ${events.size} events`);
    applied = { upserts: 0, deletes: 0 };
  },
  clear: () => events.clear(),
  upsert: (event) => {
    events.set(event.id, event);
    applied.upserts += 1;
  },
  remove: (id) => {
    events.delete(id);
    applied.deletes += 1;
  },
};

const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());
const result = await client.events.sync(store, {
  live: true,
  signal: stop.signal,
  wait: 30,
  onRetry: (error, ms) => console.error(`trying again in ${ms} ms: ${error.message}`),
});
console.log(`stopped after ${result.upserts} upserts and ${result.deletes} deletes`);
