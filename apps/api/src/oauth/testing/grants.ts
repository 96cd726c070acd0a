import { randomUUID } from "node:crypto";
import { type Database, hashToken } from "@community/db";

/**
 * A grant of the built-in server as oidc-provider stores it (under the SHA-256 of its id), for
 * tests that sign access tokens themselves: the api accepts a built-in token only while the grant
 * its `grant_id` names exists. Returns the grant id.
 */
export async function plantGrant(database: Database, grantId: string = randomUUID()): Promise<string> {
  await database.prisma.oAuthPayload.create({
    data: { model: "Grant", id: hashToken(grantId), grantId, payload: { kind: "Grant", jti: grantId } },
  });
  return grantId;
}
