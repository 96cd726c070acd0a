import nodeIcal, { type VEvent } from "node-ical";

// ical.js publishes its types for ES modules only; its CommonJS build (what require loads here)
// exports the same namespace.
type IcalModule = typeof import("ical.js", { with: { "resolution-mode": "import" }}).default;
type IcalTime = InstanceType<IcalModule["Time"]>;
const ICAL: IcalModule = require("ical.js");

/** A VEVENT as a test compares it, whichever parser read it. */
export interface ParsedEvent {
  uid: string;
  summary: string;
  description: string | null;
  start: string;
  end: string;
  stamp: string;
  sequence: number;
  status: string;
  image: string | null;
}

export interface ParsedFeed {
  calendar: Record<string, string>;
  events: ParsedEvent[];
}

/**
 * The feed read by two parsers from the registry, which must agree: ical.js (Mozilla's, as in
 * Thunderbird) and node-ical. node-ical 0.27 reads an escaped backslash followed by `n` as a
 * backslash and a newline (docs/toolchain notes), so texts holding that pair are compared from
 * ical.js alone.
 */
export function parseFeed(text: string): ParsedFeed {
  const root = new ICAL.Component(ICAL.parse(text));
  const calendar: Record<string, string> = {};
  for (const property of root.getAllProperties())
    calendar[property.name.toUpperCase()] = String(property.getFirstValue());
  const events = root.getAllSubcomponents("vevent").map((vevent): ParsedEvent => {
    const time = (name: string) => (vevent.getFirstPropertyValue(name) as IcalTime).toJSDate().toISOString();
    const image = vevent.getFirstProperty("image");
    return {
      uid: String(vevent.getFirstPropertyValue("uid")),
      summary: String(vevent.getFirstPropertyValue("summary")),
      description: (vevent.getFirstPropertyValue("description") as string | null) ?? null,
      start: time("dtstart"),
      end: time("dtend"),
      stamp: time("dtstamp"),
      sequence: Number(vevent.getFirstPropertyValue("sequence")),
      status: String(vevent.getFirstPropertyValue("status")),
      image: image === null ? null : String(image.getFirstValue()),
    };
  });

  const second = nodeIcal.sync.parseICS(text);
  const seen = Object.values(second).filter((component) => component?.type === "VEVENT") as VEvent[];
  if (seen.length !== events.length) throw new Error(`node-ical read ${seen.length} events, ical.js ${events.length}`);
  seen.forEach((event, i) => {
    const mine = events[i] as ParsedEvent;
    const theirs = {
      uid: event.uid,
      summary: textOf(event.summary),
      start: new Date(event.start).toISOString(),
      end: new Date(event.end as Date).toISOString(),
      sequence: Number(event.sequence),
      status: String(event.status),
    };
    const expected = {
      uid: mine.uid,
      summary: mine.summary,
      start: mine.start,
      end: mine.end,
      sequence: mine.sequence,
      status: mine.status,
    };
    if (mine.summary.includes("\\n")) {
      theirs.summary = mine.summary;
    }
    if (JSON.stringify(theirs) !== JSON.stringify(expected)) {
      throw new Error(`the parsers disagree on event ${i}: ${JSON.stringify(theirs)} vs ${JSON.stringify(expected)}`);
    }
    if (
      mine.description !== null &&
      !mine.description.includes("\\n") &&
      textOf(event.description) !== mine.description
    ) {
      throw new Error(`the parsers disagree on the description of event ${i}`);
    }
  });
  return { calendar, events };
}

/** node-ical gives a text with parameters as { val, params }. */
function textOf(value: unknown): string {
  if (typeof value === "object" && value !== null && "val" in value) return String((value as { val: unknown }).val);
  return String(value ?? "");
}
