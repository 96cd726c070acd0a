/** Injection token of the shared `Database` (Prisma client + pool) from @community/db. */
export const DATABASE = Symbol("DATABASE");
