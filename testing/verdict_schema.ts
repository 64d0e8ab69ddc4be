/**
 * The `outputSchema` of transcript 23 (`../shared/codex-protocol/transcripts/`): a verdict, its
 * issues and their count, no other field. One source for the unit, integration and e2e tests of
 * structured answers.
 * @module
 */

/** The verdict schema of transcript 23. */
export const VERDICT_SCHEMA = {
  type: "object",
  properties: {
    verdict: { type: "string", enum: ["pass", "fail"] },
    issues: { type: "array", items: { type: "string" } },
    count: { type: "integer" },
  },
  required: ["verdict", "issues", "count"],
  additionalProperties: false,
};
