/**
 * Permission sets in one comparable shape, and flags read back into one:
 * the tests' proof that the relay's flags grant what its sets grant.
 * @module
 */

import { grants, PERMISSION_KINDS, type PermissionSet } from "../src/core/permissions.ts";

/**
 * Reads `--allow-*`/`--deny-*`/`--ignore-*` flags back into a normalized set
 * (a kind with nothing granted is absent): the tests' proof that derived
 * flags grant exactly what a set grants.
 */
export function permissionSetOfFlags(flags: readonly string[]): PermissionSet {
  const set: Record<string, Record<string, true | string[]>> = {};
  for (const flag of flags) {
    if (flag === "--allow-all" || flag === "-A") return { all: true };
    const m = flag.match(/^--(allow|deny|ignore)-([a-z]+)(?:=(.*))?$/);
    if (!m || !(PERMISSION_KINDS as readonly string[]).includes(m[2])) {
      throw new Error(`Not a permission flag: ${flag}`);
    }
    const [, mode, kind, list] = m;
    set[kind] ??= {};
    set[kind][mode] = list === undefined ? true : list.split(",");
  }
  return normalizePermissionSet(set as PermissionSet);
}

/**
 * A set in one canonical shape: `{kind: {allow?, deny?, ignore?}}` with
 * nothing for `false` or empty lists, so two sets that grant the same compare
 * equal with a deep equality.
 */
export function normalizePermissionSet(set: PermissionSet): PermissionSet {
  if (set.all === true) return { all: true };
  const out: Record<string, Record<string, true | string[]>> = {};
  for (const [kind, mode, part] of grants(set)) {
    if (Array.isArray(part) && part.length === 0) continue;
    out[kind] ??= {};
    out[kind][mode] = part === true ? true : [...part];
  }
  return out as PermissionSet;
}
