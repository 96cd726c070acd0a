/** A one-line progress bar on stderr (redrawn at most ten times a second). */
export function progressBar(label: string): { update(done: number, total: number): void; finish(): void } {
  const started = Date.now();
  let last = 0;
  const draw = (done: number, total: number) => {
    const ratio = total === 0 ? 1 : done / total;
    const width = 30;
    const filled = Math.round(ratio * width);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      `\r${label} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} ${seconds}s`,
    );
  };
  let latest: [number, number] = [0, 0];
  return {
    update(done, total) {
      latest = [done, total];
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      draw(done, total);
    },
    finish() {
      draw(...latest);
      process.stderr.write("\n");
    },
  };
}
