import net from "node:net";

/**
 * A loopback TCP proxy in front of the real PostgreSQL, which a test can cut and restore to
 * simulate the database becoming unreachable without touching the shared server.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private frozen = false;
  private readonly held: net.Socket[] = [];
  /** Connections accepted since the start (each one a connection attempt of the client). */
  accepted = 0;
  /** Bytes the clients sent towards the database since the start. */
  bytesSent = 0;
  /** Called with every chunk a client sends towards the database (to see which queries went this way). */
  onSent: ((chunk: Buffer) => void) | undefined;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A started proxy in front of the server of a PostgreSQL URL (the test server, typically). */
  static async inFrontOf(databaseUrl: string): Promise<TcpProxy> {
    const server = new URL(databaseUrl);
    const proxy = new TcpProxy(server.hostname, Number(server.port || 5432));
    await proxy.start();
    return proxy;
  }

  /** The same connection URL, routed through this proxy. */
  route(databaseUrl: string): string {
    const viaProxy = new URL(databaseUrl);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(this.port);
    return viaProxy.toString();
  }

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      this.accepted += 1;
      this.sockets.add(client);
      client.on("close", () => this.sockets.delete(client));
      client.on("error", () => client.destroy());
      if (this.frozen) {
        // Accepted, never answered: like a host that stopped (SIGSTOP) without closing anything.
        client.pause();
        this.held.push(client);
      } else this.forward(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  private forward(client: net.Socket): void {
    const upstream = net.connect(this.targetPort, this.targetHost);
    this.sockets.add(upstream);
    upstream.on("close", () => this.sockets.delete(upstream));
    for (const socket of [client, upstream]) {
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on("data", (chunk: Buffer) => {
      this.bytesSent += chunk.length;
      this.onSent?.(chunk);
    });
    client.pipe(upstream);
    upstream.pipe(client);
    if (this.frozen) {
      client.pause();
      upstream.pause();
    }
  }

  /** Stops carrying bytes either way, and holds new connections unanswered, closing nothing. */
  freeze(): void {
    this.frozen = true;
    for (const socket of this.sockets) socket.pause();
  }

  /** Carries bytes again; held connections reach the database. */
  thaw(): void {
    this.frozen = false;
    for (const socket of this.sockets) socket.resume();
    for (const client of this.held.splice(0)) {
      if (!client.destroyed) {
        client.resume();
        this.forward(client);
      }
    }
  }

  /** Refuses new connections and drops every open one, like a database host going away. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.frozen = false;
    this.held.length = 0;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
