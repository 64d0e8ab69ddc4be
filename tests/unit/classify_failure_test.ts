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
