import { Logger } from "@nestjs/common";

export interface LoggedLine {
  level: "log" | "warn" | "error";
  message: string;
  /** Whether a stack trace came with the line. */
  stack: boolean;
}

/**
 * Records what the app's services write through Nest's Logger (the request log lines of
 * pino-http are not included): a test counts them without parsing any log output.
 */
export class LogSpy {
  readonly lines: LoggedLine[] = [];
  private readonly spies: jest.SpyInstance[];

  constructor() {
    this.spies = (["log", "warn", "error"] as const).map((level) =>
      jest.spyOn(Logger.prototype, level).mockImplementation((message: unknown, ...rest: unknown[]) => {
        const stack = rest.some((part) => typeof part === "string" && /\n\s+at /.test(part));
        this.lines.push({ level, message: String(message), stack });
      }),
    );
  }

  /** Lines recorded from now on. */
  mark(): () => LoggedLine[] {
    const from = this.lines.length;
    return () => this.lines.slice(from);
  }

  restore(): void {
    for (const spy of this.spies) spy.mockRestore();
  }
}
