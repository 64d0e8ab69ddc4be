/**
 * Checks an accepted form answer against the restricted MCP elicitation
 * schema it answers (flat object of string, number, integer, boolean, enum
 * and multi-select properties). Codex passes answers on without checking, so
 * the relay does.
 * @module
 */

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function enumValues(prop: Obj): string[] | undefined {
  if (Array.isArray(prop.enum)) return prop.enum.filter((v): v is string => typeof v === "string");
  for (const key of ["oneOf", "anyOf"]) {
    const list = prop[key];
    if (Array.isArray(list)) {
      return list.filter(isObj).map((o) => o.const).filter((v): v is string =>
        typeof v === "string"
      );
    }
  }
  return undefined;
}

function checkValue(name: string, prop: Obj, value: unknown): string | undefined {
  const type = prop.type;
  if (type === "string") {
    if (typeof value !== "string") return `${name} must be a string`;
    const options = enumValues(prop);
    if (options && !options.includes(value)) return `${name} must be one of ${options.join(", ")}`;
    if (typeof prop.minLength === "number" && value.length < prop.minLength) {
      return `${name} is too short`;
    }
    if (typeof prop.maxLength === "number" && value.length > prop.maxLength) {
      return `${name} is too long`;
    }
    return undefined;
  }
  if (type === "number" || type === "integer") {
    // Stryker disable next-line ConditionalExpression: Number.isFinite is false for every value that is not a number (it does not coerce)
    if (typeof value !== "number" || !Number.isFinite(value)) return `${name} must be a number`;
    if (type === "integer" && !Number.isInteger(value)) return `${name} must be an integer`;
    if (typeof prop.minimum === "number" && value < prop.minimum) {
      return `${name} is below ${prop.minimum}`;
    }
    if (typeof prop.maximum === "number" && value > prop.maximum) {
      return `${name} is above ${prop.maximum}`;
    }
    return undefined;
  }
  if (type === "boolean") {
    return typeof value === "boolean" ? undefined : `${name} must be true or false`;
  }
  if (type === "array") {
    if (!Array.isArray(value)) return `${name} must be a list`;
    const items = isObj(prop.items) ? enumValues(prop.items) : undefined;
    // Stryker disable next-line ConditionalExpression: the allowed items are strings, so a value that is not one is never included
    if (items && value.some((v) => typeof v !== "string" || !items.includes(v))) {
      return `${name} may only hold ${items.join(", ")}`;
    }
    if (typeof prop.minItems === "number" && value.length < prop.minItems) {
      return `${name} has too few items`;
    }
    if (typeof prop.maxItems === "number" && value.length > prop.maxItems) {
      return `${name} has too many items`;
    }
    return undefined;
  }
  return `${name} has a type the relay cannot check`;
}

/**
 * Returns why `content` does not satisfy `schema`, or undefined when it does.
 * Unknown fields are refused: Codex would pass them on unchecked.
 */
export function answerProblem(schema: unknown, content: unknown): string | undefined {
  if (!isObj(schema) || schema.type !== "object") {
    return "The requested schema is not an object schema";
  }
  if (!isObj(content)) return "The answer is not an object";
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((r) => typeof r === "string")
    : [];
  for (const name of required) {
    if (!(name in content)) return `${name} is required`;
  }
  for (const [name, value] of Object.entries(content)) {
    const prop = props[name];
    if (!isObj(prop)) return `${name} is not asked for`;
    const problem = checkValue(name, prop, value);
    if (problem) return problem;
  }
  return undefined;
}
