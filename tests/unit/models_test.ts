/**
 * model/list (transcripts 24) and the unknown_model check of codex_run's and codex_review's
 * model and effort.
 */
import assert from "assert";
import { parseModelList, unknownModel } from "../../src/codex/models.ts";
import { RelayError } from "../../src/core/errors.ts";

const CAPTURED = JSON.parse(
  await Deno.readTextFile(new URL("../../fixtures/models.json", import.meta.url)),
) as Record<string, unknown[]>;

Deno.test("parseModelList: the captured lists of 0.169 and 0.171", () => {
  const old = parseModelList({ data: CAPTURED["0.169.0"], nextCursor: null });
  assert.equal(old.data.length, 9);
  assert.deepEqual(old.data[0], {
    model: "gpt-6.1-sol",
    id: "gpt-6.1-sol",
    displayName: "GPT-6.1-Sol",
    isDefault: true,
    defaultEffort: "low",
    efforts: ["low", "medium", "high", "xhigh", "max", "ultra"],
  });
  const next = parseModelList({ data: CAPTURED["0.171.0"], nextCursor: "5" });
  assert.equal(next.data[0].model, "gpt-6.2-sol");
  assert.equal(next.nextCursor, "5");
});

Deno.test("parseModelList: a malformed answer is protocol_error", () => {
  for (
    const bad of [null, { data: {} }, { data: [{}] }, {
      data: [{ model: "m", supportedReasoningEfforts: "low" }],
    }, { data: [], nextCursor: 5 }]
  ) {
    assert.throws(
      () => parseModelList(bad),
      (e) => e instanceof RelayError && e.reason === "protocol_error",
    );
  }
});

Deno.test("unknownModel: known models and efforts pass; unknown ones list the valid values", () => {
  const models = parseModelList({ data: CAPTURED["0.169.0"] }).data;
  assert.equal(unknownModel(models, {}), undefined);
  assert.equal(unknownModel(models, { model: "gpt-5.5", effort: "xhigh" }), undefined);
  assert.equal(unknownModel(models, { effort: "ultra" }), undefined);
  const model = unknownModel(models, { model: "gpt-4" });
  assert.match(model!, /unknown model "gpt-4"; Codex offers: gpt-6.1-sol, gpt-6-astra, .*gpt-5.5$/);
  const effort = unknownModel(models, { model: "gpt-5.5", effort: "max" });
  assert.equal(effort, 'unknown effort "max" for model gpt-5.5; valid: low, medium, high, xhigh');
  assert.match(
    unknownModel(models, { effort: "extreme" })!,
    /for any model; valid: low, medium, high, xhigh, max, ultra$/,
  );
  assert.match(unknownModel([], { model: "x" })!, /Codex offers: \(none\)/);
});
