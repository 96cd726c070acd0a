import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after answering. */
  closed: boolean;
}

/** Sends `head` as raw bytes (no client-side checks) and reads the answer until the server closes. */
export function sendRaw(port: number, head: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(parse(false));
    }, 5_000);
    function parse(closed: boolean): RawResponse {
      const text = Buffer.concat(chunks).toString("latin1");
      const [top = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = top.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      );
      return { status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n"), closed };
    }
    socket.on("data", (chunk) => chunks.push(chunk));
    // The server may close while the rest of an over-long head is still being sent.
    socket.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" ? undefined : reject(error)));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(parse(true));
    });
    socket.write(head);
  });
}
