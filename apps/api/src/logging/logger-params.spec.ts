import { loadConfig } from "../config/config";
import { loggerParams } from "./logger-params";

type PinoHttpOptions = { level?: string; transport?: { target: string } };

describe(loggerParams.name, () => {
  const isTTY = process.stdout.isTTY;
  afterEach(() => {
    process.stdout.isTTY = isTTY;
  });

  it("takes the level from LOG_LEVEL", () => {
    const options = loggerParams(loadConfig({ LOG_LEVEL: "debug" })).pinoHttp as PinoHttpOptions;
    expect(options.level).toBe("debug");
  });

  it("writes JSON lines when stdout is not a terminal", () => {
    process.stdout.isTTY = false;
    const options = loggerParams(loadConfig({})).pinoHttp as PinoHttpOptions;
    expect(options.transport).toBeUndefined();
  });

  it("pretty-prints with pino-pretty when a person watches a terminal", () => {
    process.stdout.isTTY = true;
    const options = loggerParams(loadConfig({})).pinoHttp as PinoHttpOptions;
    expect(options.transport?.target).toBe(require.resolve("pino-pretty"));
  });
});
