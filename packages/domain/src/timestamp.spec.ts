import { formatNullableTimestamp, formatTimestamp, isTimestamp, TIMESTAMP_PATTERN } from "./timestamp";

describe(formatTimestamp.name, () => {
  it("writes UTC with second precision and a Z", () => {
    expect(formatTimestamp(new Date("2026-03-01T18:30:00Z"))).toBe("2026-03-01T18:30:00Z");
    expect(formatTimestamp(new Date("2026-03-01T19:30:00+01:00"))).toBe("2026-03-01T18:30:00Z");
  });

  it("truncates fractions of a second instead of rounding them up", () => {
    expect(formatTimestamp(new Date("2026-03-01T18:30:59.999Z"))).toBe("2026-03-01T18:30:59Z");
    expect(formatTimestamp(new Date(-1))).toBe("1969-12-31T23:59:59Z");
  });

  it("rejects an invalid Date", () => {
    expect(() => formatTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });

  it("rejects years that the four-digit format cannot express, instead of emitting a malformed value", () => {
    expect(formatTimestamp(new Date("9999-12-31T23:59:59Z"))).toBe("9999-12-31T23:59:59Z");
    expect(formatTimestamp(new Date("0000-01-01T00:00:00Z"))).toBe("0000-01-01T00:00:00Z");
    expect(() => formatTimestamp(new Date(Date.UTC(10_000, 0, 1)))).toThrow(RangeError);
    expect(() => formatTimestamp(new Date(Date.UTC(-1, 0, 1)))).toThrow(RangeError);
  });

  it("always produces what isTimestamp accepts", () => {
    for (let ms = -86_400_000; ms < 4e12; ms += 123_456_789_011) {
      const text = formatTimestamp(new Date(ms));
      expect(TIMESTAMP_PATTERN.test(text)).toBe(true);
      expect(isTimestamp(text)).toBe(true);
    }
  });
});

describe(formatNullableTimestamp.name, () => {
  it("keeps null and formats a Date", () => {
    expect(formatNullableTimestamp(null)).toBeNull();
    expect(formatNullableTimestamp(new Date("2026-02-01T09:00:00.500Z"))).toBe("2026-02-01T09:00:00Z");
  });
});

describe(isTimestamp.name, () => {
  it.each(["2026-03-01T18:30:00Z", "2024-02-29T23:59:59Z", "1970-01-01T00:00:00Z"])("accepts %j", (value) => {
    expect(isTimestamp(value)).toBe(true);
  });

  it.each([
    "2026-03-01T18:30:00.000Z",
    "2026-03-01T18:30:00+01:00",
    "2026-03-01T18:30:00+00:00",
    "2026-03-01T18:30:00z",
    "2026-03-01T18:30:00",
    "2026-03-01 18:30:00Z",
    "2026-03-01T18:30Z",
    "2026-02-29T00:00:00Z",
    "2026-02-30T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-03-01T24:00:00Z",
    "2026-03-01T23:60:00Z",
    "2026-03-01T23:59:60Z",
    "+02026-03-01T18:30:00Z",
    "２０２６-03-01T18:30:00Z",
    " 2026-03-01T18:30:00Z",
    "2026-03-01T18:30:00Z\n",
    "",
  ])("rejects %j", (value) => {
    expect(isTimestamp(value)).toBe(false);
  });
});
