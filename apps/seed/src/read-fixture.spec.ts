import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { FixtureValidationError } from "./errors";
import { jsonErrorOffset, lineAndColumn, parseFixtureText, readFixtureFile } from "./read-fixture";
import { smallFixture } from "./testing/fixtures";

function issuesOf(text: string) {
  try {
    parseFixtureText(text);
  } catch (error) {
    expect(error).toBeInstanceOf(FixtureValidationError);
    return (error as FixtureValidationError).issues;
  }
  throw new Error("expected the text to be rejected");
}

describe(readFixtureFile.name, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "read-fixture-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("returns the validated fixture of a good file", async () => {
    const file = path.join(dir, "good.json");
    await writeFile(file, JSON.stringify(smallFixture()));
    await expect(readFixtureFile(file)).resolves.toEqual(smallFixture());
  });

  it("accepts a file saved with a byte order mark", async () => {
    const file = path.join(dir, "bom.json");
    await writeFile(file, `\uFEFF${JSON.stringify(smallFixture())}`);
    await expect(readFixtureFile(file)).resolves.toEqual(smallFixture());
  });

  it("passes file system errors through, so that a wrong path is not mistaken for a bad file", async () => {
    await expect(readFixtureFile(path.join(dir, "absent.json"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe(parseFixtureText.name, () => {
  it("names a JSON syntax error at path $ with line and column", () => {
    expect(issuesOf('{\n  "accounts": [],\n}')).toEqual([
      { path: "$", message: "is not valid JSON: Expected double-quoted property name at line 3, column 1" },
    ]);
  });

  it("locates errors for which JSON.parse gives no position, without echoing the input", () => {
    expect(issuesOf('{\n  "accounts": [\n    { "id": tru }\n  ]\n}')).toEqual([
      { path: "$", message: 'is not valid JSON: unexpected "t" at line 3, column 13' },
    ]);
  });

  it("reports an empty file", () => {
    expect(issuesOf("")).toEqual([{ path: "$", message: "is not valid JSON: unexpected end at line 1, column 1" }]);
  });

  it("collects every validation issue of the content", () => {
    const fixture = smallFixture() as unknown as Record<string, unknown[]>;
    (fixture.events?.[0] as Record<string, unknown>).duration_seconds = -1;
    (fixture.accounts?.[1] as Record<string, unknown>).profile_image_url = "ftp://images.example.com/x.png";
    const issues = issuesOf(JSON.stringify(fixture));
    expect(issues).toEqual([
      { path: "accounts[1].profile_image_url", message: "must be an absolute http:// or https:// URL" },
      { path: "events[0].duration_seconds", message: "must be >= 0" },
    ]);
  });
});

describe(jsonErrorOffset.name, () => {
  // The scanner must agree with JSON.parse on what is valid, or it would blame the wrong spot.
  it.each([
    "{}",
    "[]",
    ' { "a" : [ 1 , -2.5e+3 , true , false , null , "x\\u00e9\\n" ] } ',
    '"just a string"',
    "0",
    "{",
    "[1,]",
    '{"a":1,}',
    "01",
    "1.",
    "-",
    '"\\x"',
    '"tab\there"',
    "nul",
    "{} {}",
    '{"a" 1}',
    "[1 2]",
    '"\\u12G4"',
  ])("agrees with JSON.parse on %j", (text) => {
    let valid = true;
    try {
      JSON.parse(text);
    } catch {
      valid = false;
    }
    expect(jsonErrorOffset(text) === undefined).toBe(valid);
  });

  it("points at the first offending character", () => {
    expect(jsonErrorOffset("[1, 2,]")).toBe(6);
    expect(jsonErrorOffset('{"a": tru}')).toBe(6);
    expect(jsonErrorOffset("{} x")).toBe(3);
  });

  it("converts an offset to a 1-based line and column", () => {
    expect(lineAndColumn("ab\ncd\nef", 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn("ab\ncd\nef", 4)).toEqual({ line: 2, column: 2 });
    expect(lineAndColumn("ab\ncd\nef", 6)).toEqual({ line: 3, column: 1 });
  });
});
