import { isDnsLabel } from "../../primitives/names";
import { InputError } from "../errors";
import { requireNonNegativeInteger } from "../validation";

export { MACHINE_API_NAMESPACE, MACHINE_LABELS } from "../../primitives/openshift";

/**
 * Spreads a pool's total replicas over its zones as the installer does: `total / zones` each, and the
 * first `total % zones` zones get one more.
 */
export function spreadReplicas(path: string, total: number, zoneCount: number): number[] {
  requireNonNegativeInteger(path, total);
  if (zoneCount < 1) throw new InputError(path, "cannot spread replicas over no zones");
  const base = Math.floor(total / zoneCount);
  const extra = total % zoneCount;
  return Array.from({ length: zoneCount }, (_, i) => base + (i < extra ? 1 : 0));
}

/**
 * The MachineSet name doubles as the value of the `cluster-api-machineset` label, so it is bound by the
 * 63-character limit of label values, not only by the object-name rules.
 */
export function requireMachineSetName(path: string, name: string, maxLength = 63): string {
  if (name.length > maxLength || !isDnsLabel(name)) {
    throw new InputError(
      path,
      `MachineSet name ${JSON.stringify(name)} is invalid: it must be at most ${maxLength} lower-case letters, digits or '-' (it is also a label value)`,
    );
  }
  return name;
}
