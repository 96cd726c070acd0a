// `node scripts/build-quietly.mjs <package>`: builds a workspace package and the packages it uses
// (turbo, cached) and says nothing when that works. The commands run after it (`pnpm cli`,
// `pnpm seed`) write their data to stdout and their errors in one line to stderr; turbo's banner
// and summary (nine lines even when every task is cached) would sit above them. `pnpm start` uses
// it too, so that a start prints a few lines before the api says where it listens. Turbo's output is
// shown, on stderr, when the build fails; a build that takes a while says so once, on stderr.
import { spawn } from "node:child_process";

const [target] = process.argv.slice(2);
if (target === undefined) {
  process.stderr.write("usage: node scripts/build-quietly.mjs <package>\n");
  process.exit(2);
}

const turbo = spawn("turbo", ["run", "build", `--filter=${target}...`, "--output-logs=errors-only"], {
  stdio: ["ignore", "pipe", "pipe"],
  env: { ...process.env, TURBO_PRINT_VERSION_DISABLED: "1", TURBO_TELEMETRY_MESSAGE_DISABLED: "1" },
});
const output = [];
turbo.stdout.on("data", (chunk) => output.push(chunk));
turbo.stderr.on("data", (chunk) => output.push(chunk));
const notice = setTimeout(() => {
  process.stderr.write(`Building ${target} and the packages it uses (the first run, or changed sources)...\n`);
}, 5000);
turbo.on("error", (error) => {
  clearTimeout(notice);
  process.stderr.write(`cannot run turbo: ${error.message}\n`);
  process.exit(1);
});
turbo.on("close", (code) => {
  clearTimeout(notice);
  if (code === 0) return;
  process.stderr.write(Buffer.concat(output));
  process.exit(code ?? 1);
});
