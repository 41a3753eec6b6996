#!/usr/bin/env bash
# npm run test:e2e:compose — the browser suite against the self-hosted stack,
# on a machine with Docker (Compose v2). What .github/workflows/compose-e2e.yml
# does on GitHub, for you locally:
#   1. writes .env with random secrets if there is none yet,
#   2. builds and starts compose.yaml as a separate project (shower-beer-e2e), so
#      its test users and photos never land in your own stack's volumes,
#   3. runs the Playwright suite with E2E_BASE_URL=<APP_PUBLIC_URL>,
#   4. removes that project's containers and volumes, whatever happened.
# Extra arguments go to Playwright, e.g.  npm run test:e2e:compose -- tests/e2e/auth.spec.ts
set -euo pipefail
cd "$(dirname "$0")/.."

if ! docker compose version >/dev/null 2>&1; then
  echo "test:e2e:compose needs Docker with Compose v2 (\`docker compose\`)." >&2
  echo "Without Docker, \`npm run test:e2e\` runs the same suite against the embedded stack." >&2
  exit 1
fi

if [ ! -f .env ]; then
  secret() { node -e "console.log(require('crypto').randomBytes(24).toString('hex'))"; }
  umask 077
  cat > .env <<ENV
KC_BOOTSTRAP_ADMIN_USERNAME=admin
KC_BOOTSTRAP_ADMIN_PASSWORD=$(secret)
S3_ACCESS_KEY=shower-beer
S3_SECRET_KEY=$(secret)
APP_PUBLIC_URL=http://localhost:3000
KEYCLOAK_PUBLIC_URL=http://localhost:8080
S3_PUBLIC_ENDPOINT=http://localhost:9000
ENV
  echo "Wrote .env with random secrets (keep it private; it is in .gitignore)."
fi

app_url="$(sed -n 's/^APP_PUBLIC_URL=//p' .env | tail -n 1)"
export E2E_BASE_URL="${app_url:-http://localhost:3000}"

compose=(docker compose --project-name shower-beer-e2e)
cleanup() {
  local status=$?
  if [ "$status" -ne 0 ]; then "${compose[@]}" logs --no-color --tail 200 || true; fi
  "${compose[@]}" down --volumes --remove-orphans || true
  exit "$status"
}
trap cleanup EXIT

# Sign-ups all come from this machine: lift the per-user write limit for the test project only.
RATE_LIMIT_WRITES_PER_MINUTE=10000 "${compose[@]}" up -d --build --wait --wait-timeout 600

# playwright.config.ts launches CHROMIUM_PATH (default /usr/bin/chromium); without
# one, use the browser Playwright installed (npx playwright install chromium).
if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ]; then
  CHROMIUM_PATH="$(node -e "import('@playwright/test').then((m) => console.log(m.chromium.executablePath()))")"
  export CHROMIUM_PATH
fi

npx playwright test "$@"
