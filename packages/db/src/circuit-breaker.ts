import { EventEmitter } from "node:events";

export type BreakerState = "closed" | "open";

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. */
  threshold: number;
  /** While open, how often `probe` runs (ms). */
  probeIntervalMs: number;
  /** One attempt at the guarded resource; resolves when it answered. */
  probe: () => Promise<void>;
  /** While open, how often the count of refused calls is reported (ms). */
  reportIntervalMs?: number;
}

export interface CircuitBreakerEvents {
  /** Opened after `threshold` consecutive failures; `error` is the last one. */
  open: [error: Error];
  /** Closed by a success (a probe's or a call's) after `downMs` open. */
  close: [downMs: number];
  /** Calls refused while open over the last `intervalMs` (since the opening or the last report). */
  refused: [count: number, intervalMs: number];
}

/** Thrown by `admit()` while the breaker is open: the call was not attempted. */
export class CircuitOpenError extends Error {
  readonly code = "CIRCUIT_OPEN";

  constructor(readonly resource: string) {
    super(`${resource} is known to be unreachable; not attempted while the circuit breaker is open`);
    this.name = "CircuitOpenError";
  }
}

/**
 * A circuit breaker for an outage, not for slowness: it opens after `threshold` consecutive
 * failures, refuses calls at once while open, probes in the background every `probeIntervalMs`,
 * and closes on the first success. It emits one event per change of state and, while open, a
 * periodic count of refused calls, so that an outage costs a few log lines rather than one per
 * request.
 */
export class CircuitBreaker extends EventEmitter<CircuitBreakerEvents> {
  private current: BreakerState = "closed";
  private failures = 0;
  private openedAt = 0;
  private reportedAt = 0;
  private refusedSinceReport = 0;
  private probeTimer: NodeJS.Timeout | undefined;
  private reportTimer: NodeJS.Timeout | undefined;
  private probing = false;
  private stopped = false;
  /** Calls refused while open, since the start. */
  refusedTotal = 0;
  /** Times the breaker opened, since the start. */
  openedTotal = 0;

  constructor(
    private readonly resource: string,
    private readonly options: CircuitBreakerOptions,
  ) {
    super();
  }

  get state(): BreakerState {
    return this.current;
  }

  /** Throws CircuitOpenError while open; otherwise returns and the caller goes ahead. */
  admit(): void {
    if (this.current === "closed") return;
    this.refusedTotal += 1;
    this.refusedSinceReport += 1;
    throw new CircuitOpenError(this.resource);
  }

  recordSuccess(): void {
    this.failures = 0;
    if (this.current === "open") this.toClosed();
  }

  recordFailure(error: Error): void {
    this.failures += 1;
    if (this.current === "closed" && this.failures >= this.options.threshold && !this.stopped) this.toOpen(error);
  }

  /** Opens at once, whatever the count: for a failure that is sure to repeat (a server that stopped answering). */
  trip(error: Error): void {
    this.failures = Math.max(this.failures, this.options.threshold);
    if (this.current === "closed" && !this.stopped) this.toOpen(error);
  }

  /** Stops the background timers for good (the resource is being closed). */
  stop(): void {
    this.stopped = true;
    this.clearTimers();
  }

  private toOpen(error: Error): void {
    this.current = "open";
    this.openedAt = Date.now();
    this.openedTotal += 1;
    this.reportedAt = this.openedAt;
    this.refusedSinceReport = 0;
    this.emit("open", error);
    this.probeTimer = setInterval(() => void this.probe(), this.options.probeIntervalMs);
    this.probeTimer.unref();
    const reportIntervalMs = this.options.reportIntervalMs ?? 10_000;
    this.reportTimer = setInterval(() => this.report(), reportIntervalMs);
    this.reportTimer.unref();
  }

  private toClosed(): void {
    this.current = "closed";
    this.clearTimers();
    if (this.refusedSinceReport > 0) this.emit("refused", this.refusedSinceReport, Date.now() - this.reportedAt);
    this.refusedSinceReport = 0;
    this.emit("close", Date.now() - this.openedAt);
  }

  private report(): void {
    const now = Date.now();
    if (this.refusedSinceReport === 0) return;
    const count = this.refusedSinceReport;
    this.refusedSinceReport = 0;
    this.emit("refused", count, now - this.reportedAt);
    this.reportedAt = now;
  }

  private async probe(): Promise<void> {
    if (this.probing || this.current !== "open") return;
    this.probing = true;
    try {
      await this.options.probe();
      if (!this.stopped) this.recordSuccess();
    } catch {
      // Still down: the next probe tries again.
    } finally {
      this.probing = false;
    }
  }

  private clearTimers(): void {
    clearInterval(this.probeTimer);
    clearInterval(this.reportTimer);
    this.probeTimer = undefined;
    this.reportTimer = undefined;
  }
}
