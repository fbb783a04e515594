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
 * The VM sizes of a location, as `az vm list-skus --location <region>` lists them: the Resource SKUs
 * API, which no azure-native function wraps, called with the provider's own credentials
 * (authorization.getClientToken) in its subscription. The token stays in this function.
 */
export async function azureVmSkus(region: string, opts: InvokeParent): Promise<ResourceSku[]> {
  const { getClientConfig, getClientToken } = azure();
  const [config, { token }] = await Promise.all([getClientConfig(opts), getClientToken({}, opts)]);
  const filter = encodeURIComponent(`location eq '${region}'`);
  let url: string | undefined =
    `${armEndpoint()}/subscriptions/${config.subscriptionId}/providers/Microsoft.Compute/skus?api-version=2021-07-01&$filter=${filter}`;
  const skus: ResourceSku[] = [];
  while (url) {
    const response: Response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    if (!response.ok) {
      throw inputPropertyError(
        "cloudLookups",
        `listing the VM sizes of ${region} failed: ${response.status} ${(await response.text()).slice(0, 500)}`,
      );
    }
    const page = (await response.json()) as { value?: ResourceSku[]; nextLink?: string };
    skus.push(...(page.value ?? []).filter((sku) => sku.resourceType === "virtualMachines"));
    url = page.nextLink;
  }
  return skus;
}

const capability = (sku: ResourceSku, name: string) =>
  sku.capabilities?.find((c) => c.name?.toLowerCase() === name.toLowerCase())?.value;

/**
 * What a location's SKUs say of a pool: a zone the location lacks, a VM size it does not offer (at all,
 * to the subscription, or in a zone), and the size's capabilities the options need (accelerated
 * networking, encryption at host, Ultra SSD in each zone, confidential or trusted launch), each at its
 * property. A size of the wrong shape is the preview's to report.
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
  const regionZones = [...new Set(skus.flatMap(zonesOf))].sort();
  const problems: Refusal[] = [];
  zones.forEach(({ zone }, i) => {
    if (zone === "" || regionZones.includes(zone)) return;
    problems.push({
      path: `zones[${i}]`,
      reason:
        regionZones.length === 0
          ? `Azure region ${region} has no availability zones: use zones: [] (one MachineSet, its machines in an availability set)`
          : `Azure region ${region} has no zone ${JSON.stringify(zone)}: its zones are ${regionZones.join(", ")}`,
    });
  });
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
    if (zone === "" || !regionZones.includes(zone) || offered.includes(zone)) return;
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

/** What Azure lacks of a pool (cloudLookups): its zones, its VM size and what the size must support. */
export async function azureAvailability(
  region: string,
  zones: readonly ZoneSpec[],
  options: Omit<AzureMachineOptions, "image">,
  opts: InvokeParent,
): Promise<Refusal[]> {
  return azureSkuProblems(region, zones, options, await azureVmSkus(region, opts));
}
