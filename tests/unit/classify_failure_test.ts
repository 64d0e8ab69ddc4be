import assert from "assert";
import {
  CAPACITY_RETRY_AFTER_MS,
  classifyFailure,
  ERROR_KIND_CLASSES,
} from "../../src/turn/classify_failure.ts";

Deno.test("classifyFailure: bioPolicy (Codex 0.171) is bad_request, not retryable", () => {
  assert.deepEqual(classifyFailure("bioPolicy"), { failureClass: "bad_request", retryable: false });
});

Deno.test("classifyFailure: every string kind of the table gets its class; capacity alone is retryable", () => {
  for (const [kind, cls] of Object.entries(ERROR_KIND_CLASSES)) {
    if (cls === "http") continue;
    const failure = classifyFailure(kind);
    assert.equal(failure.failureClass, cls, kind);
    assert.equal(failure.retryable, cls === "capacity", kind);
    if (cls === "capacity") assert.equal(failure.retryAfterMs, CAPACITY_RETRY_AFTER_MS);
    else assert.equal(failure.retryAfterMs, undefined, `${kind}: no retryAfterMs`);
  }
});

Deno.test("classifyFailure: http kinds by status; unknown kinds and shapes are unknown, not retryable", () => {
  assert.equal(
    classifyFailure({ responseStreamDisconnected: { httpStatusCode: 503 } }).failureClass,
    "capacity",
  );
  assert.equal(
    classifyFailure({ httpConnectionFailed: { httpStatusCode: 401 } }).failureClass,
    "auth",
  );
  assert.equal(
    classifyFailure({ httpConnectionFailed: { httpStatusCode: null } }).failureClass,
    "unknown",
  );
  assert.equal(
    classifyFailure({ activeTurnNotSteerable: { turnKind: "review" } }).failureClass,
    "bad_request",
  );
  for (const odd of ["aNewKind", { aNewKind: {} }, null, 7, "toString", "__proto__"]) {
    assert.deepEqual(classifyFailure(odd), { failureClass: "unknown", retryable: false });
  }
});

Deno.test("classifyFailure: Codex's missing provider key is missing_provider_key with the fix, only when no kind says otherwise", () => {
  const message = "Missing environment variable: `MY_PROVIDER_KEY`.";
  for (const kind of [null, undefined, "other"]) {
    const f = classifyFailure(kind, message);
    assert.equal(f.failureClass, "missing_provider_key");
    assert.equal(f.retryable, false);
    assert.match(f.fix!, /^set MY_PROVIDER_KEY where Codex runs: .*env_vars/);
    // Each client's own way, never a value.
    assert.match(
      f.fix!,
      /Cursor, VS Code: "MY_PROVIDER_KEY": "\$\{env:MY_PROVIDER_KEY\}" in its "env"/,
    );
    assert.match(f.fix!, /Claude Desktop: the key's value in its "env", by hand/);
    assert.match(f.fix!, /Claude Code: set it where claude starts/);
  }
  assert.equal(classifyFailure("unauthorized", message).failureClass, "auth", "a kind wins");
  assert.equal(classifyFailure(null, "Missing something else").failureClass, "unknown");
  assert.equal(
    classifyFailure(null, `x ${message}`).failureClass,
    "unknown",
    "Codex's own words only",
  );
  assert.equal(classifyFailure(null).fix, undefined);
});
