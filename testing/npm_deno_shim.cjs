#!/usr/bin/env node
// A stand-in for the `deno` that `npm install -g deno` can put on PATH (the
// package's bin.cjs): a Node process that starts the real binary with the same
// arguments and waits for it, so every Deno process shows twice in the process
// table. testing/npm_shim.ts and .ci/run write it with the real binary's path
// in place of __DENO_EXE__.
"use strict";
const child_process = require("child_process");

const exePath = "__DENO_EXE__";
const result = child_process.spawnSync(exePath, process.argv.slice(2), { stdio: "inherit" });
if (result.error) throw result.error;
process.exit(result.status ?? 1);
