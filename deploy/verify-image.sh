#!/usr/bin/env bash
# Verifies deploy/Dockerfile without Docker: replays both stages by hand in a
# temporary folder (the build stage's `npm ci` and `npm run build` from the
# files it copies, the runtime stage's copies of the bundle, pglite and htmx),
# then runs the result: `podsync check`, two replicas on a new PostgreSQL
# database, the embedded database, the HEALTHCHECK command, SIGTERM.
# The steps are in test/deploy/image-full.verify.ts; this is not part of `npm test`.
#
#   deploy/verify-image.sh
#   PODSYNC_VERIFY_NODE=/path/to/node24 deploy/verify-image.sh     # the image's Node major
#   PODSYNC_VERIFY_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres deploy/verify-image.sh
#
# npm runs --offline: the packages come from the npm cache that `npm ci` filled.
# Run as root to also run as the image's uid (setpriv) with root-owned image files.
set -euo pipefail
cd "$(dirname "$0")/.."
exec npx vitest run --config test/deploy/vitest.verify.config.ts "$@"
