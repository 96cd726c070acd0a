import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { standaloneClient, standalonePool } from "./standalone-client";
import { testAdminUrl } from "./testing";

const ROOT = path.resolve(__dirname, "../../..");

/** A loopback proxy in front of the test server whose open connections the test can drop. */
async function droppingProxy(): Promise<{ url: string; drop(): void; close(): Promise<void> }> {
  const target = new URL(testAdminUrl());
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(testAdminUrl());
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    drop: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The source files of the service and its packages (not tests, not generated code). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return ["node_modules", "dist", "generated"].includes(entry.name) ? [] : sources(full);
    return /\.ts$/.test(entry.name) && !/\.(e2e-)?spec\.ts$|\.fault\.e2e-spec\.ts$/.test(entry.name) ? [full] : [];
  });
}

describe("connections outside createDatabase's pools", () => {
  let proxy: Awaited<ReturnType<typeof droppingProxy>>;

  beforeAll(async () => {
    proxy = await droppingProxy();
  });

  afterAll(() => proxy?.close());

  it("a client whose connection is dropped under a query fails that query and tells onError, and nothing is thrown", async () => {
    const lost: string[] = [];
    const client = standaloneClient({ connectionString: proxy.url }, (error) => lost.push(error.message));
    await client.connect();
    const waiting = client.query("SELECT pg_sleep(5)");
    setTimeout(() => proxy.drop(), 100);
    // "Connection terminated unexpectedly", or the socket's own error (ECONNRESET) when the drop
    // comes as a reset: either way the query fails and the listener hears it.
    await expect(waiting).rejects.toThrow(/terminated|ECONNRESET/);
    expect(lost.length).toBeGreaterThan(0);
    await client.end().catch(() => undefined);
  });

  it("a pool's checked-out connection dropped while idle in the caller's hands tells onError, and nothing is thrown", async () => {
    const lost: string[] = [];
    const pool = standalonePool({ connectionString: proxy.url, max: 1 }, (error) => lost.push(error.message));
    const held = await pool.connect();
    await held.query("SELECT 1");
    proxy.drop();
    await new Promise((resolve) => held.once("end", resolve));
    expect(lost.length).toBeGreaterThan(0);
    held.release(true);
    await pool.end();
  });

  it("are all made by standaloneClient or standalonePool: no other source of the service says new Client( or new Pool(", () => {
    const allowed = new Set(["packages/db/src/standalone-client.ts"]);
    const offenders = [path.join(ROOT, "apps"), path.join(ROOT, "packages")]
      .flatMap((dir) => readdirSync(dir).map((name) => path.join(dir, name, "src")))
      .flatMap((dir) => {
        try {
          return sources(dir);
        } catch {
          return [];
        }
      })
      .filter((file) => !allowed.has(path.relative(ROOT, file)))
      .filter((file) => /\bnew (pg\.)?(Client|Pool)\(/.test(readFileSync(file, "utf8")))
      .map((file) => path.relative(ROOT, file));
    expect(offenders).toEqual([]);
  });
});
