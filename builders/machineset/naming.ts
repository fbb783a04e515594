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

/** The installer's compute pool size when `replicas` is not set (its machine pool defaults). */
export const INSTALLER_DEFAULT_COMPUTE_REPLICAS = 3;

/**
 * A pool's total replicas when none are given: one per zone, so that every zone has a machine. A pool
 * whose one MachineSet has no zone (an Azure region without zones) gets the installer's default pool
 * size, which the installer puts in that one MachineSet too; the machine-api spreads its VMs over the
 * availability set's fault domains, so they stand in for the zones' spread.
 */
export function defaultReplicas(zones: ReadonlyArray<{ zone: string }>): number {
  return zones.length === 1 && zones[0].zone === "" ? INSTALLER_DEFAULT_COMPUTE_REPLICAS : zones.length;
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
