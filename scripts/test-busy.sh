#!/bin/sh
# `npm test` beside a CPU-bound job that keeps one core busy the whole time: the suite must pass the
# same, only slower (tests wait for conditions, never for fixed times). `npm run test:busy`.
node -e 'for (;;) {}' &
hog=$!
trap 'kill $hog 2>/dev/null' EXIT INT TERM
npm test
