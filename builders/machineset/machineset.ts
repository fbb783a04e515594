import { collectErrors, InputError } from "../errors";
import {
  requireLabels,
  requireNonEmptyString,
  requireNonNegativeInteger,
  requireTaints,
  Taint,
} from "../validation";
import { MACHINE_API_NAMESPACE, MACHINE_LABELS, requireMachineSetName } from "./naming";
import { nodeMetadataRecord } from "./node-metadata";
import { ProviderSpec } from "./provider-spec";

export interface MachineSetArgs {
  name: string;
  infrastructureId: string;
  /** Value of the machine-role and machine-type labels (`worker` for Windows machines, `infra` for infra). */
  machineRole: string;
  replicas: number;
  /** Extra labels on the Machines (e.g. `machine.openshift.io/os-id: Windows`). */
  machineLabels?: Record<string, string>;
  /** Labels the resulting Nodes carry (`spec.template.spec.metadata.labels`). */
  nodeLabels?: Record<string, string>;
  taints?: Taint[];
  annotations?: Record<string, string>;
  providerSpec: ProviderSpec;
  /** Longest allowed name; Azure Windows machines need 9 (their VM names are limited to 15). */
  maxNameLength?: number;
  /**
   * Whether the set itself carries the role/type labels, as OpenShift's infra MachineSet docs show
   * (default); the installer's and WMCO's sets carry only the cluster label.
   */
  roleLabelsOnSet?: boolean;
}

/** The machine API group version of MachineSets (and of the provider specs inside them today). */
export const MACHINE_SET_API_VERSION = "machine.openshift.io/v1beta1";

export interface MachineSetManifest {
  apiVersion: typeof MACHINE_SET_API_VERSION;
  kind: "MachineSet";
  metadata: {
    annotations?: Record<string, string>;
    labels: Record<string, string>;
    name: string;
    namespace: string;
  };
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { annotations?: Record<string, string>; labels: Record<string, string> };
      spec: {
        metadata: { labels?: Record<string, string> };
        taints?: Taint[];
        providerSpec: { value: ProviderSpec };
      };
    };
  };
}

/** Sorted copy, so that label maps read the same in every manifest and every run. */
function sorted(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * One MachineSet, labelled as the installer labels its own: the cluster label on the set, the selector
 * on cluster and set, and role/type on the Machines.
 */
export function machineSet(args: MachineSetArgs): MachineSetManifest {
  const [name, infraId, role, replicas, machineLabels, nodeLabels, taints] = collectErrors([
    () => requireMachineSetName("name", args.name, args.maxNameLength),
    () => requireNonEmptyString("infrastructureId", args.infrastructureId),
    () => requireNonEmptyString("machineRole", args.machineRole),
    () => requireNonNegativeInteger("replicas", args.replicas),
    () => {
      const labels = requireLabels("machineLabels", args.machineLabels);
      collectErrors(
        Object.values(MACHINE_LABELS)
          .filter((key) => key in labels && key !== MACHINE_LABELS.osId)
          .map((key) => () => {
            throw new InputError(
              `machineLabels["${key}"]`,
              `${key} is set by the library and cannot be overridden`,
            );
          }),
      );
      return labels;
    },
    () => requireLabels("nodeLabels", args.nodeLabels),
    () => requireTaints("taints", args.taints),
  ]);

  const selector = { [MACHINE_LABELS.cluster]: infraId, [MACHINE_LABELS.machineSet]: name };
  const setLabels = {
    [MACHINE_LABELS.cluster]: infraId,
    [MACHINE_LABELS.role]: role,
    [MACHINE_LABELS.type]: role,
  };
  return {
    apiVersion: MACHINE_SET_API_VERSION,
    kind: "MachineSet",
    metadata: {
      ...(args.annotations && Object.keys(args.annotations).length > 0
        ? { annotations: sorted(args.annotations) }
        : {}),
      labels: sorted(args.roleLabelsOnSet === false ? { [MACHINE_LABELS.cluster]: infraId } : setLabels),
      name,
      namespace: MACHINE_API_NAMESPACE,
    },
    spec: {
      replicas,
      selector: { matchLabels: sorted(selector) },
      template: {
        metadata: {
          ...nodeMetadataRecord(nodeLabels, taints),
          labels: sorted({ ...machineLabels, ...setLabels, ...selector }),
        },
        spec: {
          metadata: Object.keys(nodeLabels).length > 0 ? { labels: sorted(nodeLabels) } : {},
          ...(taints.length > 0 ? { taints } : {}),
          providerSpec: { value: args.providerSpec },
        },
      },
    },
  };
}
