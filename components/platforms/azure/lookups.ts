import * as pulumi from "@pulumi/pulumi";
import { AZURE_DEFAULTS, AzureMachineOptions, Refusal, ZoneSpec } from "../../../builders/machineset";
import { isAzureVmSizeName } from "../../../builders/machineset/azure-vm-sizes";
import { inputPropertyError } from "../../errors";
import { cloudModule } from "../cloud-sdk";

// Direct module paths, loaded when a check runs: @pulumi/azure-native is an optional peer dependency,
// and its index takes over a second to load, these a fraction of that.
const azure = () =>
  cloudModule("@pulumi/azure-native", "cloudLookups", () => ({
    ...(require("@pulumi/azure-native/authorization/getClientConfig") as typeof import("@pulumi/azure-native/authorization/getClientConfig")),
    ...(require("@pulumi/azure-native/authorization/getClientToken") as typeof import("@pulumi/azure-native/authorization/getClientToken")),
    ...(require("@pulumi/azure-native/managedidentity/getUserAssignedIdentity") as typeof import("@pulumi/azure-native/managedidentity/getUserAssignedIdentity")),
    ...(require("@pulumi/azure-native/network/getSubnet") as typeof import("@pulumi/azure-native/network/getSubnet")),
  }));

/**
 * Azure checks for pools: the subnet and the managed identity the machines will use must exist, or the
 * machine-api would fail only after the VM request. Names default to the installer's.
 */

type InvokeParent = { parent?: pulumi.Resource };

export async function checkAzureSubnet(
  path: string,
  args: { networkResourceGroup: string; vnet: string; subnet: string },
  opts: InvokeParent,
): Promise<void> {
  await azure()
    .getSubnet(
      {
        resourceGroupName: args.networkResourceGroup,
        virtualNetworkName: args.vnet,
        subnetName: args.subnet,
      },
      opts,
    )
    .catch((e: Error) => {
      throw inputPropertyError(
        path,
        `subnet ${args.subnet} of virtual network ${args.vnet} in resource group ${args.networkResourceGroup} could not be found: ${e.message}`,
      );
    });
}

export async function checkAzureManagedIdentity(
  path: string,
  args: { resourceGroup: string; managedIdentity: string },
  opts: InvokeParent,
): Promise<void> {
  await azure()
    .getUserAssignedIdentity(
      { resourceGroupName: args.resourceGroup, resourceName: args.managedIdentity },
      opts,
    )
    .catch((e: Error) => {
      throw inputPropertyError(
        path,
        `managed identity ${args.managedIdentity} in resource group ${args.resourceGroup} could not be found: ${e.message}`,
      );
    });
}

/** One entry of the Resource SKUs API (Microsoft.Compute/skus), as far as a pool's checks read it. */
export interface ResourceSku {
  resourceType?: string;
  name?: string;
  locationInfo?: Array<{
    location?: string;
    zones?: string[];
    zoneDetails?: Array<{ name?: string[]; capabilities?: Array<{ name?: string; value?: string }> }>;
  }>;
  capabilities?: Array<{ name?: string; value?: string }>;
  restrictions?: Array<{
    type?: string;
    values?: string[];
    reasonCode?: string;
    restrictionInfo?: { locations?: string[]; zones?: string[] };
  }>;
}

/** ARM's endpoint in the azure-native provider's cloud (its `environment` setting). */
function armEndpoint(): string {
  const environment = new pulumi.Config("azure-native").get("environment") ?? "public";
  const endpoints: Record<string, string> = {
    usgovernment: "https://management.usgovcloudapi.net",
    china: "https://management.chinacloudapi.cn",
  };
  return endpoints[environment] ?? "https://management.azure.com";
}

/**
 * Every item of an ARM list under the provider's subscription (`path` after `/subscriptions/<id>`),
 * following its next links: for what no azure-native function wraps, called with the provider's own
 * credentials (authorization.getClientToken). The token stays in this function.
 */
async function armList<T>(path: string, query: string, what: string, opts: InvokeParent): Promise<T[]> {
  const { getClientConfig, getClientToken } = azure();
  const [config, { token }] = await Promise.all([getClientConfig(opts), getClientToken({}, opts)]);
  let url: string | undefined = `${armEndpoint()}/subscriptions/${config.subscriptionId}${path}?${query}`;
  const items: T[] = [];
  while (url) {
    const response: Response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    if (!response.ok) {
      throw inputPropertyError(
        "cloudLookups",
        `listing ${what} failed: ${response.status} ${(await response.text()).slice(0, 500)}`,
      );
    }
    const page = (await response.json()) as { value?: T[]; nextLink?: string };
    items.push(...(page.value ?? []));
    url = page.nextLink;
  }
  return items;
}

/**
 * The given zones the location does not have, by the subscription's locations and their
 * availabilityZoneMappings (`az account list-locations`); a location not listed is left to the cloud.
 */
export async function azureZoneProblems(
  region: string,
  zones: readonly ZoneSpec[],
  opts: InvokeParent,
): Promise<Refusal[]> {
  type Location = { name?: string; availabilityZoneMappings?: Array<{ logicalZone?: string }> };
  const locations = await armList<Location>(
    "/locations",
    "api-version=2022-12-01",
    "the Azure locations",
    opts,
  );
  const location = locations.find((l) => l.name?.toLowerCase() === region.toLowerCase());
  if (!location) return [];
  const known = (location.availabilityZoneMappings ?? []).map((m) => m.logicalZone ?? "").sort();
  return zones.flatMap(({ zone }, i) =>
    zone === "" || known.includes(zone)
      ? []
      : [
          {
            path: `zones[${i}]`,
            reason:
              known.length === 0
                ? `Azure region ${region} has no availability zones: use zones: [] (one MachineSet, its machines in an availability set)`
                : `Azure region ${region} has no zone ${JSON.stringify(zone)}: its zones are ${known.join(", ")}`,
          },
        ],
  );
}

/** The VM sizes of a location, as `az vm list-skus --location <region>` lists them (the Resource SKUs API). */
export async function azureVmSkus(region: string, opts: InvokeParent): Promise<ResourceSku[]> {
  const filter = encodeURIComponent(`location eq '${region}'`);
  const skus = await armList<ResourceSku>(
    "/providers/Microsoft.Compute/skus",
    `api-version=2021-07-01&$filter=${filter}`,
    `the VM sizes of ${region}`,
    opts,
  );
  return skus.filter((sku) => sku.resourceType === "virtualMachines");
}

const capability = (sku: ResourceSku, name: string) =>
  sku.capabilities?.find((c) => c.name?.toLowerCase() === name.toLowerCase())?.value;

/**
 * What a location's SKUs say of a pool in zones it has: a VM size it does not offer (at all, to the
 * subscription, or in a zone), and the size's capabilities the options need (accelerated networking,
 * encryption at host, Ultra SSD in each zone, confidential or trusted launch), each at its property.
 * A size of the wrong shape is the preview's to report.
 */
export function azureSkuProblems(
  region: string,
  zones: readonly ZoneSpec[],
  options: Omit<AzureMachineOptions, "image">,
  skus: readonly ResourceSku[],
): Refusal[] {
  const vmSize = options.vmSize ?? AZURE_DEFAULTS.vmSize;
  const inRegion = (list?: string[]) => (list ?? []).some((l) => l.toLowerCase() === region.toLowerCase());
  const zonesOf = (sku: ResourceSku) =>
    (sku.locationInfo ?? []).filter((l) => inRegion([l.location ?? ""])).flatMap((l) => l.zones ?? []);
  const problems: Refusal[] = [];
  if (!isAzureVmSizeName(vmSize)) return problems;
  const sku = skus.find((s) => s.name?.toLowerCase() === vmSize.toLowerCase());
  const listing = `az vm list-skus --location ${region} --size ${vmSize}`;
  const location = sku?.restrictions?.find((r) => r.type === "Location" && inRegion(r.values));
  if (!sku || location) {
    problems.push({
      path: "azure.vmSize",
      reason: sku
        ? `${vmSize} is not available to this subscription in ${region} (${location!.reasonCode ?? "restricted"}; "${listing}" shows why)`
        : `${JSON.stringify(vmSize)} is not offered in Azure region ${region} ("${listing}" finds none)`,
    });
    return problems;
  }
  const restricted = (sku.restrictions ?? [])
    .filter((r) => r.type === "Zone")
    .flatMap((r) => r.restrictionInfo?.zones ?? []);
  const offered = zonesOf(sku).filter((z) => !restricted.includes(z));
  zones.forEach(({ zone }, i) => {
    if (zone === "" || offered.includes(zone)) return;
    problems.push({
      path: `zones[${i}]`,
      reason: `VM size ${vmSize} is not offered in zone ${zone} of ${region}${offered.length ? `: choose among zones ${offered.join(", ")}` : ""}, or another size ("${listing}")`,
    });
  });
  const lacks = (path: string, name: string, what: string) => {
    if (capability(sku, name)?.toLowerCase() !== "true")
      problems.push({
        path,
        reason: `${vmSize} does not support ${what} (its ${name} capability is not True: "${listing}")`,
      });
  };
  if (options.acceleratedNetworking === true)
    lacks("azure.acceleratedNetworking", "AcceleratedNetworkingEnabled", "accelerated networking");
  if (options.encryptionAtHost === true)
    lacks("azure.encryptionAtHost", "EncryptionAtHostSupported", "encryption at host");
  if (
    options.security?.type === "ConfidentialVM" &&
    capability(sku, "ConfidentialComputingType") === undefined
  ) {
    problems.push({
      path: "azure.security.type",
      reason: `${vmSize} is not a confidential VM size (it has no ConfidentialComputingType capability: use a DCasv5, ECasv5 or other confidential size)`,
    });
  }
  if (
    options.security?.type === "TrustedLaunch" &&
    capability(sku, "TrustedLaunchDisabled")?.toLowerCase() === "true"
  ) {
    problems.push({
      path: "azure.security.type",
      reason: `${vmSize} does not support trusted launch (TrustedLaunchDisabled: "${listing}")`,
    });
  }
  if (options.ultraSSDCapability === "Enabled") {
    const ultra = (sku.locationInfo ?? [])
      .filter((l) => inRegion([l.location ?? ""]))
      .flatMap((l) => l.zoneDetails ?? [])
      .filter((d) =>
        d.capabilities?.some((c) => c.name === "UltraSSDAvailable" && c.value?.toLowerCase() === "true"),
      )
      .flatMap((d) => d.name ?? []);
    const without = zones.filter(
      ({ zone }) => zone !== "" && offered.includes(zone) && !ultra.includes(zone),
    );
    if (without.length > 0) {
      problems.push({
        path: "azure.ultraSSDCapability",
        reason: `${vmSize} cannot attach Ultra SSDs in zone ${without.map((z) => z.zone).join(", ")} of ${region}`,
      });
    }
  }
  return problems;
}

/** What Azure lacks of a pool's VM size in its zones (cloudLookups), and what the size must support. */
export async function azureSizeProblems(
  region: string,
  zones: readonly ZoneSpec[],
  options: Omit<AzureMachineOptions, "image">,
  opts: InvokeParent,
): Promise<Refusal[]> {
  const vmSize = options.vmSize ?? AZURE_DEFAULTS.vmSize;
  if (!isAzureVmSizeName(vmSize)) return [];
  return azureSkuProblems(region, zones, options, await azureVmSkus(region, opts));
}
