import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto";
import type { KeysetPosition } from "@community/db/lists";

/** Bytes of HMAC-SHA256 kept: 128 bits make a forgery as likely as guessing a random key. */
const MAC_BYTES = 16;
/** How many teams' tags SignedTokens keeps. */
const TEAM_TAGS_KEPT = 4_096;

/** What a sync token carries besides its position: the list, the team (as a tag) and when it was issued. */
export interface SyncTokenClaims {
  list: string;
  /** teamTag() of the team it was issued to. */
  team: string;
  /** Issue time, seconds since the epoch (database clock). */
  issuedAt: number;
  /**
   * The change feed's position (a plain JSON object from @community/db/lists): a state of the list
   * that lives in the data (version and stamp), so it means the same on any copy of the database.
   */
  position: unknown;
}

/**
 * Cursors (9.1) and sync tokens (9.3): base64url JSON, then `.` and an HMAC-SHA256 with the
 * server's CURSOR_SECRET, so that they are opaque to clients in use and any change to them is
 * detected. A cursor's MAC also covers its list, team and filters without carrying them, so a
 * cursor used with any other of these fails like a forged one (400 naming `cursor`). A sync token
 * carries its list and team (as a keyed tag, not the id), so that one issued elsewhere can be told
 * from a forged one (410 against 400).
 */
export class SignedTokens {
  /** teamTag() of the teams seen lately: every changes poll needs its team's, and few teams are busy. */
  private readonly teamTags = new Map<string, string>();

  /** The secret as a key object made once: createHmac with raw bytes imports them anew on every call (5x its cost on Node 24). */
  private readonly key: KeyObject;

  constructor(secret: Buffer) {
    this.key = createSecretKey(secret);
  }

  cursor(position: KeysetPosition, binding: CursorBinding): string {
    const payload = encode({ k: position.key, i: position.id, ...(position.ties ? { t: 1 } : {}) });
    return `${payload}.${this.mac("cursor", bindingText(binding), payload)}`;
  }

  /** The position a cursor stands for, or undefined when it was altered, forged or issued for another binding. */
  openCursor(cursor: string, binding: CursorBinding): KeysetPosition | undefined {
    const payload = this.verified(cursor, "cursor", bindingText(binding));
    if (payload === undefined) return undefined;
    const { k, i, t } = payload as { k?: unknown; i?: unknown; t?: unknown };
    if (typeof k !== "string" || typeof i !== "string" || (t !== undefined && t !== 1)) return undefined;
    return t === 1 ? { key: k, id: i, ties: true } : { key: k, id: i };
  }

  syncToken(claims: SyncTokenClaims): string {
    const payload = encode({
      l: claims.list,
      t: claims.team,
      at: claims.issuedAt,
      p: claims.position,
    });
    return `${payload}.${this.mac("since", "", payload)}`;
  }

  /** The claims of a sync token this server signed, or undefined when altered or forged. */
  openSyncToken(token: string): SyncTokenClaims | undefined {
    const payload = this.verified(token, "since", "");
    if (payload === undefined) return undefined;
    const { l, t, at, p } = payload as Record<string, unknown>;
    if (typeof l !== "string" || typeof t !== "string" || typeof at !== "number" || p === undefined) return undefined;
    return { list: l, team: t, issuedAt: at, position: p };
  }

  /** A keyed tag of a team id: a token names its team without showing the id. */
  teamTag(teamId: string): string {
    let tag = this.teamTags.get(teamId);
    if (tag === undefined) {
      tag = this.mac("team", "", teamId);
      // Bounded (about 0.5 MB): when full, the tags are made again as teams come back.
      if (this.teamTags.size >= TEAM_TAGS_KEPT) this.teamTags.clear();
      this.teamTags.set(teamId, tag);
    }
    return tag;
  }

  private mac(purpose: string, binding: string, payload: string): string {
    return createHmac("sha256", this.key)
      .update(`${purpose}\n${binding}\n${payload}`)
      .digest()
      .subarray(0, MAC_BYTES)
      .toString("base64url");
  }

  private verified(token: string, purpose: string, binding: string): unknown {
    const dot = token.indexOf(".");
    if (dot <= 0 || token.length > 4096) return undefined;
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), "base64url");
    const expected = Buffer.from(this.mac(purpose, binding, payload), "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    // Canonical base64url only: another spelling of the same bytes is an altered token.
    if (token.slice(dot + 1) !== expected.toString("base64url")) return undefined;
    try {
      return JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      return undefined;
    }
  }
}

/** What a cursor is bound to: its list, the caller's team and the request's canonical filters. */
export interface CursorBinding {
  list: string;
  teamId: string;
  filters: string;
}

function bindingText({ list, teamId, filters }: CursorBinding): string {
  return JSON.stringify([list, teamId, filters]);
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}
