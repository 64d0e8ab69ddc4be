/**
 * Permission flags read back into a set, for the tests that check what the
 * relay's flags grant.
 * @module
 */

import {
  normalizePermissionSet,
  PERMISSION_KINDS,
  type PermissionSet,
} from "../src/core/permissions.ts";

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
