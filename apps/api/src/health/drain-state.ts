import { Injectable } from "@nestjs/common";

/**
 * Whether this process is being drained: once a shutdown starts, readiness answers 503 so that
 * load balancers stop sending new requests, while the requests they still send are served.
 * Held requests (the changes feed's `wait`) are answered at once when it starts (`onStart`).
 */
@Injectable()
export class DrainState {
  private started = false;
  private readonly listeners = new Set<() => void>();

  get draining(): boolean {
    return this.started;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const listener of [...this.listeners]) listener();
  }

  /** Calls `listener` when the drain starts (at once if it has); returns the way to stop listening. */
  onStart(listener: () => void): () => void {
    if (this.started) {
      listener();
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
