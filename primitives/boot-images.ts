/**
 * Which MachineSets the MCO keeps on the release's boot image (openshift/machine-config-operator), as
 * the preview that says who owns a pool's boot image understands it. The simulated controller reads
 * the same upstream code on its own (simulator/controllers/boot-images.ts), so each checks the other.
 *
 * Selection (pkg/operator/sync.go, syncManagedBootImagesStatus): an empty `machineManagers` list in
 * `spec.managedBootImages` of MachineConfiguration `cluster` opts the cluster out; an entry for
 * machine-api MachineSets decides with its mode (`All`, `None`, or `Partial` with a label selector on
 * the MachineSets, helpers.go getMachineResourceSelectorFromMachineManagers); without one, AWS and
 * Azure clusters are opted in (common/featuregates.go CheckBootImagePlatform).
 * Skips (pkg/controller/bootimage/ms_helpers.go, syncMAPIMachineSet): a MachineSet with an owner
 * reference, one labelled with another OS stream than RHEL 9, one whose machines are Windows; on Azure
 * (platform_helpers.go reconcileAzureProviderSpec) one with a security type (Trusted Launch,
 * confidential VMs).
 */
import { LabelSelector, selectorMatches } from "./selectors";

/**
 * On a MachineSet whose boot image the stack declares (`bootImageOwner: "stack"`): a `Partial`
 * selection whose selector requires this label's absence (`operator: DoesNotExist`) leaves it out.
 */
export const BOOT_IMAGE_OWNER_LABEL = "openshift-topology.io/boot-image-owner";
/** boot_image_controller.go: OSStreamLabelKey, SupportedOSStream, OSLabelKey. */
export const OS_STREAM_LABEL = "machineconfiguration.openshift.io/osstream";
const SUPPORTED_STREAM = "rhel-9";
const OS_LABEL = "machine.openshift.io/os-id";

export interface MachineManager {
  resource: string;
  apiGroup: string;
  selection: { mode: "All" | "None" | "Partial"; partial?: { machineResourceSelector?: LabelSelector } };
}

interface MachineSetLike {
  metadata?: { name?: string; labels?: Record<string, string>; ownerReferences?: unknown[] };
  spec?: {
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: { providerSpec?: { value?: { securityProfile?: { settings?: { securityType?: string } } } } };
    };
  };
}

/**
 * The `spec.managedBootImages` of MachineConfiguration `cluster` that leaves the stack's MachineSets
 * (those labelled BOOT_IMAGE_OWNER_LABEL) out and lets the MCO manage every other one.
 */
export const MANAGED_EXCEPT_STACK_OWNED: { machineManagers: MachineManager[] } = {
  machineManagers: [
    {
      resource: "machinesets",
      apiGroup: "machine.openshift.io",
      selection: {
        mode: "Partial",
        partial: {
          machineResourceSelector: {
            matchExpressions: [{ key: BOOT_IMAGE_OWNER_LABEL, operator: "DoesNotExist" }],
          },
        },
      },
    },
  ],
};

const isMachineSets = (m: MachineManager) =>
  m.resource === "machinesets" && m.apiGroup === "machine.openshift.io";

/** `status.managedBootImagesStatus.machineManagers` as the operator derives it from the spec's `managedBootImages`. */
export function machineSetManagers(
  managedBootImages: { machineManagers?: MachineManager[] } | undefined,
  platform: string,
): MachineManager[] {
  const given = managedBootImages?.machineManagers;
  if (given !== undefined && given.length === 0) return [];
  const own = given?.find(isMachineSets);
  const defaultOn = platform === "aws" || platform === "azure";
  return [
    own ?? {
      resource: "machinesets",
      apiGroup: "machine.openshift.io",
      selection: { mode: defaultOn ? "All" : "None" },
    },
  ];
}

/** Whether the MCO updates the boot image of `machineSet`, and why (or why not), under `managers`. */
export function bootImageSelection(
  managers: MachineManager[],
  machineSet: MachineSetLike,
): { updates: boolean; why: string } {
  const manager = managers.find(isMachineSets);
  const mode = manager?.selection.mode ?? "None";
  if (mode === "None" || !manager) return { updates: false, why: "managedBootImages selects no MachineSet" };
  if (
    mode === "Partial" &&
    !selectorMatches(
      manager.selection.partial?.machineResourceSelector ?? {},
      machineSet.metadata?.labels ?? {},
    )
  )
    return { updates: false, why: "managedBootImages (Partial) does not select it" };
  if ((machineSet.metadata?.ownerReferences ?? []).length > 0)
    return { updates: false, why: "it has an owner reference, which the MCO skips" };
  const stream = machineSet.metadata?.labels?.[OS_STREAM_LABEL];
  if (stream !== undefined && stream !== SUPPORTED_STREAM)
    return { updates: false, why: `its OS stream ${stream} is not the MCO's` };
  if (machineSet.spec?.template?.metadata?.labels?.[OS_LABEL] === "Windows")
    return { updates: false, why: "its machines are Windows" };
  const securityType =
    machineSet.spec?.template?.spec?.providerSpec?.value?.securityProfile?.settings?.securityType;
  if (securityType)
    return {
      updates: false,
      why: `its security type ${securityType}, which the MCO does not update on Azure`,
    };
  return { updates: true, why: `managedBootImages (${mode}) selects it` };
}
