#!/usr/bin/env node
// Production entry: runs the bundled CLI (npm ci builds it through "prepare": tsc, then scripts/bundle.js).
import "../dist/podsync.js"
