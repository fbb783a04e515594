import * as pulumi from "@pulumi/pulumi";
import { AzureMachineOptions } from "../../../builders/machineset";
import { AZURE_PLATFORM } from "../../../builders/machineset/azure";
import { AZURE_ZONAL_REGIONS } from "../../../builders/machineset/azure-regions";
import { inputPropertyError } from "../../errors";
import { cloudModule } from "../cloud-sdk";
import { CloudPlatform } from "../platform";
import { azureSizeProblems, azureZoneProblems, checkAzureManagedIdentity, checkAzureSubnet } from "./lookups";
import { AZURE_WINDOWS_IMAGES } from "./windows-image";

/**
 * Azure: the region is the location of the cluster's resource group (the Infrastructure object does not
 * record it); lookups check that the subnets and the managed identity exist.
 */
export const AZURE_CLOUD: CloudPlatform<Omit<AzureMachineOptions, "image">> = {
  region(status, opts) {
    const resourceGroupName = (status.platformStatus?.azure as { resourceGroupName?: string } | undefined)
      ?.resourceGroupName;
    if (!resourceGroupName) {
      throw inputPropertyError(
        "region",
        "not given and the Infrastructure object names no Azure resource group",
      );
    }
    const { getResourceGroup } = cloudModule(
      "@pulumi/azure-native",
      "region",
      () =>
        require("@pulumi/azure-native/resources/getResourceGroup") as typeof import("@pulumi/azure-native/resources/getResourceGroup"),
      `the cluster's Azure location, that of resource group ${resourceGroupName}, e.g. "centralus"`,
    );
    return pulumi.output(
      getResourceGroup({ resourceGroupName }, { parent: opts.parent }).then(
        (group) => group.location,
        (e: Error) => {
          throw inputPropertyError(
            "region",
            `not given, and the location of resource group ${resourceGroupName} could not be read: ${e.message}`,
          );
        },
      ),
    );
  },
  async zonesWhenNotGiven(region) {
    // A region without zones has one placement only: the zone-less MachineSet, as with `zones: []`.
    if (!AZURE_ZONAL_REGIONS.has(region)) return AZURE_PLATFORM.zonesWhenNoneListed("zones", region);
    throw inputPropertyError(
      "zones",
      `required in Azure region ${JSON.stringify(region)}, which has availability zones: list the zone numbers, e.g. ["1", "2", "3"]`,
    );
  },
  zoneProblems: azureZoneProblems,
  sizeProblems: azureSizeProblems,
  async lookUp(infrastructureId, zones, options, invoke) {
    const rg = options.resourceGroup ?? `${infrastructureId}-rg`;
    await Promise.all([
      ...zones.map((z, i) =>
        checkAzureSubnet(
          z.subnet !== undefined ? `zones[${i}].subnet` : "azure.subnet",
          {
            networkResourceGroup: options.networkResourceGroup ?? rg,
            vnet: options.vnet ?? `${infrastructureId}-vnet`,
            subnet: (z.subnet as string | undefined) ?? options.subnet ?? `${infrastructureId}-worker-subnet`,
          },
          invoke,
        ),
      ),
      checkAzureManagedIdentity(
        "azure.managedIdentity",
        { resourceGroup: rg, managedIdentity: options.managedIdentity ?? `${infrastructureId}-identity` },
        invoke,
      ),
    ]);
    return { zones, options };
  },
  windowsImage: (version) => AZURE_WINDOWS_IMAGES[version],
};
