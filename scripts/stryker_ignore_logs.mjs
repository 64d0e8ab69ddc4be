/**
 * A Stryker ignorer: mutants inside calls to the relay's logger
 * (`log.info(...)`, `this.#log.warn(...)`) are not generated. Log lines are
 * stderr diagnostics, never part of a result; what they must never contain
 * (message or reply text) is tested separately on the relay's real stderr.
 * No imports: a plugin is a plain `{kind, name, value}` object.
 */

const LOGGER_METHODS = new Set(["debug", "info", "warn", "error"]);

function isLogger(node) {
  if (node.type === "Identifier") return node.name === "log";
  return node.type === "MemberExpression" && node.property.type === "PrivateName" &&
    node.property.id.name === "log";
}

export const strykerPlugins = [{
  kind: "Ignore",
  name: "log-calls",
  value: {
    shouldIgnore(path) {
      const node = path.node;
      if (
        node.type === "CallExpression" && node.callee.type === "MemberExpression" &&
        node.callee.property.type === "Identifier" &&
        LOGGER_METHODS.has(node.callee.property.name) &&
        isLogger(node.callee.object)
      ) {
        return "A log line (stderr diagnostics)";
      }
      return undefined;
    },
  },
}];
