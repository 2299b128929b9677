#!/usr/bin/env node
// Production entry: runs the compiled CLI (npm ci builds it through "prepare").
import "../dist/src/main.js"
