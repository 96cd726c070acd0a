-- Webhooks (contract 10.2): subscriptions, and the notices each is owed (its delivery log).
--
-- A notice is made due in the transaction that commits the change: team_list_commit inserts one
-- team_list_commits row per list a transaction moved, and the trigger below adds, for every active
-- subscription to that list by a member of that team, a pending webhook_deliveries row and the
-- graphile-worker job that sends it (apps/api/src/webhooks/webhook-delivery.worker.ts). Both commit
-- or roll back with the change, so a crash loses no notice, and a notice is never made for a change
-- that did not commit. The job is keyed by the delivery ('webhook-delivery:<id>'), so that the
-- api's sweep can add the job of any pending delivery that lost it (a database restored without
-- the queue's schema, say) without ever adding a second one.
--
-- Coalescing: at most one notice per subscription and list waits to be sent (the partial unique
-- index). A commit that finds one adds none; if that notice is being sent at that moment (its
-- request is in flight, the receiver may already have read the feed), it is marked, and a new one
-- follows once that attempt ends, so that no commit goes untold.
--
-- The adapter that applies migrations splits scripts at every semicolon, so function bodies are
-- E'' strings that write each semicolon as \x3B.

CREATE TABLE "webhook_subscriptions" (
    "id" VARCHAR(40) NOT NULL,
    "user_id" VARCHAR(64) NOT NULL,
    "client_id" VARCHAR(200) NOT NULL,
    -- The user's team when the subscription was made: the one whose lists it is told of. The user
    -- leaving it revokes the subscription (the trigger on users below).
    "team_id" VARCHAR(64) NOT NULL,
    -- What the creating token rests on, checked before every notice: 'grant' (a JWT of the built-in
    -- authorization server: that grant, grant_hash its SHA-256, must still stand), 'token' (an
    -- opaque token: the user must still hold a valid token of the client) or 'issuer' (another
    -- issuer's JWT: the issuer keeps its grants; team membership is checked as for every kind).
    "credential" TEXT NOT NULL,
    "grant_hash" CHAR(64),
    "url" TEXT NOT NULL,
    -- The receiver's origin (scheme, host, port): its notices are sent one at a time, in a queue
    -- of their own, so that a slow receiver holds up nobody else's.
    "receiver" TEXT NOT NULL,
    "lists" TEXT[] NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    -- The signing secret ("whsec_..."), or it encrypted (AES-256-GCM) when OAUTH_KEY_ENCRYPTION_KEY is set.
    "secret" JSONB NOT NULL,
    -- The secret before the last rotation: it signs beside the new one until previous_secret_expires_at.
    "previous_secret" JSONB,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL DEFAULT 'active',
    "status_reason" TEXT,
    "status_changed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_subscriptions_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_subscriptions_status_check" CHECK ("status" IN ('active', 'disabled', 'revoked')),
    CONSTRAINT "webhook_subscriptions_credential_check" CHECK ("credential" IN ('grant', 'token', 'issuer') AND ("credential" = 'grant') = ("grant_hash" IS NOT NULL)),
    CONSTRAINT "webhook_subscriptions_lists_check" CHECK (cardinality("lists") > 0)
);
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "webhook_subscriptions_owner_idx" ON "webhook_subscriptions"("user_id", "client_id", "created_at");
-- The commit trigger's lookup: the active subscriptions to a team's lists.
CREATE INDEX "webhook_subscriptions_active_idx" ON "webhook_subscriptions"("team_id") WHERE "status" = 'active';

CREATE TABLE "webhook_deliveries" (
    -- The notice's webhook-id: the same on every attempt and on a redelivery.
    "id" VARCHAR(40) NOT NULL,
    "subscription_id" VARCHAR(40) NOT NULL,
    -- The team whose list changed (null for webhook.ping): checked again before every attempt.
    "team_id" VARCHAR(64),
    "type" TEXT NOT NULL,
    "list" TEXT,
    -- The body, fixed when the notice is made, so that every attempt sends the same bytes.
    "body" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    -- Made by a commit and not redelivered: takes part in coalescing while pending.
    "coalesces" BOOLEAN NOT NULL DEFAULT false,
    -- An attempt is under way (its request may be in flight).
    "in_flight" BOOLEAN NOT NULL DEFAULT false,
    -- A commit to its list came while an attempt was under way: once it ends, a new notice follows.
    "changed_in_flight" BOOLEAN NOT NULL DEFAULT false,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_status" INTEGER,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "next_attempt_at" TIMESTAMPTZ(3),
    "last_attempt_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_deliveries_state_check" CHECK ("state" IN ('pending', 'delivered', 'failed'))
);
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "webhook_subscriptions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- The delivery log, newest first.
CREATE INDEX "webhook_deliveries_log_idx" ON "webhook_deliveries"("subscription_id", "created_at" DESC, "id" DESC);
-- Coalescing: one waiting notice per subscription and list.
CREATE UNIQUE INDEX "webhook_deliveries_coalescing_idx" ON "webhook_deliveries"("subscription_id", "list") WHERE "state" = 'pending' AND "coalesces";
-- The sweep's scan of what is still owed.
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries"("next_attempt_at") WHERE "state" = 'pending';
-- The sweep of old log entries.
CREATE INDEX "webhook_deliveries_completed_at_idx" ON "webhook_deliveries"("completed_at") WHERE "state" <> 'pending';

-- The queue a receiver's notices go through: named per receiver (graphile-worker runs a named
-- queue's jobs one at a time).
CREATE FUNCTION "webhook_queue_name"("receiver" TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS E'
  SELECT ''webhooks:'' || md5(receiver)
';

-- Adds the job that sends a pending delivery at p_run_at. Mode 'unsafe_dedupe' (the commit trigger,
-- the sweep) adds none when it has one, whatever that job's state; 'replace' (a retry, a
-- redelivery) moves a waiting job to run_at, or adds one beside a job under way. Without
-- graphile-worker's schema (no api has started its worker on this database yet), or when adding
-- the job fails (its schema being migrated at that moment, say), it does nothing, and never fails
-- the transaction that calls it (a commit of the lists): the notice's row is stored all the same,
-- and the api's sweep adds its job.
CREATE FUNCTION "webhook_enqueue"("p_delivery" TEXT, "p_receiver" TEXT, "p_run_at" TIMESTAMPTZ, "p_mode" TEXT DEFAULT 'unsafe_dedupe') RETURNS void LANGUAGE plpgsql AS E'
BEGIN
  IF to_regprocedure(''graphile_worker.add_job(text,json,text,timestamp with time zone,integer,text,integer,text[],text)'') IS NULL THEN
    RETURN\x3B
  END IF\x3B
  BEGIN
    PERFORM graphile_worker.add_job(
      ''webhook_deliver'',
      json_build_object(''delivery'', p_delivery),
      queue_name => webhook_queue_name(p_receiver),
      run_at => p_run_at,
      max_attempts => 25,
      job_key => ''webhook-delivery:'' || p_delivery,
      job_key_mode => p_mode)\x3B
  EXCEPTION WHEN OTHERS THEN
    RAISE LOG ''webhook notice % left for the sweep: %'', p_delivery, SQLERRM\x3B
  END\x3B
END
';

-- A notice id: "msg_" and 32 hex digits (a random UUID's).
CREATE FUNCTION "webhook_notice_id"() RETURNS TEXT LANGUAGE sql VOLATILE AS E'
  SELECT ''msg_'' || replace(gen_random_uuid()::text, ''-'', '''')
';

-- A notice that list p_list of team p_team changed, owed to subscription p_subscription, unless
-- one is waiting already (coalescing; if that one is being sent, it is marked, and a new one
-- follows the attempt). Returns the new notice's id, or null when none was made. It is sent a
-- second after the commit that made it: the commits of that second join it (a burst of writes
-- is told in a few notices, one a second at most, rather than one per attempt).
CREATE FUNCTION "webhook_make_notice"("p_subscription" TEXT, "p_team" TEXT, "p_list" TEXT) RETURNS TEXT LANGUAGE plpgsql AS E'
DECLARE
  v_id text\x3B
  v_inserted boolean\x3B
BEGIN
  INSERT INTO webhook_deliveries AS d (id, subscription_id, team_id, type, list, body, coalesces, next_attempt_at)
  VALUES (webhook_notice_id(), p_subscription, p_team,
          p_list || ''.changed'', p_list,
          json_build_object(
            ''type'', p_list || ''.changed'',
            ''timestamp'', to_char(clock_timestamp() AT TIME ZONE ''UTC'', ''YYYY-MM-DD"T"HH24:MI:SS.MS"Z"''),
            ''data'', json_build_object(
              ''list'', p_list,
              ''changes'', ''/v1/me/community/team/'' || p_list || ''/changes''))::text,
          true, clock_timestamp() + interval ''1 second'')
  ON CONFLICT (subscription_id, list) WHERE state = ''pending'' AND coalesces
  DO UPDATE SET changed_in_flight = true
     WHERE d.in_flight AND NOT d.changed_in_flight
  RETURNING d.id, (d.xmax = 0) INTO v_id, v_inserted\x3B
  IF v_id IS NULL OR NOT v_inserted THEN
    RETURN NULL\x3B
  END IF\x3B
  PERFORM webhook_enqueue(v_id, (SELECT s.receiver FROM webhook_subscriptions s WHERE s.id = p_subscription),
                          clock_timestamp() + interval ''1 second'')\x3B
  RETURN v_id\x3B
END
';

-- Per list moved by a committing transaction: the notices it makes due, for the active
-- subscriptions to that list of the team (whose users are still in it: see the trigger on users).
CREATE FUNCTION "webhook_notices_due"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  PERFORM webhook_make_notice(s.id, NEW.team_id, NEW.list)
     FROM webhook_subscriptions s
    WHERE s.team_id = NEW.team_id AND s.status = ''active'' AND NEW.list = ANY (s.lists)
    ORDER BY s.id\x3B
  RETURN NULL\x3B
END
';

CREATE TRIGGER "team_list_commits_webhooks" AFTER INSERT ON "team_list_commits"
  FOR EACH ROW EXECUTE FUNCTION webhook_notices_due();

-- A user who leaves a team (or is moved to another) is told nothing more of it: their
-- subscriptions to it are revoked, and the notices still owed to them fail, in the same transaction.
CREATE FUNCTION "webhook_revoke_left_team"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  WITH revoked AS (
    UPDATE webhook_subscriptions
       SET status = ''revoked'', status_reason = ''the user left the team'', status_changed_at = now()
     WHERE user_id = NEW.id AND team_id IS DISTINCT FROM NEW.team_id AND status = ''active''
    RETURNING id
  )
  UPDATE webhook_deliveries
     SET state = ''failed'', in_flight = false, next_attempt_at = NULL, completed_at = now(),
         last_error = ''the subscription was revoked: the user left the team''
   WHERE subscription_id IN (SELECT id FROM revoked) AND state = ''pending''\x3B
  RETURN NULL\x3B
END
';

CREATE TRIGGER "users_webhooks_team" AFTER UPDATE OF "team_id" ON "users"
  FOR EACH ROW WHEN (OLD.team_id IS DISTINCT FROM NEW.team_id) EXECUTE FUNCTION webhook_revoke_left_team();

-- Whether what a subscription's creating token rested on still stands: the built-in server's grant
-- (and its client), or a valid opaque token of the user and client; another issuer keeps its own.
CREATE FUNCTION "webhook_credential_stands"("p_credential" TEXT, "p_grant_hash" TEXT, "p_user" TEXT, "p_client" TEXT) RETURNS BOOLEAN LANGUAGE sql STABLE AS E'
  SELECT CASE p_credential
    WHEN ''grant'' THEN EXISTS (
        SELECT 1 FROM oauth_payloads g
         WHERE g.model = ''Grant'' AND g.id = p_grant_hash AND (g.expires_at IS NULL OR g.expires_at > now()))
      AND EXISTS (SELECT 1 FROM oauth_clients c WHERE c.client_id = p_client)
    WHEN ''token'' THEN EXISTS (
        SELECT 1 FROM access_tokens t
         WHERE t.user_id = p_user AND t.client_id = p_client
           AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now()))
    ELSE true
  END
';
