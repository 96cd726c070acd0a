-- OAuth 2: user passwords, clients, the authorization server's persisted models and its keys.
-- AlterTable
ALTER TABLE "users" ADD COLUMN     "password_hash" TEXT;

-- CreateTable
CREATE TABLE "oauth_clients" (
    "client_id" VARCHAR(200) NOT NULL,
    "name" TEXT NOT NULL,
    "secret_hash" TEXT,
    "redirect_uris" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_clients_pkey" PRIMARY KEY ("client_id")
);

-- CreateTable
CREATE TABLE "oauth_payloads" (
    "model" VARCHAR(64) NOT NULL,
    "id" VARCHAR(255) NOT NULL,
    "payload" JSONB NOT NULL,
    "grant_id" VARCHAR(255),
    "user_code" VARCHAR(255),
    "uid" VARCHAR(255),
    "expires_at" TIMESTAMPTZ(3),
    "consumed_at" TIMESTAMPTZ(3),

    CONSTRAINT "oauth_payloads_pkey" PRIMARY KEY ("model","id")
);

-- CreateTable
CREATE TABLE "oauth_keys" (
    "id" VARCHAR(255) NOT NULL,
    "kind" VARCHAR(32) NOT NULL,
    "material" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "oauth_payloads_model_grant_id_idx" ON "oauth_payloads"("model", "grant_id");

-- CreateIndex
CREATE INDEX "oauth_payloads_model_uid_idx" ON "oauth_payloads"("model", "uid");

-- CreateIndex
CREATE INDEX "oauth_payloads_expires_at_idx" ON "oauth_payloads"("expires_at");

-- CreateIndex
CREATE INDEX "oauth_keys_kind_created_at_idx" ON "oauth_keys"("kind", "created_at");


-- Only "signing" and "cookie" rows exist: a typo would otherwise be ignored silently by the server.
ALTER TABLE "oauth_keys" ADD CONSTRAINT "oauth_keys_kind_check" CHECK ("kind" IN ('signing', 'cookie'));
