/**
 * Characters a terminal acts on rather than prints: the C0 controls (ESC starts the sequences that
 * retitle a window, clear the screen or write to the clipboard), DEL and the C1 controls (0x9b is
 * CSI on its own), which are Unicode's Cc; and the bidirectional controls that make text read
 * differently from what it is.
 */
const CONTROL = /[\p{Cc}\p{Bidi_Control}]/gu;
const CONTROL_KEEPING_LINES = /(?![\t\n])[\p{Cc}\p{Bidi_Control}]/gu;

const visible = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** Server text made inert for a terminal: every control character shown as `\uXXXX`. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, visible);
}

/** As escapeControls, but tabs and line feeds stay (CSV quotes them; they move no cursor back). */
export function escapeControlsKeepingLines(text: string): string {
  return text.replace(CONTROL_KEEPING_LINES, visible);
}

/**
 * JSON.stringify escapes C0 inside strings but writes DEL, C1 and the bidirectional controls as
 * they are: escape those too (its own raw characters are only the line feeds of the layout).
 */
export function escapeJsonControls(json: string): string {
  return json.replace(CONTROL_KEEPING_LINES, visible);
}
