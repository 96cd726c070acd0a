import { createServer } from "node:net";

/** Whether `port` (0: any) can be listened on at 127.0.0.1; the port the system gave, or undefined. */
function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : undefined));
    });
  });
}

/**
 * A free loopback port, for a server whose address must be known before it starts: any, or one in
 * [from, 61000) (private database clusters keep above 55000, clear of the machine's own services).
 */
export async function freePort(from?: number): Promise<number> {
  if (from === undefined) {
    const port = await tryPort(0);
    if (port === undefined) throw new Error("no free loopback port");
    return port;
  }
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = await tryPort(from + Math.floor(Math.random() * (61_000 - from)));
    if (port !== undefined) return port;
  }
  throw new Error(`no free loopback port in [${from}, 61000)`);
}
