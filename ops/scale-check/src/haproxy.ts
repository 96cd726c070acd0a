import { writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { type Service, type Supervisor, waitFor } from "./processes";
import { tcpAnswers } from "./services";

export interface Balancer {
  port: number;
  service: Service;
  /** The state of each replica as HAProxy sees it ("UP", "DOWN", "UP 1/2"…), by server name. */
  states(): Promise<Record<string, string>>;
}

/** Milliseconds between readiness checks; a replica is taken out after FALL failed checks. */
export const CHECK_INTERVAL_MS = 500;
const FALL = 2;
const RISE = 2;

/**
 * The balancer: round robin over the replicas that pass `GET /health/ready`; a request whose
 * connection fails or that gets no response (a killed replica) is retried on another replica
 * (`retry-on`, `option redispatch`), so it costs the client nothing. When every replica fails its
 * check (the database is down for all), the `backup` entries (the same replicas, unchecked) keep
 * forwarding, so that clients get the api's own 503 problem with Retry-After instead of
 * HAProxy's page.
 */
export function haproxyConfig(port: number, statsSocket: string, replicas: Array<{ name: string; port: number }>) {
  return [
    "global",
    "  maxconn 2000",
    `  stats socket ${statsSocket} mode 600 level admin`,
    "",
    "defaults",
    "  mode http",
    "  timeout connect 1s",
    "  timeout client 30s",
    "  timeout server 15s",
    // Shorter than the api's HTTP_KEEP_ALIVE_TIMEOUT_MS: the balancer closes idle connections first.
    "  timeout http-keep-alive 10s",
    "  timeout check 2s",
    "  retries 3",
    "  option redispatch 1",
    "  retry-on conn-failure empty-response response-timeout",
    "",
    "frontend api",
    `  bind 127.0.0.1:${port}`,
    "  default_backend replicas",
    "",
    "backend replicas",
    "  balance roundrobin",
    "  option httpchk GET /health/ready",
    "  http-check expect status 200",
    "  option allbackups",
    "  http-response set-header X-Served-By %[srv_name]",
    `  default-server inter ${CHECK_INTERVAL_MS} fall ${FALL} rise ${RISE}`,
    ...replicas.map((replica) => `  server ${replica.name} 127.0.0.1:${replica.port} check`),
    ...replicas.map((replica) => `  server ${replica.name}-open 127.0.0.1:${replica.port} backup`),
    "",
  ].join("\n");
}

export async function startHaproxy(
  haproxy: string,
  supervisor: Supervisor,
  workDir: string,
  replicas: Array<{ name: string; port: number }>,
  /** The port the replicas' PUBLIC_URL names (the built-in server's redirects lead there). */
  port: number,
): Promise<Balancer> {
  const statsSocket = path.join(workDir, "haproxy.sock");
  const configFile = path.join(workDir, "haproxy.cfg");
  writeFileSync(configFile, haproxyConfig(port, statsSocket, replicas));
  const service = supervisor.start("haproxy", haproxy, ["-db", "-f", configFile]);
  await waitFor("HAProxy", () => tcpAnswers(port), 10_000, 50);
  return { port, service, states: async () => parseServerStates(await statsCommand(statsSocket, "show stat")) };
}

function statsCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let output = "";
    socket.setTimeout(2_000, () => socket.destroy(new Error("the HAProxy stats socket did not answer")));
    socket.on("connect", () => socket.write(`${command}\n`));
    socket.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    socket.on("end", () => resolve(output));
    socket.on("error", reject);
  });
}

/** Parses `show stat` CSV: the status of each server of the `replicas` backend, backups excluded. */
export function parseServerStates(csv: string): Record<string, string> {
  const [header = "", ...rows] = csv.trim().split("\n");
  const columns = header.replace(/^# /, "").split(",");
  const at = (name: string) => columns.indexOf(name);
  const states: Record<string, string> = {};
  for (const row of rows) {
    const cells = row.split(",");
    const proxy = cells[at("pxname")];
    const server = cells[at("svname")] ?? "";
    if (proxy !== "replicas" || server === "BACKEND" || server === "FRONTEND" || server.endsWith("-open")) continue;
    states[server] = cells[at("status")] ?? "";
  }
  return states;
}
