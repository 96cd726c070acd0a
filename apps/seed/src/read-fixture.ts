import { readFile } from "node:fs/promises";
import { type FixtureFile, validateFixture } from "@community/domain";
import { FixtureValidationError } from "./errors";

/**
 * Reads and validates a fixture file. A JSON syntax error or any bad entry throws a
 * FixtureValidationError naming every issue; a file that cannot be read throws the file system
 * error as it is (ENOENT, EACCES, ...), so that callers can tell "fix the path" from "fix the file".
 */
export async function readFixtureFile(filePath: string): Promise<FixtureFile> {
  return parseFixtureText(await readFile(filePath, "utf8"));
}

/** Parses and validates the text of a fixture file. */
export function parseFixtureText(text: string): FixtureFile {
  // Editors on some systems save a byte order mark, which JSON.parse rejects.
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch (error) {
    throw new FixtureValidationError([{ path: "$", message: describeJsonError(source, error) }]);
  }
  const result = validateFixture(data);
  if (!result.ok) {
    throw new FixtureValidationError(result.issues);
  }
  return result.fixture;
}

function describeJsonError(source: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // V8 gives a position for some errors only, and quotes the input (maybe megabytes) for others.
  const located = / in JSON at position (\d+)/.exec(message);
  if (located?.[1] !== undefined) {
    return describeAt(source, message.slice(0, located.index), Number(located[1]));
  }
  const offset = jsonErrorOffset(source);
  if (offset !== undefined) {
    const found = offset < source.length ? `unexpected ${JSON.stringify(source.charAt(offset))}` : "unexpected end";
    return describeAt(source, found, offset);
  }
  return `is not valid JSON: ${message.replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, "")}`;
}

function describeAt(source: string, reason: string, offset: number): string {
  const { line, column } = lineAndColumn(source, offset);
  return `is not valid JSON: ${reason} at line ${line}, column ${column}`;
}

/** 1-based line and column (in UTF-16 code units, as editors count them) of an offset. */
export function lineAndColumn(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf("\n"); i !== -1 && i < offset; i = source.indexOf("\n", i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = ["true", "false", "null"] as const;

/**
 * Offset of the first JSON syntax error (RFC 8259) in `source`, or undefined if there is none or
 * the nesting is too deep to scan. JSON.parse gives no position for some errors, so this scanner
 * finds it; it runs only after JSON.parse has failed.
 */
export function jsonErrorOffset(source: string): number | undefined {
  let i = 0;
  function fail(): never {
    throw new JsonSyntaxAt(i);
  }
  const skipSpace = () => {
    while (i < source.length && " \t\n\r".includes(source.charAt(i))) i++;
  };
  const expect = (char: string) => {
    skipSpace();
    if (source.charAt(i) !== char) fail();
    i++;
  };
  const string = () => {
    expect('"');
    for (;;) {
      if (i >= source.length) fail();
      const code = source.charCodeAt(i);
      if (code === 0x22) {
        i++;
        return;
      }
      if (code < 0x20) fail();
      if (code === 0x5c) {
        i++;
        const escaped = source.charAt(i);
        if (escaped === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(source.slice(i + 1, i + 5))) fail();
          i += 5;
        } else if (escaped !== "" && '"\\/bfnrt'.includes(escaped)) {
          i++;
        } else {
          fail();
        }
      } else {
        i++;
      }
    }
  };
  const value = (): void => {
    skipSpace();
    const char = source.charAt(i);
    if (char === "{") {
      i++;
      skipSpace();
      if (source.charAt(i) === "}") {
        i++;
        return;
      }
      for (;;) {
        string();
        expect(":");
        value();
        skipSpace();
        if (source.charAt(i) === "}") {
          i++;
          return;
        }
        expect(",");
      }
    }
    if (char === "[") {
      i++;
      skipSpace();
      if (source.charAt(i) === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        skipSpace();
        if (source.charAt(i) === "]") {
          i++;
          return;
        }
        expect(",");
      }
    }
    if (char === '"') {
      string();
      return;
    }
    NUMBER.lastIndex = i;
    if (NUMBER.test(source)) {
      i = NUMBER.lastIndex;
      return;
    }
    const literal = LITERALS.find((word) => source.startsWith(word, i));
    if (literal === undefined) fail();
    i += literal.length;
  };

  try {
    value();
    skipSpace();
    if (i < source.length) fail();
    return undefined;
  } catch (error) {
    if (error instanceof JsonSyntaxAt) return error.offset;
    if (error instanceof RangeError) return undefined; // nesting deeper than the call stack
    throw error;
  }
}

class JsonSyntaxAt {
  constructor(readonly offset: number) {}
}
