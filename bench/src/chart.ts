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
