// A webhook receiver that keeps a copy of the team's events and guides (docs/sync.md).
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { createClient, verifyWebhookNotice, WebhookVerificationError } from "@community/client";

const client = createClient({
  baseUrl: process.env.COMMUNITY_API_URL ?? "http://localhost:3000",
  token: process.env.COMMUNITY_API_TOKEN ?? "",
});
// The subscription's secret, one per line (two while you roll yours over). Read at each notice,
// so that the file can be written once the subscription exists, without a restart.
const SECRET_FILE = process.env.WEBHOOK_SECRET_FILE ?? "webhook-secret";
const MAX_BODY_BYTES = 64 * 1024;

// The copy: here in memory; a real one keeps items and token in one database transaction.
const copies = { events: memoryStore(), guides: memoryStore() };

function memoryStore() {
  const items = new Map();
  let token;
  return {
    items,
    getToken: () => token,
    setToken: (next) => {
      token = next;
    },
    clear: () => items.clear(),
    upsert: (item) => {
      items.set(item.id, item);
    },
    remove: (id) => {
      items.delete(id);
    },
  };
}

// One sync per list at a time; notices that come during one ask for one more sync after it.
const syncs = { events: { running: false, again: false }, guides: { running: false, again: false } };
function syncSoon(list) {
  const state = syncs[list];
  if (state.running) {
    state.again = true;
    return;
  }
  state.running = true;
  (async () => {
    do {
      state.again = false;
      try {
        const result = await client[list].sync(copies[list]);
        const how = result.full ? "full walk" : "changes";
        console.log(
          `${list}: ${how}, ${result.upserts} upserts, ${result.deletes} deletes, ${copies[list].items.size} items`,
        );
      } catch (error) {
        // The next notice (or the next start) tries again: the feed loses nothing meanwhile.
        console.error(`${list}: sync failed: ${error.message}`);
      }
    } while (state.again);
    state.running = false;
  })();
}

async function secrets() {
  try {
    return (await readFile(SECRET_FILE, "utf8")).split("\n").filter((line) => line.trim() !== "");
  } catch {
    return [];
  }
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    request.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new RangeError("body too large"));
      else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

async function handle(request, response) {
  if (request.method !== "POST") return response.writeHead(405, { allow: "POST" }).end();
  let body;
  try {
    body = await readBody(request);
  } catch {
    return response.writeHead(413, { connection: "close" }).end();
  }
  const secret = await secrets();
  if (secret.length === 0) {
    // No secret yet: the subscription is being created, and its ping only proves that this URL
    // answers (it asks for nothing). Anything else waits for the secret.
    const ping = /"type"\s*:\s*"webhook\.ping"/.test(body.toString());
    return response.writeHead(ping ? 204 : 503).end();
  }
  let notice;
  try {
    notice = await verifyWebhookNotice({ secret, headers: request.headers, body });
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    // Never 410 here: a 410 disables the subscription.
    return response.writeHead(error.kind === "malformed" ? 400 : 401).end(error.message);
  }
  // Answer at once (the api waits 15 s at most), then ask the changes feed.
  response.writeHead(204).end();
  if (notice.type !== "webhook.ping") syncSoon(notice.data.list);
}

const server = createServer((request, response) => {
  handle(request, response).catch((error) => {
    console.error(error);
    if (!response.headersSent) response.writeHead(500).end();
  });
});
server.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
  // Notices missed while the receiver was down are caught up by a sync at start.
  syncSoon("events");
  syncSoon("guides");
});
