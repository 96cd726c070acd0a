import { loadConfig } from "../config/config";
import { LOG_BUFFER_BYTES, loggerParams } from "./logger-params";

type PinoHttpOptions = { level?: string; transport?: { target: string } };

/** pino-http's options and, where loggerParams chose one, its destination. */
function pinoHttp(
  params: ReturnType<typeof loggerParams>,
): [PinoHttpOptions, { sync?: boolean; fd?: number; minLength?: number }?] {
  const value = params.pinoHttp as
    | PinoHttpOptions
    | [PinoHttpOptions, { sync?: boolean; fd?: number; minLength?: number }];
  return Array.isArray(value) ? value : [value];
}

describe(loggerParams.name, () => {
  const isTTY = process.stdout.isTTY;
  afterEach(() => {
    process.stdout.isTTY = isTTY;
  });

  it("takes the level from LOG_LEVEL", () => {
    const [options] = pinoHttp(loggerParams(loadConfig({ LOG_LEVEL: "debug" })));
    expect(options.level).toBe("debug");
  });

  it("writes JSON lines to stdout without blocking, buffered, when stdout is not a terminal", () => {
    process.stdout.isTTY = false;
    const [options, destination] = pinoHttp(loggerParams(loadConfig({})));
    expect(options.transport).toBeUndefined();
    expect(destination).toMatchObject({ fd: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  });

  it("pretty-prints with pino-pretty when a person watches a terminal", () => {
    process.stdout.isTTY = true;
    const [options, destination] = pinoHttp(loggerParams(loadConfig({})));
    expect(options.transport?.target).toBe(require.resolve("pino-pretty"));
    expect(destination).toBeUndefined();
  });
});
