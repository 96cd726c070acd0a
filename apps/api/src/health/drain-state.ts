import { Injectable } from "@nestjs/common";

/**
 * Whether this process is being drained: once a shutdown starts, readiness answers 503 so that
 * load balancers stop sending new requests, while the requests they still send are served.
 */
@Injectable()
export class DrainState {
  private started = false;

  get draining(): boolean {
    return this.started;
  }

  start(): void {
    this.started = true;
  }
}
