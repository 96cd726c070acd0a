/** One line of the chart: p99 latency (ms) at each page depth. */
export interface ChartSeries {
  label: string;
  dashed: boolean;
  color: string;
  points: Array<{ depth: string; p99Ms: number }>;
}

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A small self-contained SVG line chart: page depths on x, p99 on y, one line per series. */
export function lineChartSvg(title: string, depths: string[], series: ChartSeries[]): string {
  const width = 720;
  const height = 420;
  const margin = { left: 64, right: 220, top: 48, bottom: 56 };
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const maxValue = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p.p99Ms)));
  const step = niceStep(maxValue / 5);
  const top = Math.ceil(maxValue / step) * step;
  const x = (i: number) => margin.left + (depths.length === 1 ? plotWidth / 2 : (i * plotWidth) / (depths.length - 1));
  const y = (value: number) => margin.top + plotHeight - (value / top) * plotHeight;

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${margin.left}" y="24" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  for (let value = 0; value <= top + step / 2; value += step) {
    parts.push(
      `<line x1="${margin.left}" x2="${margin.left + plotWidth}" y1="${y(value)}" y2="${y(value)}" stroke="#ddd"/>`,
      `<text x="${margin.left - 8}" y="${y(value) + 4}" text-anchor="end">${round(value)}</text>`,
    );
  }
  depths.forEach((depth, i) => {
    parts.push(`<text x="${x(i)}" y="${margin.top + plotHeight + 20}" text-anchor="middle">${escapeXml(depth)}</text>`);
  });
  parts.push(
    `<text x="${margin.left + plotWidth / 2}" y="${height - 12}" text-anchor="middle">page depth</text>`,
    `<text transform="translate(16 ${margin.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">p99 latency (ms)</text>`,
  );
  series.forEach((s, index) => {
    const points = s.points
      .map((p) => ({ i: depths.indexOf(p.depth), v: p.p99Ms }))
      .filter((p) => p.i >= 0)
      .map((p) => `${x(p.i).toFixed(1)},${y(p.v).toFixed(1)}`);
    const dash = s.dashed ? ` stroke-dasharray="6 4"` : "";
    parts.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2"${dash} points="${points.join(" ")}"/>`);
    for (const point of points) {
      const [px, py] = point.split(",");
      parts.push(`<circle cx="${px}" cy="${py}" r="3" fill="${s.color}"/>`);
    }
    const legendY = margin.top + 10 + index * 20;
    const legendX = margin.left + plotWidth + 20;
    parts.push(
      `<line x1="${legendX}" x2="${legendX + 28}" y1="${legendY}" y2="${legendY}" stroke="${s.color}" stroke-width="2"${dash}/>`,
      `<text x="${legendX + 36}" y="${legendY + 4}">${escapeXml(s.label)}</text>`,
    );
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

function niceStep(raw: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const normalized = raw / magnitude;
  return (normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10) * magnitude;
}

const round = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));

/** One group of bars: a label and, per series, a median with its min-max whisker. */
export interface BarGroup {
  label: string;
  bars: Array<{ median: number; min: number; max: number }>;
}

/**
 * A horizontal grouped bar chart (one group per row, one bar per series, a whisker for the
 * spread over the rounds), self-contained SVG.
 */
export function barChartSvg(
  title: string,
  axisLabel: string,
  series: Array<{ label: string; color: string }>,
  groups: BarGroup[],
  options: { clampAt?: number } = {},
): string {
  const barHeight = 9;
  const groupGap = 10;
  const groupHeight = series.length * barHeight + groupGap;
  const margin = { left: 330, right: 40, top: 60, bottom: 44 };
  const plotWidth = 440;
  const width = margin.left + plotWidth + margin.right;
  const height = margin.top + groups.length * groupHeight + margin.bottom;
  const clampAt = options.clampAt ?? Number.POSITIVE_INFINITY;
  const maxValue = Math.min(clampAt, Math.max(1, ...groups.flatMap((g) => g.bars.map((b) => b.max))));
  const step = niceStep(maxValue / 5);
  const top = Math.ceil(maxValue / step) * step;
  // Values past `clampAt` are drawn at the edge, and the bar says its value.
  const x = (value: number) => margin.left + (Math.min(value, top) / top) * plotWidth;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="16" y="24" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  series.forEach((s, i) => {
    const legendX = margin.left + i * 120;
    parts.push(
      `<rect x="${legendX}" y="36" width="14" height="10" fill="${s.color}"/>`,
      `<text x="${legendX + 20}" y="45">${escapeXml(s.label)}</text>`,
    );
  });
  const plotBottom = margin.top + groups.length * groupHeight;
  for (let value = 0; value <= top + step / 2; value += step) {
    parts.push(
      `<line x1="${x(value)}" x2="${x(value)}" y1="${margin.top}" y2="${plotBottom}" stroke="#ddd"/>`,
      `<text x="${x(value)}" y="${plotBottom + 16}" text-anchor="middle">${round(value)}</text>`,
    );
  }
  parts.push(
    `<text x="${margin.left + plotWidth / 2}" y="${height - 10}" text-anchor="middle">${escapeXml(axisLabel)}</text>`,
  );
  groups.forEach((group, g) => {
    const groupTop = margin.top + g * groupHeight;
    parts.push(
      `<text x="${margin.left - 8}" y="${groupTop + (series.length * barHeight) / 2 + 4}" text-anchor="end">${escapeXml(group.label)}</text>`,
    );
    group.bars.forEach((bar, i) => {
      const y = groupTop + i * barHeight;
      const color = series[i]?.color ?? "#888";
      parts.push(
        `<rect x="${margin.left}" y="${y}" width="${Math.max(0, x(bar.median) - margin.left).toFixed(1)}" height="${barHeight - 1}" fill="${color}"/>`,
        `<line x1="${x(bar.min).toFixed(1)}" x2="${x(bar.max).toFixed(1)}" y1="${y + barHeight / 2}" y2="${y + barHeight / 2}" stroke="#333"/>`,
      );
      if (bar.median > top) {
        parts.push(
          `<text x="${x(top) + 4}" y="${y + barHeight - 1}" font-size="9">${round(Number(bar.median.toPrecision(3)))}</text>`,
        );
      }
    });
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}
