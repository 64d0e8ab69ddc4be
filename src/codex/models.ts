/**
 * The models Codex offers (`model/list`) and the check of a run's `model`
 * and `effort` against them. `model/list {cursor?, includeHidden?, limit?}`
 * answers `{data: [{id, model, displayName, hidden, isDefault,
 * defaultReasoningEffort, supportedReasoningEfforts: [{reasoningEffort,
 * description}], ...}], nextCursor}` (transcripts 24, Codex 0.169 and 0.171:
 * the bundled catalogue, also with a custom provider).
 * @module
 */

import { RelayError } from "../core/errors.ts";

/** One model of `model/list`, as the relay uses it. */
export interface ModelInfo {
  /** The name `thread/start`'s `model` takes. */
  model: string;
  /** Its catalogue id (the same as `model` in the captures). */
  id: string;
  displayName: string;
  isDefault: boolean;
  defaultEffort: string | null;
  /** The reasoning efforts it supports. */
  efforts: string[];
}

/** One page of `model/list`. */
export interface ModelPage {
  data: ModelInfo[];
  nextCursor: string | null;
}

function fail(what: string): never {
  throw new RelayError("protocol_error", `Unexpected app-server result: ${what}`);
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail(`${what} is not an object`);
  }
  return value as Record<string, unknown>;
}

function text(value: unknown, what: string): string {
  if (typeof value !== "string") fail(`${what} is not a string`);
  return value;
}

/**
 * Parses a `model/list` result; a malformed model (no `model` name, efforts
 * that are not a list) fails `protocol_error`.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const page = parseModelList({
 *   data: [{ id: "m", model: "m", supportedReasoningEfforts: [] }],
 *   nextCursor: null,
 * });
 * assert.equal(page.nextCursor, null);
 * ```
 */
export function parseModelList(value: unknown): ModelPage {
  const page = record(value, "model/list result");
  if (!Array.isArray(page.data)) fail("model/list data is not an array");
  const data = page.data.map((raw, i): ModelInfo => {
    const m = record(raw, `model ${i}`);
    const model = text(m.model, `model ${i} model`);
    const efforts = m.supportedReasoningEfforts ?? [];
    if (!Array.isArray(efforts)) fail(`model ${i} supportedReasoningEfforts is not an array`);
    return {
      model,
      id: typeof m.id === "string" ? m.id : model,
      displayName: typeof m.displayName === "string" ? m.displayName : model,
      isDefault: m.isDefault === true,
      defaultEffort: typeof m.defaultReasoningEffort === "string" ? m.defaultReasoningEffort : null,
      efforts: efforts.map((e, j) =>
        text(record(e, `effort ${j} of model ${i}`).reasoningEffort, `effort ${j} of model ${i}`)
      ),
    };
  });
  const next = page.nextCursor;
  if (next !== null && next !== undefined && typeof next !== "string") {
    fail("model/list nextCursor is not a string");
  }
  return { data, nextCursor: next ?? null };
}

/** The longest list of valid values a refusal names. */
const LISTED = 40;

/**
 * Why `model` and `effort` are not what Codex offers (the message of an
 * `unknown_model` refusal, listing the valid values), or undefined when they
 * are (or were not given). A model is known by its `model` name or its `id`;
 * an effort must be one the model supports, or, without a model, one that
 * some model supports (the thread's own model is not known before the run).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const models = [{ model: "a", id: "a", displayName: "A", isDefault: true,
 *   defaultEffort: "low", efforts: ["low", "high"] }];
 * assert.equal(unknownModel(models, { model: "b" }), 'unknown model "b"; Codex offers: a');
 * ```
 */
export function unknownModel(
  models: readonly ModelInfo[],
  chosen: { model?: string; effort?: string },
): string | undefined {
  let efforts = [...new Set(models.flatMap((m) => m.efforts))];
  if (chosen.model !== undefined) {
    const found = models.find((m) => m.model === chosen.model || m.id === chosen.model);
    if (!found) {
      return `unknown model ${JSON.stringify(chosen.model)}; Codex offers: ${
        list(models.map((m) => m.model))
      }`;
    }
    efforts = found.efforts;
  }
  if (chosen.effort !== undefined && !efforts.includes(chosen.effort)) {
    const of = chosen.model === undefined ? "any model" : `model ${chosen.model}`;
    return `unknown effort ${JSON.stringify(chosen.effort)} for ${of}; valid: ${list(efforts)}`;
  }
  return undefined;
}

function list(values: readonly string[]): string {
  if (values.length === 0) return "(none)";
  const shown = values.slice(0, LISTED).join(", ");
  return values.length > LISTED ? `${shown}, … (${values.length} in all)` : shown;
}
