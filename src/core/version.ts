/**
 * The relay's version, from deno.json.
 * @module
 */

import denoJson from "../../deno.json" with { type: "json" };

/** The version of codex-relay (deno.json `version`). */
export const VERSION: string = denoJson.version;
