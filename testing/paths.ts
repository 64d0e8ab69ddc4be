/**
 * Where things are in the checkout, for tests and scripts.
 * @module
 */

/** The repository root (no trailing slash). */
export const ROOT: string = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The e2e suite's folder (with a trailing slash): its MCP servers live there. */
export const E2E_DIR = `${ROOT}/tests/e2e/`;
