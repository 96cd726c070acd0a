import type { Database } from "@community/db";
import { statementText } from "@community/db/testing";

/** Counts the statements that reach the database and read access_tokens (the opaque token lookup). */
export function countTokenLookups(database: Database): { count: () => number; restore: () => void } {
  let lookups = 0;
  const query = database.pool.query.bind(database.pool);
  const spy = jest.spyOn(database.pool, "query").mockImplementation(((text: unknown, ...rest: unknown[]) => {
    if (statementText(text).includes("FROM access_tokens")) lookups += 1;
    return (query as (...args: unknown[]) => unknown)(text, ...rest);
  }) as typeof database.pool.query);
  return { count: () => lookups, restore: () => spy.mockRestore() };
}
