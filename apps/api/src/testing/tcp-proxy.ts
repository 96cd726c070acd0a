import net from "node:net";

/**
 * A loopback TCP proxy in front of the real PostgreSQL, which a test can cut and restore to
 * simulate the database becoming unreachable without touching the shared server.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
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
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** Refuses new connections and drops every open one, like a database host going away. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
