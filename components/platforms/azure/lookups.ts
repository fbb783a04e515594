import * as pulumi from "@pulumi/pulumi";
import { inputPropertyError } from "../../errors";
import { cloudModule } from "../cloud-sdk";

// Direct module paths, loaded when a check runs: @pulumi/azure-native is an optional peer dependency,
// and its index takes over a second to load, these a fraction of that.
const azure = () =>
  cloudModule("@pulumi/azure-native", "cloudLookups", () => ({
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
