/**
 * Single flight for the changes feed's readings: the held requests that a commit wakes at the same
 * position (team, list, position, page size) share one reading of the feed instead of one each
 * (issue 44: 400 holds made 400 statements through a pool of 10, and 503s). A reading may be
 * shared only with a request that started watching its list before the reading began, or while
 * no commit to the list has been told since it began: `canJoin(startedAt)` decides, given the
 * reading's start (performance.now()). A settled reading stays shareable for `keepMs`, for the
 * stragglers of the same wake; a failed one is forgotten at once (each joiner gets its error).
 *
 * One instance serves every list: a key names its list, and every reading of a list is of that
 * list's items, so the result found by a key is of the type `start` would have made (the one cast).
 */
export class FeedFlights {
  private readonly flights = new Map<string, { startedAt: number; result: Promise<unknown> }>();

  constructor(private readonly keepMs = 1_000) {}

  /** Readings in flight or kept now. */
  get size(): number {
    return this.flights.size;
  }

  /** The shared reading of `key`, or a new one made by `start`; `shared` is told whether it was joined. */
  run<T>(
    key: string,
    canJoin: (startedAt: number) => boolean,
    start: () => Promise<T>,
    shared?: (joined: boolean) => void,
  ): Promise<T> {
    const flight = this.flights.get(key);
    if (flight !== undefined && canJoin(flight.startedAt)) {
      shared?.(true);
      return flight.result as Promise<T>;
    }
    shared?.(false);
    const entry = { startedAt: performance.now(), result: start() };
    this.flights.set(key, entry);
    const forget = () => {
      if (this.flights.get(key) === entry) this.flights.delete(key);
    };
    entry.result.then(
      () => setTimeout(forget, this.keepMs).unref(),
      () => forget(),
    );
    return entry.result;
  }
}
