/**
 * Where things are in the checkout, for tests and scripts.
 * @module
 */

import { fileURLToPath } from "node:url";

/** The repository root (no trailing slash; a native path, also on Windows). */
export const ROOT: string = fileURLToPath(new URL("..", import.meta.url)).replace(/[/\\]$/, "");

/** The e2e suite's folder (with a trailing slash): its MCP servers live there. */
export const E2E_DIR = `${ROOT}/tests/e2e/`;
