import { MigrationError, markRolledBack, migrateDeploy } from "../migrations";

/**
 * `pnpm db:migrate`: applies prisma/migrations to DATABASE_URL; `pnpm db:migrate --rolled-back
 * <name>` marks a failed migration as rolled back (docs/database.md, "Migrations").
 */
async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write("DATABASE_URL is not set: it must name the PostgreSQL database to migrate\n");
    process.exit(1);
  }
  const args = process.argv.slice(2);
  if (args.length > 0) {
    const [flag, name] = args;
    if (flag !== "--rolled-back" || name === undefined || args.length !== 2) {
      process.stderr.write("usage: pnpm db:migrate [--rolled-back <migration name>]\n");
      process.exit(2);
    }
    await markRolledBack(url, name);
    process.stdout.write(`Migration ${name} marked as rolled back.\n`);
    return;
  }
  const applied = await migrateDeploy(url, { log: (line) => process.stdout.write(`${line}\n`) });
  // Prisma's own closing lines, which scripts and people already look for.
  process.stdout.write(
    applied.length === 0 ? "No pending migrations to apply.\n" : "All migrations have been successfully applied.\n",
  );
}

main().catch((error: unknown) => {
  const message = error instanceof MigrationError ? error.message : String((error as Error)?.stack ?? error);
  process.stderr.write(`Migration failed: ${message}\n`);
  process.exit(1);
});
