import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { ListContentCoding } from "@community/domain";

/** Bodies below this are sent as they are: compression would save a few hundred bytes at most. */
export const MIN_COMPRESSED_BYTES = 1024;

/**
 * Levels chosen by measurement on 100-item pages (bench/README.md): gzip 1 and brotli 4 already
 * shrink the repetitive JSON to about a tenth, and each page is compressed once per list version
 * (the page cache keeps the result), so higher levels would cost CPU on every miss for little.
 */
const GZIP_LEVEL = 1;
const BROTLI_QUALITY = 4;

const CODING_TOKEN = /^\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*(?:;\s*q\s*=\s*([0-9.]+)\s*)?$/;

/** Accept-Encoding values repeat (every client sends its one header): parse each once. */
const negotiated = new Map<string, ListContentCoding>();
const MAX_REMEMBERED = 64;

/**
 * The content coding of a list page for an Accept-Encoding header (RFC 9110 section 12.5.3): br,
 * else gzip, when the client accepts it with a non-zero q (directly or through `*`); otherwise
 * identity. No header means identity. Brotli first: the bodies come compressed from the page
 * cache, so the smaller one costs no more CPU to send.
 */
export function negotiateContentCoding(acceptEncoding: string | undefined): ListContentCoding {
  if (acceptEncoding === undefined || acceptEncoding === "") return "identity";
  const known = negotiated.get(acceptEncoding);
  if (known !== undefined) return known;
  const coding = parseAcceptEncoding(acceptEncoding);
  if (negotiated.size >= MAX_REMEMBERED) negotiated.clear();
  negotiated.set(acceptEncoding, coding);
  return coding;
}

function parseAcceptEncoding(header: string): ListContentCoding {
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const match = CODING_TOKEN.exec(part);
    if (match === null) continue;
    const q = match[2] === undefined ? 1 : Number(match[2]);
    weights.set((match[1] as string).toLowerCase(), Number.isFinite(q) ? q : 0);
  }
  const weight = (coding: string) => weights.get(coding) ?? weights.get("*") ?? 0;
  const br = weight("br");
  const gzip = Math.max(weight("gzip"), weights.get("x-gzip") ?? 0);
  if (br > 0 && br >= gzip) return "br";
  if (gzip > 0) return "gzip";
  return "identity";
}

/** The body in `coding` (never called with identity). */
export function compress(body: Buffer, coding: Exclude<ListContentCoding, "identity">): Buffer {
  return coding === "gzip"
    ? gzipSync(body, { level: GZIP_LEVEL })
    : brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      });
}
