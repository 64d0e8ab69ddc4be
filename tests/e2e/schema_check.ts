/**
 * A small JSON Schema (draft-07 subset) reader for the protocol drift check: it validates sample
 * values the relay sends against a schema, and resolves field paths of values the relay reads to
 * the types and enum values the schema allows there.
 *
 * It understands what `codex app-server generate-json-schema` emits: `$ref` (JSON pointers into
 * the same document), `type` (one or a list), `enum`, `const`, `properties`, `required`,
 * `additionalProperties`, `items`, `anyOf`, `oneOf`, `allOf`, `minimum`. Other keywords are
 * ignored.
 *
 * @module
 */

/** A JSON Schema node (or a boolean schema). */
export type Schema = boolean | Record<string, unknown>;

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A schema document whose `$ref`s point into itself. */
export class SchemaDoc {
  constructor(readonly root: Obj) {}

  /** The node at a JSON pointer such as `#/definitions/v2/Thread`. */
  pointer(ref: string): Schema {
    if (!ref.startsWith("#")) throw new Error(`Unsupported $ref ${ref}`);
    let node: unknown = this.root;
    for (const raw of ref.slice(1).split("/").filter(Boolean)) {
      const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
      if (!isObj(node) || !(key in node)) throw new Error(`Dangling $ref ${ref}`);
      node = node[key];
    }
    if (typeof node !== "boolean" && !isObj(node)) throw new Error(`$ref ${ref} is no schema`);
    return node as Schema;
  }

  /** Follows `$ref` chains. */
  deref(s: Schema): Schema {
    let cur = s;
    for (let i = 0; i < 64 && isObj(cur) && typeof cur.$ref === "string"; i++) {
      cur = this.pointer(cur.$ref);
    }
    return cur;
  }

  /**
   * Errors (empty when valid) of `value` against `schema`. With `strict`, an object key that the
   * schema does not declare is an error even where additional properties are allowed: a field
   * the relay sends must be one Codex knows (a renamed field would otherwise be ignored).
   */
  validate(schema: Schema, value: unknown, strict = true, at = "$"): string[] {
    const s = this.deref(schema);
    if (s === true) return [];
    if (s === false) return [`${at}: no value is allowed here`];
    const errors: string[] = [];
    if (Array.isArray(s.allOf)) {
      for (const sub of s.allOf as Schema[]) errors.push(...this.validate(sub, value, strict, at));
    }
    for (const key of ["anyOf", "oneOf"] as const) {
      const alts = s[key];
      if (!Array.isArray(alts)) continue;
      const results = (alts as Schema[]).map((a) => this.validate(a, value, strict, at));
      const ok = results.filter((r) => r.length === 0).length;
      if (ok === 0) {
        const best = results.reduce((a, b) => (b.length < a.length ? b : a));
        errors.push(`${at}: matches no ${key} branch (closest: ${best.join("; ")})`);
      } else if (key === "oneOf" && ok > 1) {
        errors.push(`${at}: matches ${ok} oneOf branches`);
      }
    }
    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? s.type as string[] : [s.type as string];
      if (!types.some((t) => jsonTypeMatches(t, value))) {
        errors.push(`${at}: ${describe(value)} is not ${types.join("|")}`);
        return errors;
      }
    }
    if (Array.isArray(s.enum) && !s.enum.some((e) => e === value)) {
      errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(s.enum)}`);
    }
    if ("const" in s && s.const !== value) {
      errors.push(`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(s.const)}`);
    }
    if (typeof s.minimum === "number" && typeof value === "number" && value < s.minimum) {
      errors.push(`${at}: ${value} < ${s.minimum}`);
    }
    if (isObj(value)) {
      const props = isObj(s.properties) ? s.properties as Record<string, Schema> : {};
      for (const req of Array.isArray(s.required) ? s.required as string[] : []) {
        if (!(req in value)) errors.push(`${at}: required field ${req} is missing`);
      }
      for (const [k, v] of Object.entries(value)) {
        if (k in props) {
          errors.push(...this.validate(props[k], v, strict, `${at}.${k}`));
        } else if (s.additionalProperties === false) {
          errors.push(`${at}: field ${k} is not allowed`);
        } else if (isObj(s.additionalProperties)) {
          errors.push(...this.validate(s.additionalProperties, v, strict, `${at}.${k}`));
        } else if (strict && s.additionalProperties !== true && isObj(s.properties)) {
          errors.push(`${at}: field ${k} is not declared by the schema`);
        }
      }
    }
    if (Array.isArray(value) && s.items !== undefined && !Array.isArray(s.items)) {
      value.forEach((v, i) =>
        errors.push(...this.validate(s.items as Schema, v, strict, `${at}[${i}]`))
      );
    }
    return errors;
  }

  /**
   * The alternatives a node stands for: `$ref`s followed, `anyOf`/`oneOf` (and one-element
   * `allOf`) flattened. A node with both its own `properties` and a `oneOf` yields itself
   * (without the `oneOf`) and each branch.
   */
  alternatives(schema: Schema): Schema[] {
    const s = this.deref(schema);
    if (typeof s === "boolean") return [s];
    const branches = [
      ...(Array.isArray(s.anyOf) ? s.anyOf as Schema[] : []),
      ...(Array.isArray(s.oneOf) ? s.oneOf as Schema[] : []),
      ...(Array.isArray(s.allOf) && s.allOf.length === 1 ? s.allOf as Schema[] : []),
    ];
    if (branches.length === 0) return [s];
    const own: Obj = { ...s };
    delete own.anyOf;
    delete own.oneOf;
    delete own.allOf;
    const hasOwn = own.properties !== undefined || own.enum !== undefined ||
      own.const !== undefined;
    return [...(hasOwn ? [own] : []), ...branches.flatMap((b) => this.alternatives(b))];
  }

  /**
   * Resolves a field path in `schema`. Path syntax: `.`-separated field names; `[]` after a name
   * (or alone) steps into array items; `<v>` after a name keeps only the union branches with a
   * single-value enum or const property equal to `v` (a tagged-union variant), e.g.
   * `data[].item<agentMessage>.phase`. Returns null when a step finds nothing.
   */
  resolve(schema: Schema, path: string): Resolved | null {
    let alts = this.alternatives(schema);
    let required = true;
    for (const step of path.split(".").filter(Boolean)) {
      const m = /^([^[<]*)((?:\[\]|<[^>]+>)*)$/.exec(step);
      if (!m) throw new Error(`Bad path step ${step}`);
      const [, name, suffix] = m;
      if (name) {
        const found: Schema[] = [];
        let allRequire = true;
        for (const a of alts) {
          if (!isObj(a) || !isObj(a.properties) || !(name in a.properties)) continue;
          found.push((a.properties as Record<string, Schema>)[name]);
          if (!(Array.isArray(a.required) && a.required.includes(name))) allRequire = false;
        }
        if (found.length === 0) return null;
        required = allRequire;
        alts = found.flatMap((f) => this.alternatives(f));
      }
      for (const mod of suffix.match(/\[\]|<[^>]+>/g) ?? []) {
        if (mod === "[]") {
          alts = alts.flatMap((a) =>
            isObj(a) && a.items !== undefined && !Array.isArray(a.items)
              ? this.alternatives(a.items as Schema)
              : []
          );
          required = true;
        } else {
          const tag = mod.slice(1, -1);
          alts = alts.filter((a) => isObj(a) && isObj(a.properties) && hasTag(this, a, tag));
        }
        if (alts.length === 0) return null;
      }
    }
    return { alts, required, types: typesOf(alts), enumValues: enumOf(alts) };
  }
}

function hasTag(doc: SchemaDoc, a: Obj, tag: string): boolean {
  for (const p of Object.values(a.properties as Record<string, Schema>)) {
    for (const alt of doc.alternatives(p)) {
      if (!isObj(alt)) continue;
      if (Array.isArray(alt.enum) && alt.enum.length === 1 && alt.enum[0] === tag) return true;
      if (alt.const === tag) return true;
    }
  }
  return false;
}

/** A field path resolved by {@link SchemaDoc.resolve}. */
export interface Resolved {
  /** The schema alternatives at the path. */
  alts: Schema[];
  /** The last named field is in `required` of every object that declares it. */
  required: boolean;
  /** JSON types the schema allows there (`integer` kept apart from `number`; `any` when open). */
  types: Set<string>;
  /** The enum values allowed there, or null when some alternative is not an enum. */
  enumValues: unknown[] | null;
}

function typesOf(alts: Schema[]): Set<string> {
  const out = new Set<string>();
  for (const a of alts) {
    if (typeof a === "boolean" || (!a.type && !a.enum && !("const" in a) && !a.properties)) {
      out.add("any");
    } else if (Array.isArray(a.enum)) {
      for (const v of a.enum) out.add(jsonType(v));
    } else if ("const" in a) {
      out.add(jsonType(a.const));
    } else if (a.type !== undefined) {
      for (const t of Array.isArray(a.type) ? a.type : [a.type]) out.add(String(t));
    } else {
      out.add("object");
    }
  }
  return out;
}

function enumOf(alts: Schema[]): unknown[] | null {
  const values: unknown[] = [];
  for (const a of alts) {
    if (!isObj(a)) return null;
    if (Array.isArray(a.enum)) values.push(...a.enum.filter((v) => v !== null));
    else if ("const" in a) values.push(a.const);
    else if (a.type === "null") continue;
    else return null;
  }
  return values;
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function jsonTypeMatches(t: string, v: unknown): boolean {
  switch (t) {
    case "null":
      return v === null;
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      return typeof v === "number";
    case "object":
      return isObj(v);
    case "array":
      return Array.isArray(v);
    case "string":
      return typeof v === "string";
    case "boolean":
      return typeof v === "boolean";
    default:
      return false;
  }
}

function describe(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}
