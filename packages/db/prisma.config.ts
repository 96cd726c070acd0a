import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

// The Prisma CLI (`migrate status`, `migrate diff`) reaches the database through the same
// node-postgres driver adapter as the service, with no native engine download. Migrations are
// applied by src/migrations.ts (docs/database.md, "Migrations").
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join(__dirname, "../../prisma/schema.prisma"),
  async adapter() {
    const connectionString = process.env.DATABASE_URL;
    if (!connectionString) {
      throw new Error("DATABASE_URL is not set: it must name the PostgreSQL database to migrate");
    }
    // allowExitOnIdle: the CLI exits as soon as it is done instead of waiting for idle connections to time out.
    return new PrismaPg({ connectionString, allowExitOnIdle: true, idleTimeoutMillis: 100 });
  },
});
