import { Counter, Gauge, type Registry } from "prom-client";

/**
 * Metrics whose value is read from their owner when Prometheus scrapes, rather than pushed on every
 * change: a gauge of a current value, or a counter of a running total the owner keeps.
 */
export function scrapedMetrics(registry: Registry) {
  return {
    gauge(name: string, help: string, read: () => number): void {
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read());
        },
      });
    },
    counter(name: string, help: string, read: () => number): void {
      new Counter({
        name,
        help,
        registers: [registry],
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    },
  };
}
