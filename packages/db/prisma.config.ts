import path from "node:path";
import { defineConfig } from "prisma/config";

// Read by the Prisma CLI. `prisma generate` (pnpm run generate) needs no database, so the URL is
// read from process.env and may be unset (Prisma's env() would throw). Migrations are written as
// SQL and applied by src/migrations.ts, not by the CLI (docs/database.md, "Migrations").
export default defineConfig({
  schema: path.join(__dirname, "../../prisma/schema.prisma"),
  migrations: { path: path.join(__dirname, "../../prisma/migrations") },
  datasource: { url: process.env.DATABASE_URL },
});
