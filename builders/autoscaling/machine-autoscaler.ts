import { collectErrors, InputError } from "../errors";
import { MACHINE_SET_API_VERSION } from "../machineset/machineset";
import { MACHINE_API_NAMESPACE, spreadReplicas } from "../machineset/naming";
import { requireNonNegativeInteger, requireOneOf } from "../validation";

export const MACHINE_AUTOSCALER_API_VERSION = "autoscaling.openshift.io/v1beta1";

export { AUTOSCALER_ANNOTATIONS } from "../../primitives/openshift";

export const AUTOSCALING_SCOPES = ["pool", "zone"] as const;

/** A pool's autoscaling bounds. */
export interface PoolAutoscaling {
  minReplicas: number;
  maxReplicas: number;
  /**
   * `pool` (default): the bounds are totals, spread over the zones as the installer spreads replicas.
   * `zone`: every zone's MachineSet gets these bounds.
   */
  per?: (typeof AUTOSCALING_SCOPES)[number];
}

export interface MachineAutoscalerManifest {
  apiVersion: typeof MACHINE_AUTOSCALER_API_VERSION;
  kind: "MachineAutoscaler";
  metadata: { name: string; namespace: string };
  spec: {
    maxReplicas: number;
    minReplicas: number;
    scaleTargetRef: { apiVersion: typeof MACHINE_SET_API_VERSION; kind: "MachineSet"; name: string };
  };
}

/** Checks a pool's bounds, reporting every mistake at once. */
export function requirePoolAutoscaling(
  autoscaling: PoolAutoscaling,
  zoneCount: number,
): Required<PoolAutoscaling> {
  const per = autoscaling.per ?? "pool";
  collectErrors([
    () => requireNonNegativeInteger("minReplicas", autoscaling.minReplicas),
    () => requireNonNegativeInteger("maxReplicas", autoscaling.maxReplicas),
    () => requireOneOf("per", per, AUTOSCALING_SCOPES),
  ]);
  const { minReplicas, maxReplicas } = autoscaling;
  collectErrors([
    () => {
      if (minReplicas > maxReplicas) {
        throw new InputError(
          "minReplicas",
          `${minReplicas} is more than maxReplicas (${maxReplicas}): the autoscaler needs min <= max`,
        );
      }
    },
    () => {
      // Every MachineAutoscaler needs maxReplicas >= 1 (CRD minimum), so a pool total must cover each zone.
      const least = per === "pool" ? zoneCount : 1;
      if (maxReplicas < least) {
        throw new InputError(
          "maxReplicas",
          `${maxReplicas} is too small: each of the ${zoneCount} zone MachineSets needs a maximum of at least 1, so use ${least} or more`,
        );
      }
    },
  ]);
  return { minReplicas, maxReplicas, per };
}

/** Each zone's [min, max], in the order of the pool's MachineSets. */
export function zoneBounds(autoscaling: PoolAutoscaling, zoneCount: number): Array<[number, number]> {
  const a = requirePoolAutoscaling(autoscaling, zoneCount);
  if (a.per === "zone") return Array.from({ length: zoneCount }, () => [a.minReplicas, a.maxReplicas]);
  const mins = spreadReplicas("minReplicas", a.minReplicas, zoneCount);
  const maxes = spreadReplicas("maxReplicas", a.maxReplicas, zoneCount);
  return mins.map((min, i) => [min, maxes[i]]);
}

/**
 * One MachineAutoscaler per MachineSet of a pool, named after its MachineSet (the machine-api allows one
 * autoscaler per target, and the shared name makes the pair obvious in `oc get`).
 */
export function machineAutoscalersForPool(
  machineSetNames: readonly string[],
  autoscaling: PoolAutoscaling,
): MachineAutoscalerManifest[] {
  const bounds = zoneBounds(autoscaling, machineSetNames.length);
  return machineSetNames.map((name, i) => ({
    apiVersion: MACHINE_AUTOSCALER_API_VERSION,
    kind: "MachineAutoscaler",
    metadata: { name, namespace: MACHINE_API_NAMESPACE },
    spec: {
      maxReplicas: bounds[i][1],
      minReplicas: bounds[i][0],
      scaleTargetRef: { apiVersion: MACHINE_SET_API_VERSION, kind: "MachineSet", name },
    },
  }));
}
