/**
 * The relay's version, from deno.json.
 * @module
 */

import denoJson from "../../deno.json" with { type: "json" };

/**
 * The version of codex-relay (deno.json `version`).
 *
 * @example Name the version in a log line
 * ```ts
 * import assert from "assert";
 * import { VERSION } from "@codex-relay/cli";
 * assert.match(VERSION, /^\d+\.\d+\.\d+/);
 * ```
 */
export const VERSION: string = denoJson.version;
