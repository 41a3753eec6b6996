#!/usr/bin/env bash
# Proves the production recipe of the Dockerfile works, without Docker: the
# built server and web bundle, the migrations and the package files alone, in a
# fresh folder, with production dependencies only (`npm ci --omit=dev -w server`,
# the same command as the Dockerfile), start with `node server/dist/server.js`
# and answer /healthz, /readyz, /config.json and the web app.
#
#   scripts/prod-smoke.sh            # builds first (npm run build)
#   scripts/prod-smoke.sh --no-build # uses the existing server/dist and web/dist
#
# Takes about a minute and a half here: better-sqlite3 compiles from source
# when no prebuilt binary can be downloaded.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if [ "${1:-}" != "--no-build" ]; then
  npm run build --silent
fi
for f in server/dist/server.js web/dist/index.html migrations/meta/_journal.json; do
  [ -f "$f" ] || { echo "prod-smoke: $f is missing (run npm run build)" >&2; exit 1; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/shower-beer-prod-XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Exactly what the Dockerfile's runtime stage holds.
mkdir -p "$work/server" "$work/web"
cp package.json package-lock.json "$work/"
cp server/package.json "$work/server/"
cp web/package.json "$work/web/"
cp -R server/dist "$work/server/dist"
cp -R web/dist "$work/web/dist"
cp -R migrations "$work/migrations"

echo "prod-smoke: installing production dependencies in $work"
start=$(date +%s)
(cd "$work" && npm ci --omit=dev --workspace=server --no-audit --no-fund --loglevel=error)
echo "prod-smoke: npm ci --omit=dev took $(( $(date +%s) - start )) s"

for dev in typescript tap tsx vite @playwright/test drizzle-kit s3rver; do
  if [ -e "$work/node_modules/$dev" ]; then
    echo "prod-smoke: FAIL: dev dependency $dev was installed" >&2
    exit 1
  fi
done

port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
mkdir -p "$work/data"
(
  cd "$work"
  # A clean environment: nothing from this checkout or shell leaks in.
  exec env -i PATH="$PATH" HOME="$work" HOST=127.0.0.1 PORT="$port" DATA_DIR="$work/data" \
    PUBLIC_URL="http://127.0.0.1:$port" LOG_LEVEL=warn node server/dist/server.js
) &
server_pid=$!

node - "$port" <<'EOF'
const port = process.argv[2];
const base = `http://127.0.0.1:${port}`;
const fail = (msg) => { console.error(`prod-smoke: FAIL: ${msg}`); process.exit(1); };
const deadline = Date.now() + 30_000;
let up = false;
while (Date.now() < deadline && !up) {
  try { up = (await fetch(`${base}/healthz`)).ok; } catch { await new Promise((r) => setTimeout(r, 250)); }
}
if (!up) fail('/healthz did not answer within 30 s');
const ready = await fetch(`${base}/readyz`);
if (ready.status !== 200) fail(`/readyz answered ${ready.status}: ${await ready.text()}`);
const config = await fetch(`${base}/config.json`);
if (config.status !== 200) fail(`/config.json answered ${config.status}`);
const body = await config.json();
if (body.appUrl !== base || typeof body.auth?.authorizeUrl !== 'string') fail(`/config.json is wrong: ${JSON.stringify(body)}`);
const page = await fetch(`${base}/`);
const html = await page.text();
if (page.status !== 200 || !/<div id="root"|<script/i.test(html)) fail(`/ did not serve the web app (${page.status})`);
console.log('prod-smoke: /healthz, /readyz, /config.json and / answer from a production-only install');
EOF
