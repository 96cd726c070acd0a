import { closeSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";

export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
}

export interface DataDirLock {
  /** The lock file: `<dataDir>.lock`, beside the data directory. */
  file: string;
  release(): void;
}

interface Holder {
  pid: number;
  hostname: string;
  startedAt: string;
}

/** Lock files this process holds: a second open in the same process is refused too. */
const held = new Set<string>();

function readHolder(file: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, "utf8")) as Partial<Holder>;
    return typeof holder.pid === "number" ? (holder as Holder) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the pid names a running process on this host (EPERM: it runs, as another user). */
function alive(holder: Holder): boolean {
  if (holder.hostname !== hostname()) return true; // another host (a shared volume): never guess
  if (holder.pid === process.pid) return false; // a container restarted with the same pid
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes the embedded database's lock, as PostgreSQL's postmaster.pid does: PGlite has no lock of
 * its own, and two processes on one data directory each see their own copy of it and lose what the
 * other committed. The lock file holds the owner's pid; a lock whose process is gone (a crash, a
 * SIGKILL) is taken over. Released on `release()` and when the process exits.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = `${dataDir.replace(/\/+$/, "")}.lock`;
  if (held.has(file)) {
    throw new DataDirLockedError(`the embedded database in ${dataDir} is already open in this process`);
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readHolder(file);
      if (holder !== undefined && alive(holder)) {
        throw new DataDirLockedError(
          `the embedded database in ${dataDir} is in use by process ${holder.pid} on ${holder.hostname} (since ${holder.startedAt}): ` +
            `stop that process, or set EMBEDDED_DATA_DIR to another folder. If no such process runs, delete ${file}`,
        );
      }
      // Stale (or unreadable): moved aside under our own name, so that two takers cannot both remove it.
      const aside = `${file}.stale-${process.pid}`;
      try {
        renameSync(file, aside);
        rmSync(aside, { force: true });
      } catch {
        // another process took it over first: the next attempt sees its lock
      }
      continue;
    }
    const holder: Holder = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() };
    writeSync(fd, `${JSON.stringify(holder)}\n`);
    closeSync(fd);
    held.add(file);
    const release = () => {
      if (!held.delete(file)) return;
      process.removeListener("exit", release);
      if (readHolder(file)?.pid === process.pid) {
        try {
          unlinkSync(file);
        } catch {
          // already gone
        }
      }
    };
    process.on("exit", release);
    return { file, release };
  }
  throw new DataDirLockedError(`the embedded database in ${dataDir} is being taken by another process; try again`);
}
