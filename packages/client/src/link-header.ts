/**
 * The targets of an RFC 8288 Link header by relation (the first link of each relation wins),
 * resolved against the URL of the response. Parsing stops at the first malformed link: what a
 * server got wrong is dropped rather than guessed at.
 */
export function parseLinkHeader(header: string, base: string): Map<string, string> {
  const targets = new Map<string, string>();
  let i = 0;
  const skip = (chars: string) => {
    while (i < header.length && chars.includes(header.charAt(i))) i++;
  };
  while (i < header.length) {
    skip(" \t,");
    if (i >= header.length) break;
    if (header[i] !== "<") break;
    const end = header.indexOf(">", i);
    if (end < 0) break;
    const reference = header.slice(i + 1, end);
    i = end + 1;
    const rels: string[] = [];
    for (skip(" \t"); header[i] === ";"; skip(" \t")) {
      i++;
      skip(" \t");
      const name = /^[!#$%&'*+.^_`|~0-9A-Za-z-]*/.exec(header.slice(i))?.[0] ?? "";
      i += name.length;
      skip(" \t");
      let value = "";
      if (header[i] === "=") {
        i++;
        skip(" \t");
        if (header[i] === '"') {
          for (i++; i < header.length && header[i] !== '"'; i++)
            value += header[i] === "\\" ? header.charAt(++i) : header.charAt(i);
          i++;
        } else {
          value = /^[^;,\s]*/.exec(header.slice(i))?.[0] ?? "";
          i += value.length;
        }
      }
      if (name.toLowerCase() === "rel" && rels.length === 0) rels.push(...value.toLowerCase().split(/\s+/));
    }
    let target: string;
    try {
      target = new URL(reference, base).toString();
    } catch {
      continue;
    }
    for (const rel of rels) if (rel !== "" && !targets.has(rel)) targets.set(rel, target);
  }
  return targets;
}
