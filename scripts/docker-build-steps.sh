#!/usr/bin/env bash
# Runs the Dockerfile's stages without a Docker engine, to prove that the image builds and that
# its runtime stage holds what the api, the migrations and the seed need.
#
# It reads the Dockerfile itself (FROM, WORKDIR, ENV, COPY, RUN), so the steps cannot drift from
# it: each stage becomes a folder under a temporary directory, COPY copies from the build context
# (the repository's files as `git ls-files` sees them, less .dockerignore) or from an earlier
# stage's folder, and RUN runs in the stage's WORKDIR with the stage's ENV. Instructions outside
# that subset fail loudly. Differences from a real build, on purpose:
#   - the base image is this machine: its Node major must match the FROM image's tag;
#   - `RUN npm install -g pnpm@X` is skipped when pnpm X is already installed;
#   - RUN --mount flags are dropped and pnpm uses this machine's store (no second download);
#   - USER only applies to the checks: they run as uid 1000 (the image's `node`) when run as root.
#
# Usage: scripts/docker-build-steps.sh [--keep] [--smoke ADMIN_DATABASE_URL]
#        scripts/docker-build-steps.sh --list-context
#   --keep          keep the temporary directory (its path is printed)
#   --smoke URL     also, in the runtime stage: create a scratch database through URL (for example
#                   postgresql://postgres@127.0.0.1:5432/postgres), run `pnpm db:migrate`, the demo
#                   seed and the image's CMD, request the api, then drop the database
#   --list-context  print the build context's files (one a line) and exit
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DOCKERFILE="$ROOT/Dockerfile"
KEEP=0
SMOKE_URL=""
LIST_ONLY=0

while [[ $# -gt 0 ]]; do
  case "$1" in
    --keep) KEEP=1 ;;
    --smoke) SMOKE_URL="${2:?--smoke needs an admin database URL}"; shift ;;
    --list-context) LIST_ONLY=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

log() { printf '\n==> %s\n' "$*" >&2; }
die() { printf 'docker-build-steps: %s\n' "$*" >&2; exit 1; }

# The build context: tracked and untracked-but-not-gitignored files that still exist, less what
# .dockerignore excludes (Docker's rules: last matching pattern wins, `!` re-includes, a pattern
# that matches a folder excludes what is inside it, `**` spans folders).
context_files() (
  cd "$ROOT"
  # shellcheck disable=SC2016 # JavaScript, not shell
  git ls-files -z --cached --others --exclude-standard | node -e '
    const fs = require("node:fs");
    const toRegExp = (glob) => {
      let re = "";
      for (let i = 0; i < glob.length; i++) {
        const c = glob[i];
        if (c === "*" && glob[i + 1] === "*") {
          if (glob[i + 2] === "/") { re += "(?:.*/)?"; i += 2; } else { re += ".*"; i += 1; }
        } else if (c === "*") re += "[^/]*";
        else if (c === "?") re += "[^/]";
        else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
      }
      return new RegExp(`^${re}$`);
    };
    const ignoreFile = ".dockerignore";
    const rules = (fs.existsSync(ignoreFile) ? fs.readFileSync(ignoreFile, "utf8") : "")
      .split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith("#"))
      .map((l) => {
        const negate = l.startsWith("!");
        const glob = (negate ? l.slice(1) : l).trim().replace(/^\.?\//, "").replace(/\/+$/, "");
        return { negate, re: toRegExp(glob) };
      });
    const ignored = (file) => {
      const parts = file.split("/");
      const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
      let out = false;
      for (const { negate, re } of rules) if (prefixes.some((p) => re.test(p))) out = !negate;
      return out;
    };
    const files = fs.readFileSync(0, "utf8").split("\0").filter(Boolean);
    for (const f of [...new Set(files)].sort()) if (fs.existsSync(f) && !ignored(f)) console.log(f);
  '
)

if [[ $LIST_ONLY == 1 ]]; then
  context_files
  exit 0
fi

[[ -f $DOCKERFILE ]] || die "no Dockerfile at $DOCKERFILE"
command -v node >/dev/null || die "node is required"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/docker-build-steps.XXXXXX")"
chmod 755 "$WORK" # the checks run as uid 1000
API_PID=""
SMOKE_DB=""
cleanup() {
  local status=$?
  if [[ -n $API_PID ]]; then kill "$API_PID" 2>/dev/null || true; wait "$API_PID" 2>/dev/null || true; fi
  if [[ -n $SMOKE_DB ]]; then psql "$SMOKE_URL" -qc "DROP DATABASE IF EXISTS \"$SMOKE_DB\" WITH (FORCE)" >/dev/null 2>&1 || true; fi
  if [[ $KEEP == 1 ]]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
  exit "$status"
}
trap cleanup EXIT

log "build context -> $WORK/context"
mkdir -p "$WORK/context"
context_files | tr '\n' '\0' | (cd "$ROOT" && tar --null -cf - -T -) | tar -xf - -C "$WORK/context"

# --- Dockerfile -> one instruction per element (continuations joined, comments dropped) ---------
INSTRUCTIONS=()
buf=""
while IFS= read -r line || [[ -n $line ]]; do
  if [[ $line =~ ^[[:space:]]*# || ( -z $buf && $line =~ ^[[:space:]]*$ ) ]]; then continue; fi
  if [[ $line =~ \\[[:space:]]*$ ]]; then
    buf+="${line%\\*} "
    continue
  fi
  buf+="$line"
  INSTRUCTIONS+=("$buf")
  buf=""
done <"$DOCKERFILE"
[[ -z $buf ]] || die "Dockerfile ends inside a line continuation"

declare -A STAGE_DIR=() STAGE_WORKDIR=() STAGE_ENV=()
STAGE=""
STAGE_COUNT=0
LAST_CMD=""
LAST_USER=""

stage_root() { printf '%s' "${STAGE_DIR[$STAGE]}"; }
resolve_in_stage() { # path relative to the current WORKDIR -> folder on this machine
  local p="$1"
  [[ $p == /* ]] || p="${STAGE_WORKDIR[$STAGE]%/}/$p"
  printf '%s%s' "$(stage_root)" "$p"
}

pnpm_store=""
host_pnpm_store() {
  if [[ -z $pnpm_store ]] && command -v pnpm >/dev/null; then
    pnpm_store="$(cd "$WORK" && env -u PNPM_HOME pnpm store path)"
  fi
  printf '%s' "$pnpm_store"
}

# Runs "$@" in the current stage's WORKDIR with its ENV (and this machine's pnpm store). Changes
# the caller's directory and environment: call it in a subshell, as in_stage does.
enter_stage() {
  cd "$(resolve_in_stage .)"
  # shellcheck disable=SC1090
  source "${STAGE_ENV[$STAGE]}"
  local store
  store="$(host_pnpm_store)"
  if [[ -n $store ]]; then export npm_config_store_dir="$store"; fi
  "$@"
}
in_stage() { (enter_stage "$@"); }

do_from() {
  local image="$1" as="${3:-}"
  [[ -z ${3:-} || ${2,,} == as ]] || die "cannot read: FROM $*"
  STAGE_COUNT=$((STAGE_COUNT + 1))
  local name="${as:-stage$STAGE_COUNT}"
  local dir="$WORK/stages/$name"
  mkdir -p "$dir"
  STAGE_ENV[$name]="$WORK/stages/$name.env"
  if [[ -n ${STAGE_DIR[$image]:-} ]]; then
    cp -a "${STAGE_DIR[$image]}/." "$dir/"
    cp "${STAGE_ENV[$image]}" "${STAGE_ENV[$name]}"
    STAGE_WORKDIR[$name]="${STAGE_WORKDIR[$image]}"
  else
    if [[ $image =~ ^node:([0-9]+) ]]; then
      local want="${BASH_REMATCH[1]}" have
      have="$(node -p 'process.versions.node.split(".")[0]')"
      [[ $have == "$want" ]] || die "FROM $image needs Node $want; this machine has Node $have"
    fi
    : >"${STAGE_ENV[$name]}"
    STAGE_WORKDIR[$name]="/"
  fi
  STAGE_DIR[$name]="$dir"
  STAGE="$name"
}

do_copy() {
  local from="" args=()
  for word in "$@"; do
    case "$word" in
      --from=*) from="${word#--from=}" ;;
      --chown=* | --chmod=* | --link) ;; # ownership and layering do not change what is copied
      --*) die "COPY option not supported here: $word" ;;
      *) args+=("$word") ;;
    esac
  done
  [[ ${#args[@]} -ge 2 ]] || die "COPY needs a source and a destination: COPY $*"
  local dest="${args[-1]}" srcs=("${args[@]:0:${#args[@]}-1}")
  local src_root
  if [[ -n $from ]]; then
    src_root="${STAGE_DIR[$from]:-}"
    [[ -n $src_root ]] || die "COPY --from=$from: no such stage"
  else
    src_root="$WORK/context"
  fi
  local target
  target="$(resolve_in_stage "$dest")"
  local as_dir=0
  [[ $dest == */ || $dest == . || ${#srcs[@]} -gt 1 ]] && as_dir=1
  for src in "${srcs[@]}"; do
    [[ $src == *[\*\?\[]* ]] && die "COPY globs are not supported here: $src"
    local path="$src_root/${src#/}"
    [[ -e $path || -L $path ]] || die "COPY ${from:+--from=$from }$src: not found"
    if [[ -d $path && ! -L $path ]]; then
      mkdir -p "$target"
      cp -a "$path/." "$target/"
    elif [[ $as_dir == 1 || -d $target ]]; then
      mkdir -p "$target"
      cp -a "$path" "$target/"
    else
      mkdir -p "$(dirname "$target")"
      cp -a "$path" "$target"
    fi
  done
}

do_run() {
  local cmd="$*"
  while [[ $cmd =~ ^--(mount|network|security)=[^[:space:]]+[[:space:]]+(.*)$ ]]; do
    cmd="${BASH_REMATCH[2]}"
  done
  [[ $cmd != \[* ]] || die "RUN in exec form is not supported here: $cmd"
  if [[ $cmd =~ ^npm\ install\ -g\ pnpm@([^[:space:]]+)$ ]]; then
    local want="${BASH_REMATCH[1]}"
    if [[ "$(pnpm --version 2>/dev/null || true)" == "$want" ]]; then
      echo "pnpm $want is already installed" >&2
      return
    fi
  fi
  in_stage sh -c "$cmd"
}

for instruction in "${INSTRUCTIONS[@]}"; do
  read -r keyword rest <<<"$instruction"
  keyword="${keyword^^}"
  [[ $keyword == FROM || -n $STAGE ]] || die "$keyword before the first FROM"
  case "$keyword" in
    FROM)
      # shellcheck disable=SC2086
      do_from $rest
      log "stage $STAGE (FROM $rest)"
      ;;
    WORKDIR)
      STAGE_WORKDIR[$STAGE]="$(
        [[ $rest == /* ]] && printf '%s' "$rest" || printf '%s/%s' "${STAGE_WORKDIR[$STAGE]%/}" "$rest"
      )"
      mkdir -p "$(resolve_in_stage .)"
      ;;
    ENV)
      [[ $rest =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "ENV must use KEY=value: ENV $rest"
      printf 'export %s\n' "$rest" >>"${STAGE_ENV[$STAGE]}"
      ;;
    COPY)
      echo "COPY $rest" >&2
      # shellcheck disable=SC2086
      do_copy $rest
      ;;
    RUN)
      echo "RUN $rest" >&2
      do_run "$rest"
      ;;
    USER) LAST_USER="$rest" ;;
    CMD) LAST_CMD="$rest" ;;
    EXPOSE | LABEL | HEALTHCHECK | STOPSIGNAL) ;;
    *) die "instruction not supported here: $keyword $rest" ;;
  esac
done

# --- checks on the last stage: what the image runs ---------------------------------------------
log "checks in the runtime stage ($STAGE, USER ${LAST_USER:-root})"

# Checks run as the image's user (uid 1000 is `node` in the node images). It execs, so that a
# background job's pid is the command's own.
as_image_user() {
  if [[ $(id -u) == 0 && ${LAST_USER:-root} != root ]]; then
    exec setpriv --reuid=1000 --regid=1000 --clear-groups env HOME="$WORK/home" "$@"
  else
    exec env HOME="$WORK/home" "$@"
  fi
}
mkdir -p "$WORK/home"
[[ $(id -u) != 0 ]] || chown 1000:1000 "$WORK/home"

cmd_words="$(node -e 'for (const w of JSON.parse(process.argv[1])) console.log(w)' "$LAST_CMD" 2>/dev/null)" ||
  die "CMD must be in exec form (a JSON array): $LAST_CMD"
mapfile -t cmd <<<"$cmd_words"
[[ ${cmd[0]:-} == node && ${#cmd[@]} -ge 2 ]] || die "CMD should be [\"node\", <node flags>..., \"<entry point>\"]: $LAST_CMD"
entry="${cmd[-1]}"

failures=0
check() { # description, command...
  local what="$1"
  shift
  if in_stage as_image_user "$@" >"$WORK/check.log" 2>&1; then
    echo "ok   $what" >&2
  else
    echo "FAIL $what" >&2
    sed 's/^/     /' "$WORK/check.log" >&2
    failures=$((failures + 1))
  fi
}

check "CMD entry point $entry exists" test -f "$entry"
check "seed CLI apps/seed/dist/cli.js exists" test -f apps/seed/dist/cli.js
check "prisma CLI resolves from packages/db" \
  node -e 'console.log(require.resolve("prisma/build/index.js", { paths: ["packages/db"] }))'
check "prisma/migrations ships with the image" test -f prisma/migrations/migration_lock.toml
check "no devDependency is installed (typescript, jest)" \
  node -e 'for (const m of ["typescript", "jest"]) { let found = false; try { require.resolve(m, { paths: ["apps/api", "."] }); found = true } catch {} if (found) { console.error(m + " is installed"); process.exit(1) } }'
check "@community/db loads with production dependencies" \
  node -e 'const db = require(require.resolve("@community/db", { paths: ["apps/api"] })); if (typeof db.createDatabase !== "function") process.exit(1)'
check "prisma.config.ts loads: prisma validate through pnpm" \
  env DATABASE_URL=postgresql://unused@localhost/unused pnpm --filter @community/db exec prisma validate

if [[ -n $SMOKE_URL ]]; then
  command -v psql >/dev/null || die "--smoke needs psql"
  log "smoke run against a scratch database"
  SMOKE_DB="docker_build_steps_$$"
  psql "$SMOKE_URL" -qc "CREATE DATABASE \"$SMOKE_DB\"" >/dev/null
  db_url="$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; console.log(u.href)' "$SMOKE_URL" "$SMOKE_DB")"
  port="$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')"
  check "pnpm db:migrate (compose service migrate)" env DATABASE_URL="$db_url" pnpm db:migrate
  check "node apps/seed/dist/cli.js --demo (compose service seed)" env DATABASE_URL="$db_url" node apps/seed/dist/cli.js --demo
  # A background function runs in its own subshell, which as_image_user replaces with the api.
  enter_stage as_image_user env DATABASE_URL="$db_url" PORT="$port" "${cmd[@]}" >"$WORK/api.log" 2>&1 &
  API_PID=$!
  status=""
  for _ in $(seq 1 60); do
    status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/me/community/team/events" || true)"
    [[ $status != 000 ]] && break
    kill -0 "$API_PID" 2>/dev/null || break
    sleep 0.5
  done
  if [[ $status == 401 ]]; then
    echo "ok   api (CMD) refuses GET /v1/me/community/team/events without a token: HTTP $status" >&2
    # The demo seed's token for the runners team (apps/seed/src/demo.ts) must now see its events.
    token="$(in_stage node -p 'require(require.resolve("@community/seed", { paths: ["apps/api"] })).DEMO_TOKENS.runners.token')"
    status="$(curl -s -o "$WORK/events.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
      "http://127.0.0.1:$port/v1/me/community/team/events" || true)"
    if [[ $status == 200 ]]; then
      echo "ok   api serves the demo team's events with a demo token: HTTP 200, $(wc -c <"$WORK/events.json") bytes" >&2
    else
      echo "FAIL api answered HTTP $status with a demo token:" >&2
      sed 's/^/     /' "$WORK/events.json" "$WORK/api.log" >&2
      failures=$((failures + 1))
    fi
  else
    echo "FAIL api (CMD) did not answer 401 without a token (HTTP ${status:-none}); its output:" >&2
    sed 's/^/     /' "$WORK/api.log" >&2
    failures=$((failures + 1))
  fi
fi

if [[ $failures -gt 0 ]]; then
  die "$failures check(s) failed"
fi
log "all Dockerfile steps ran and every check passed"
