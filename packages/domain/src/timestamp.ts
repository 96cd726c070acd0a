import type { Timestamp } from "./entities";

/** `YYYY-MM-DDTHH:MM:SSZ`: UTC, second precision, no fraction, no offset (contract section 3). */
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

export function formatTimestamp(date: Date): Timestamp {
  if (Number.isNaN(date.getTime())) {
    throw new RangeError("cannot format an invalid Date");
  }
  const iso = date.toISOString();
  // Years outside 0000-9999 come out as "+010000-..." and slicing would emit a malformed value.
  if (iso.length !== 24) {
    throw new RangeError(`${iso} is outside the years 0000-9999 that a timestamp can express`);
  }
  // Truncates to the second: a stored fraction never reaches the wire.
  return `${iso.slice(0, 19)}Z`;
}

export function formatNullableTimestamp(date: Date | null): Timestamp | null {
  return date === null ? null : formatTimestamp(date);
}

/** True when `value` has the contract's form and names a real instant (no 2026-02-30). */
export function isTimestamp(value: string): value is Timestamp {
  if (!TIMESTAMP_PATTERN.test(value)) {
    return false;
  }
  const date = new Date(value);
  return !Number.isNaN(date.getTime()) && formatTimestamp(date) === value;
}
