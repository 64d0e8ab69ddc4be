import assert from "assert";
import type { Turn } from "../../src/codex/types.ts";
import { isTerminal, observedTurnStatus, TURN_STATUS_WINDOW } from "../../src/reply/mod.ts";
import type { ObservedTurnStatus } from "../../src/reply/schemas.ts";

// Shapes from transcripts/02-read-methods.json and 07-edge-cases.json (subset kept by parseTurn).
const COMPLETED: Turn = {
  id: "01a22a5b-ba9b-7d02-8c1e-00844b7c0488",
  status: "completed",
  error: null,
  completedAt: 1796006984,
};
const FAILED: Turn = {
  id: "01a22a5c-672c-74e3-91c8-a22d6d83c627",
  status: "failed",
  error: {
    message: "We\u2019re currently experiencing high demand, which may cause temporary errors.",
    codexErrorInfo: "internalServerError",
  },
  completedAt: 1796007028,
};
const INTERRUPTED: Turn = {
  id: "01a22a5c-686c-7c53-a2bc-8f285c5ef6c4",
  status: "interrupted",
  error: null,
  completedAt: 1796007029,
};
const RUNNING_ELSEWHERE: Turn = {
  id: "01a22a5c-ae3c-71f1-9a36-8ed58cf8ac75",
  status: "interrupted",
  error: null,
  completedAt: null,
};
const IN_PROGRESS: Turn = {
  id: "01a22a5c-9d76-7942-981d-1902fb02cad3",
  status: "inProgress",
  error: null,
  completedAt: null,
};
const TURNS = [IN_PROGRESS, RUNNING_ELSEWHERE, INTERRUPTED, FAILED, COMPLETED];

function filler(n: number): Turn[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `filler-${i}`,
    status: "completed" as const,
    error: null,
    completedAt: 1796006000 + i,
  }));
}

Deno.test("observedTurnStatus() reports completed and failed as listed, and Codex's inProgress as running", () => {
  assert.equal(observedTurnStatus(TURNS, COMPLETED.id), "completed");
  assert.equal(observedTurnStatus(TURNS, FAILED.id), "failed");
  assert.equal(observedTurnStatus(TURNS, IN_PROGRESS.id), "running");
});

Deno.test("observedTurnStatus() reports interrupted only when completedAt is set", () => {
  assert.equal(observedTurnStatus(TURNS, INTERRUPTED.id), "interrupted");
});

Deno.test("observedTurnStatus() reports interrupted with completedAt null as unverified", () => {
  assert.equal(observedTurnStatus(TURNS, RUNNING_ELSEWHERE.id), "unverified");
  assert.equal(observedTurnStatus([RUNNING_ELSEWHERE], RUNNING_ELSEWHERE.id), "unverified");
});

Deno.test("observedTurnStatus() reports a turn not listed as unverified", () => {
  assert.equal(observedTurnStatus(TURNS, "01a22a5b-0000-7000-8000-000000000000"), "unverified");
  assert.equal(observedTurnStatus([], COMPLETED.id), "unverified");
});

Deno.test("observedTurnStatus() looks only at the newest 50 turn summaries", () => {
  assert.equal(TURN_STATUS_WINDOW, 50);
  const last = [...filler(49), FAILED];
  assert.equal(observedTurnStatus(last, FAILED.id), "failed");
  const beyond = [...filler(50), FAILED];
  assert.equal(observedTurnStatus(beyond, FAILED.id), "unverified");
});

Deno.test("observedTurnStatus() reports a turn listed twice with different statuses as unverified", () => {
  const twice = [{ ...COMPLETED }, { ...COMPLETED, status: "failed" as const }];
  assert.equal(observedTurnStatus(twice, COMPLETED.id), "unverified");
  assert.equal(observedTurnStatus([COMPLETED, { ...COMPLETED }], COMPLETED.id), "completed");
});

Deno.test("isTerminal() is true only for completed, failed and interrupted", () => {
  const table: [ObservedTurnStatus, boolean][] = [
    ["completed", true],
    ["failed", true],
    ["interrupted", true],
    ["running", false],
    ["unverified", false],
  ];
  for (const [status, terminal] of table) assert.equal(isTerminal(status), terminal, status);
});

Deno.test("isTerminal() of a turn running elsewhere is false", () => {
  assert.equal(isTerminal(observedTurnStatus(TURNS, RUNNING_ELSEWHERE.id)), false);
  assert.equal(isTerminal(observedTurnStatus(TURNS, INTERRUPTED.id)), true);
});
