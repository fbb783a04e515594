import { collectErrors, InputError } from "../errors";
import { AZURE_IMAGE_TYPES, AZURE_OS_TYPES } from "../generated/enums";
import { requireInteger, requireNonEmptyString, requireOneOf } from "../validation";
import { AzureImage, AzureMachineProviderSpec, AzureOSDisk, SecretReference } from "./provider-spec";
import { AzureVmOptions, checkAzureVmOptions, withAzureVmOptions } from "./azure-options";
import { AZURE_ZONAL_REGIONS, checkAzureZone } from "./azure-regions";
import { requireAzureVmSize } from "./azure-vm-sizes";
import { admitted } from "./admission";
import { describeSources, MachineSetPlatformModule, WorkerMachineSet } from "./platform";

/** What a user may set on Azure machines; everything else follows the installer's conventions. */
export interface AzureMachineOptions extends AzureVmOptions {
  /** A marketplace image, or `{ resourceID }` for the cluster's RHCOS image (gallery or managed image). */
  image: Partial<AzureImage>;
  vmSize?: string;
  osDisk?: Partial<AzureOSDisk>;
  /** Subnet name; default `<infraID>-worker-subnet`. */
  subnet?: string;
  vnet?: string;
  resourceGroup?: string;
  networkResourceGroup?: string;
  managedIdentity?: string;
  publicIP?: boolean;
  credentialsSecret?: SecretReference;
  userDataSecret?: SecretReference;
  /** `machine.openshift.io/v1beta1` today; `azureproviderconfig.openshift.io/v1beta1` in 4.6-era docs. */
  providerApiVersion?: string;
}

export interface AzureZonePlacement {
  infrastructureId: string;
  location: string;
  /** An availability zone of the region, "1" to "3"; omitted for regions without zones. */
  zone?: string;
  /** Overrides `AzureMachineOptions.subnet` for this zone. */
  subnet?: string;
  worker?: WorkerMachineSet;
}

const AZURE_NETWORK_FIELDS = [
  "resourceGroup",
  "networkResourceGroup",
  "vnet",
  "subnet",
  "managedIdentity",
  "publicLoadBalancer",
] as const;
type AzureNetworkField = (typeof AZURE_NETWORK_FIELDS)[number];

/**
 * The network references the machines take when the user gives none: the worker MachineSet's when
 * one was read (the installer's choices, such as no managed identity on current clusters and no
 * public load balancer with user-defined outbound routing), else the installer's naming
 * (openshift/installer pkg/asset/machines/azure/machines.go, provider: `publicLoadBalancer` is the
 * infrastructure ID, through which workers reach the internet with the default outbound type).
 */
function azureNetwork(
  infraId: string,
  worker: WorkerMachineSet | undefined,
): Record<AzureNetworkField, { value: string | undefined; source: string }> {
  const spec = worker?.providerSpec ?? {};
  const read = (field: AzureNetworkField, fallback: string | undefined) =>
    worker && (typeof spec[field] === "string" || field === "publicLoadBalancer")
      ? { value: spec[field] as string | undefined, source: `worker MachineSet ${worker.name}` }
      : { value: fallback, source: "the installer's names" };
  const resourceGroup = read("resourceGroup", `${infraId}-rg`);
  return {
    resourceGroup,
    networkResourceGroup: read("networkResourceGroup", resourceGroup.value),
    vnet: read("vnet", `${infraId}-vnet`),
    subnet: read("subnet", `${infraId}-worker-subnet`),
    managedIdentity: read("managedIdentity", `${infraId}-identity`),
    publicLoadBalancer: read("publicLoadBalancer", infraId),
  };
}

export const AZURE_DEFAULTS = {
  vmSize: "Standard_D4s_v3",
  osDisk: {
    diskSizeGB: 128,
    managedDisk: { storageAccountType: "Premium_LRS" },
    osType: "Linux",
  } as AzureOSDisk,
  credentialsSecret: { name: "azure-cloud-credentials", namespace: "openshift-machine-api" },
  userDataSecret: { name: "worker-user-data" },
  providerApiVersion: "machine.openshift.io/v1beta1",
} as const;

const STORAGE_ACCOUNT_TYPES = ["Premium_LRS", "StandardSSD_LRS", "Standard_LRS", "UltraSSD_LRS"] as const;

/**
 * The image resource IDs Azure accepts for a VM: a managed image, a gallery image (latest version) or
 * image version, with or without the subscription, or a community or shared gallery image.
 */
const AZURE_IMAGE_ID =
  /^((\/subscriptions\/[^/]+)?\/resourceGroups\/[^/]+\/providers\/Microsoft\.Compute\/(images\/[^/]+|galleries\/[^/]+\/images\/[^/]+(\/versions\/[^/]+)?)|\/(CommunityGalleries|SharedGalleries)\/[^/]+\/Images\/[^/]+(\/Versions\/[^/]+)?)$/i;

/** A marketplace image version: `latest` or numbers separated by dots. */
const MARKETPLACE_VERSION = /^(latest|\d+(\.\d+)*)$/;

/** An Azure image: `{ resourceID }` or publisher, offer, sku and version. */
export function requireAzureImage(path: string, value: Partial<AzureImage>): AzureImage {
  if (typeof value !== "object" || value === null) {
    throw new InputError(path, "must be { resourceID } or { publisher, offer, sku, version }");
  }
  const marketplace = value.publisher || value.offer || value.sku;
  if (!value.resourceID && !marketplace) {
    throw new InputError(path, "give either resourceID or publisher, offer, sku and version");
  }
  collectErrors([
    () => {
      if (value.resourceID && !AZURE_IMAGE_ID.test(value.resourceID)) {
        throw new InputError(
          `${path}.resourceID`,
          `${JSON.stringify(value.resourceID)} is not an image resource ID: use "/resourceGroups/<group>/providers/Microsoft.Compute/galleries/<gallery>/images/<image>/versions/<version>" (optionally after "/subscriptions/<id>"), or ".../providers/Microsoft.Compute/images/<name>" for a managed image`,
        );
      }
    },
    ...(["publisher", "offer", "sku"] as const).map(
      (key) => () => marketplace && requireNonEmptyString(`${path}.${key}`, value[key]),
    ),
    () => {
      if (!marketplace) return;
      requireNonEmptyString(`${path}.version`, value.version);
      if (!MARKETPLACE_VERSION.test(value.version as string)) {
        throw new InputError(
          `${path}.version`,
          `${JSON.stringify(value.version)} is not an image version: use "latest" or a version such as "20348.2227.240104"`,
        );
      }
    },
    () => value.type !== undefined && requireOneOf(`${path}.type`, value.type, AZURE_IMAGE_TYPES),
  ]);
  return {
    offer: value.offer ?? "",
    publisher: value.publisher ?? "",
    resourceID: value.resourceID ?? "",
    sku: value.sku ?? "",
    ...(value.type ? { type: value.type } : {}),
    version: value.version ?? "",
  };
}

function osDisk(path: string, value: Partial<AzureOSDisk> | undefined): AzureOSDisk {
  const disk = {
    diskSizeGB: value?.diskSizeGB ?? AZURE_DEFAULTS.osDisk.diskSizeGB,
    managedDisk: {
      storageAccountType:
        value?.managedDisk?.storageAccountType ?? AZURE_DEFAULTS.osDisk.managedDisk.storageAccountType,
    },
    osType: value?.osType ?? AZURE_DEFAULTS.osDisk.osType,
  };
  collectErrors([
    // Azure managed disks hold at most 32767 GiB; machine-api's webhook refuses anything outside 1 to that.
    () => requireInteger(`${path}.diskSizeGB`, disk.diskSizeGB, 1, 32767),
    () =>
      requireOneOf(
        `${path}.managedDisk.storageAccountType`,
        disk.managedDisk.storageAccountType,
        STORAGE_ACCOUNT_TYPES,
      ),
    () => requireOneOf(`${path}.osType`, disk.osType, AZURE_OS_TYPES),
  ]);
  return disk;
}

/** An AzureMachineProviderSpec for one zone, keys in the order the machine-api serializes them. */
export function azureProviderSpec(
  options: AzureMachineOptions,
  placement: AzureZonePlacement,
): AzureMachineProviderSpec {
  const infraId = placement.infrastructureId;
  const network = azureNetwork(infraId, placement.worker);
  const resourceGroup = options.resourceGroup ?? network.resourceGroup.value!;
  // The size's spelling is reported with every other problem, admission's included, and stops none.
  const vmSize = options.vmSize ?? AZURE_DEFAULTS.vmSize;
  const built = (): AzureMachineProviderSpec => {
    const [image, location, disk] = collectErrors([
      () => requireAzureImage("image", options.image),
      () => requireNonEmptyString("location", placement.location),
      () => osDisk("osDisk", options.osDisk),
      () => checkAzureVmOptions(options),
    ]);
    const spec = withAzureVmOptions(
      {
        apiVersion: options.providerApiVersion ?? AZURE_DEFAULTS.providerApiVersion,
        credentialsSecret: options.credentialsSecret ?? { ...AZURE_DEFAULTS.credentialsSecret },
        image,
        kind: "AzureMachineProviderSpec",
        location,
        managedIdentity: options.managedIdentity ?? network.managedIdentity.value ?? "",
        networkResourceGroup:
          options.networkResourceGroup ?? network.networkResourceGroup.value ?? resourceGroup,
        osDisk: disk,
        publicIP: options.publicIP ?? false,
        ...(network.publicLoadBalancer.value ? { publicLoadBalancer: network.publicLoadBalancer.value } : {}),
        resourceGroup,
        subnet: placement.subnet ?? options.subnet ?? network.subnet.value!,
        userDataSecret: options.userDataSecret ?? { ...AZURE_DEFAULTS.userDataSecret },
        vmSize,
        vnet: options.vnet ?? network.vnet.value!,
        ...(placement.zone !== undefined ? { zone: placement.zone } : {}),
      },
      options,
    );
    return admitted(spec);
  };
  return collectErrors([() => requireAzureVmSize("vmSize", vmSize), built])[1];
}

/** On Azure the Windows VM name (MachineSet name plus a 5-character suffix and dash) is limited to 15. */
export const AZURE_WINDOWS_MACHINESET_NAME_MAX = 9;

/** Azure as the installer's azure MachineSet generator makes it: numbered zones, or none in some regions. */
export const AZURE_PLATFORM: MachineSetPlatformModule<AzureMachineOptions> = {
  infrastructureType: "Azure",
  machineSetName: (infraId, role, region, zone) => `${infraId}-${role}-${region}${zone}`,
  checkZone: checkAzureZone,
  zonesWhenNoneListed(path, region) {
    if (AZURE_ZONAL_REGIONS.has(region)) {
      throw new InputError(
        path,
        `Azure region ${JSON.stringify(region)} has availability zones: list them, e.g. ["1", "2", "3"] (an empty list is for regions without zones)`,
      );
    }
    // One MachineSet without a zone, named <infraID>-<role>-<region> as the installer names it there.
    return [{ zone: "" }];
  },
  withImage(path, image, options) {
    if (typeof image !== "object" || image === null) {
      throw new InputError(path, "on Azure the image is { resourceID } or publisher, offer, sku and version");
    }
    requireAzureImage(path, image);
    return { ...options, image };
  },
  imageOf: (spec) => spec?.image,
  imageField: "image",
  zoneOf: (spec) => (typeof spec.zone === "string" ? spec.zone : ""),
  providerSpec(options, placement) {
    if (placement.subnet !== undefined && typeof placement.subnet !== "string") {
      throw new InputError("subnet", "an Azure subnet is given by its name, not by a reference");
    }
    return azureProviderSpec(options, {
      infrastructureId: placement.infrastructureId,
      location: placement.region,
      // A region without zones: no zone, and the machine-api places the VMs in an availability set.
      zone: placement.zone === "" ? undefined : placement.zone,
      subnet: placement.subnet,
      worker: placement.worker,
    });
  },
  networkFields: AZURE_NETWORK_FIELDS,
  networkSource(options, placement) {
    const network = azureNetwork(placement.infrastructureId, placement.worker);
    const given: Record<AzureNetworkField, unknown> = {
      resourceGroup: options.resourceGroup,
      networkResourceGroup: options.networkResourceGroup,
      vnet: options.vnet,
      subnet: placement.subnet ?? options.subnet,
      managedIdentity: options.managedIdentity,
      publicLoadBalancer: undefined,
    };
    return describeSources(
      (Object.keys(network) as AzureNetworkField[]).map((field) => [
        field,
        given[field] === undefined ? network[field].source : undefined,
      ]),
    );
  },
  windows: {
    defaultRole: "win",
    maxNameLength: AZURE_WINDOWS_MACHINESET_NAME_MAX,
    // WMCO's documented Azure MachineSets are `<role><zone>`: the installer's names would not fit.
    machineSetName: (role, zone) => `${role}${zone}`,
    options: (options, userDataSecret) => ({
      ...options,
      userDataSecret,
      osDisk: { ...options.osDisk, osType: "Windows" },
    }),
  },
};
