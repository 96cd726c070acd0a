-- Initial schema. Generated with `prisma migrate diff --from-empty`, then extended by hand with
-- what the Prisma schema language cannot say: byte-wise (C) collation on ids, so that the
-- "id ascending" tie-break is identical on every server and locale, and CHECK constraints.

-- CreateTable
CREATE TABLE "accounts" (
    "id" VARCHAR(64) COLLATE "C" NOT NULL,
    "slug" VARCHAR(200) NOT NULL,
    "name" TEXT NOT NULL,
    "partner" BOOLEAN NOT NULL,
    "profile_image_url" TEXT,
    "cover_image_url" TEXT,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "teams" (
    "id" VARCHAR(64) COLLATE "C" NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "teams_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" VARCHAR(64) COLLATE "C" NOT NULL,
    "name" TEXT NOT NULL,
    "team_id" VARCHAR(64),

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "access_tokens" (
    "token_hash" CHAR(64) NOT NULL,
    "user_id" VARCHAR(64) NOT NULL,
    "client_id" VARCHAR(200) NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "access_tokens_pkey" PRIMARY KEY ("token_hash")
);

-- CreateTable
CREATE TABLE "events" (
    "id" VARCHAR(64) COLLATE "C" NOT NULL,
    "team_id" VARCHAR(64) NOT NULL,
    "account_id" VARCHAR(64) NOT NULL,
    "slug" VARCHAR(200) NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "cover_url" TEXT,
    "duration_seconds" INTEGER NOT NULL,
    "scheduled_at" TIMESTAMPTZ(0) NOT NULL,
    "live_at" TIMESTAMPTZ(0),
    "completed_at" TIMESTAMPTZ(0),
    "canceled_at" TIMESTAMPTZ(0),
    "offer_replay_purchase" BOOLEAN NOT NULL,
    "price_in_cents" INTEGER NOT NULL,
    "currency" CHAR(3) NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "guides" (
    "id" VARCHAR(64) COLLATE "C" NOT NULL,
    "team_id" VARCHAR(64) NOT NULL,
    "account_id" VARCHAR(64) NOT NULL,
    "slug" VARCHAR(200) NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "cover_url" TEXT,
    "published_at" TIMESTAMPTZ(0),
    "price_in_cents" INTEGER NOT NULL,
    "currency" CHAR(3) NOT NULL,

    CONSTRAINT "guides_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "accounts_slug_key" ON "accounts"("slug");

-- CreateIndex
CREATE INDEX "users_team_id_idx" ON "users"("team_id");

-- CreateIndex
CREATE INDEX "access_tokens_user_id_idx" ON "access_tokens"("user_id");

-- CreateIndex
CREATE INDEX "events_team_list_idx" ON "events"("team_id", "scheduled_at" DESC, "id");

-- CreateIndex
CREATE INDEX "events_account_id_idx" ON "events"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "events_team_id_slug_key" ON "events"("team_id", "slug");

-- CreateIndex
CREATE INDEX "guides_team_list_idx" ON "guides"("team_id", "published_at" DESC, "id");

-- CreateIndex
CREATE INDEX "guides_account_id_idx" ON "guides"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "guides_team_id_slug_key" ON "guides"("team_id", "slug");

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_tokens" ADD CONSTRAINT "access_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "guides" ADD CONSTRAINT "guides_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "guides" ADD CONSTRAINT "guides_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Checks that keep bad rows out whatever writes them.
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_id_check" CHECK (length("id") > 0);
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_slug_check" CHECK (length("slug") > 0);
ALTER TABLE "teams" ADD CONSTRAINT "teams_id_check" CHECK (length("id") > 0);
ALTER TABLE "users" ADD CONSTRAINT "users_id_check" CHECK (length("id") > 0);
ALTER TABLE "access_tokens" ADD CONSTRAINT "access_tokens_token_hash_check" CHECK ("token_hash" ~ '^[0-9a-f]{64}$');
ALTER TABLE "events" ADD CONSTRAINT "events_id_check" CHECK (length("id") > 0);
ALTER TABLE "events" ADD CONSTRAINT "events_slug_check" CHECK (length("slug") > 0);
ALTER TABLE "events" ADD CONSTRAINT "events_duration_seconds_check" CHECK ("duration_seconds" >= 0);
ALTER TABLE "events" ADD CONSTRAINT "events_price_in_cents_check" CHECK ("price_in_cents" >= 0);
ALTER TABLE "events" ADD CONSTRAINT "events_currency_check" CHECK ("currency" ~ '^[A-Z]{3}$');
ALTER TABLE "guides" ADD CONSTRAINT "guides_id_check" CHECK (length("id") > 0);
ALTER TABLE "guides" ADD CONSTRAINT "guides_slug_check" CHECK (length("slug") > 0);
ALTER TABLE "guides" ADD CONSTRAINT "guides_price_in_cents_check" CHECK ("price_in_cents" >= 0);
ALTER TABLE "guides" ADD CONSTRAINT "guides_currency_check" CHECK ("currency" ~ '^[A-Z]{3}$');
