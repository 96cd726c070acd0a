import { createHmac } from "node:crypto";
import { SignedTokens } from "./signed-tokens";

describe(SignedTokens.name, () => {
  const tokens = new SignedTokens(Buffer.from("a-secret-of-at-least-thirty-two-characters"));
  const binding = { list: "events", teamId: "team_a", filters: "&status=live" };
  const position = { key: "2026-03-01 18:30:00+00", id: "ev_1" };

  it("opens a cursor only with the list, team and filters it was made for", () => {
    const cursor = tokens.cursor(position, binding);
    expect(tokens.openCursor(cursor, binding)).toEqual(position);
    expect(tokens.openCursor(cursor, { ...binding, list: "guides" })).toBeUndefined();
    expect(tokens.openCursor(cursor, { ...binding, teamId: "team_b" })).toBeUndefined();
    expect(tokens.openCursor(cursor, { ...binding, filters: "" })).toBeUndefined();
  });

  it("carries a position's ties flag under its MAC", () => {
    const cursor = tokens.cursor({ ...position, ties: true }, binding);
    expect(tokens.openCursor(cursor, binding)).toEqual({ ...position, ties: true });
    const [, mac] = cursor.split(".") as [string, string];
    const flipped = Buffer.from(JSON.stringify({ k: position.key, i: position.id })).toString("base64url");
    expect(tokens.openCursor(`${flipped}.${mac}`, binding)).toBeUndefined();
  });

  it("refuses altered, truncated and foreign cursors", () => {
    const cursor = tokens.cursor(position, binding);
    const [payload, mac] = cursor.split(".") as [string, string];
    const other = Buffer.from(JSON.stringify({ k: position.key, i: "ev_2" })).toString("base64url");
    expect(tokens.openCursor(`${other}.${mac}`, binding)).toBeUndefined();
    expect(tokens.openCursor(cursor.slice(0, -1), binding)).toBeUndefined();
    expect(tokens.openCursor(payload, binding)).toBeUndefined();
    expect(tokens.openCursor(`${payload}.`, binding)).toBeUndefined();
    const elsewhere = new SignedTokens(Buffer.from("another-secret-of-thirty-two-characters!"));
    expect(tokens.openCursor(elsewhere.cursor(position, binding), binding)).toBeUndefined();
  });

  it("signs with HMAC-SHA256 of the secret's bytes, so that tokens issued before a restart still open", () => {
    const secret = Buffer.from("a-secret-of-at-least-thirty-two-characters");
    const mac = (text: string) =>
      createHmac("sha256", secret).update(text).digest().subarray(0, 16).toString("base64url");
    expect(tokens.teamTag("team_a")).toBe(mac("team\n\nteam_a"));
    const cursor = tokens.cursor(position, binding);
    const payload = cursor.slice(0, cursor.indexOf("."));
    expect(cursor).toBe(
      `${payload}.${mac(`cursor\n${JSON.stringify(["events", "team_a", "&status=live"])}\n${payload}`)}`,
    );
  });

  it("gives each team its own tag, the same from one call to the next and beyond the tags it keeps", () => {
    const fresh = () => new SignedTokens(Buffer.from("a-secret-of-at-least-thirty-two-characters"));
    const expected = new Map<string, string>();
    for (let i = 0; i < 10_000; i++) expected.set(`team_${i}`, fresh().teamTag(`team_${i}`));
    expect(new Set(expected.values()).size).toBe(expected.size);
    // Twice over more teams than are kept, in an order that revisits recent ones.
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < 10_000; i++) {
        const team = `team_${(i * 7919) % 10_000}`;
        expect(tokens.teamTag(team)).toBe(expected.get(team));
      }
  });

  it("opens a sync token it signed, with its claims, and refuses an altered one", () => {
    const claims = { list: "events", team: tokens.teamTag("team_a"), issuedAt: 1_700_000_000.5, position: { x: 1 } };
    const token = tokens.syncToken(claims);
    expect(tokens.openSyncToken(token)).toEqual(claims);
    const [, mac] = token.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ l: "events", t: claims.team, at: 2e9, p: { x: 1 } })).toString(
      "base64url",
    );
    expect(tokens.openSyncToken(`${forged}.${mac}`)).toBeUndefined();
    expect(tokens.openSyncToken("not-a-token")).toBeUndefined();
    expect(token).not.toContain("team_a");
  });
});
