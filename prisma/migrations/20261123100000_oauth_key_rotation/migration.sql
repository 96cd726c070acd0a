-- Signing-key rotation: a key signs from activates_at (null: from its creation) and leaves the
-- JWKS at retires_at (null: never), after which `pnpm oauth:rotate-keys` deletes it.
ALTER TABLE "oauth_keys" ADD COLUMN "activates_at" TIMESTAMPTZ(3),
ADD COLUMN "retires_at" TIMESTAMPTZ(3);

-- The authorization server's rows are now stored under the SHA-256 of their id (a refresh token's
-- or a session cookie's id is the secret itself), and without the id in the payload.
UPDATE "oauth_payloads"
SET "id" = encode(sha256(convert_to("id", 'UTF8')), 'hex'), "payload" = "payload" - 'jti';
