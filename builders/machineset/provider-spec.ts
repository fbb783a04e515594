/**
 * Typed provider specs. The MachineSet CRD leaves `providerSpec.value` free-form, so these interfaces are
 * the only thing between a typo and a machine that never boots. Field names and shapes follow the
 * machine-api types the installer serializes (openshift/api machine/v1beta1).
 */

export interface SecretReference {
  name: string;
  namespace?: string;
}

/** An AWS resource by id, by ARN, or by tag filters (what the installer writes for subnets and SGs). */
export interface AWSResourceReference {
  id?: string;
  arn?: string;
  filters?: Array<{ name: string; values: string[] }>;
}

export interface AWSBlockDevice {
  deviceName?: string;
  ebs: {
    volumeSize: number;
    volumeType: "gp2" | "gp3" | "io1" | "io2" | "st1" | "sc1" | "standard";
    iops?: number;
    /** MiB/s, gp3 only (openshift/api names it throughputMib). */
    throughputMib?: number;
    encrypted?: boolean;
    kmsKey?: { id?: string; arn?: string };
    deleteOnTermination?: boolean;
  };
}

export interface AWSMachineProviderConfig {
  apiVersion: string;
  kind: "AWSMachineProviderConfig";
  ami: AWSResourceReference;
  instanceType: string;
  blockDevices: AWSBlockDevice[];
  credentialsSecret: SecretReference;
  deviceIndex: number;
  iamInstanceProfile: AWSResourceReference;
  metadata?: Record<string, unknown>;
  metadataServiceOptions?: { authentication?: "Required" | "Optional" };
  placement: {
    availabilityZone: string;
    region: string;
    tenancy?: "default" | "dedicated" | "host";
    host?: {
      affinity: "AnyAvailable" | "DedicatedHost";
      dedicatedHost?: { allocationStrategy?: "Dynamic" | "UserProvided"; id?: string };
    };
  };
  placementGroupName?: string;
  placementGroupPartition?: number;
  capacityReservationId?: string;
  spotMarketOptions?: { maxPrice?: string };
  publicIp?: boolean;
  securityGroups: AWSResourceReference[];
  subnet: AWSResourceReference;
  tags: Array<{ name: string; value: string }>;
  userDataSecret: SecretReference;
}

/** A marketplace image (publisher/offer/sku/version) or an image resource ID. */
export interface AzureImage {
  publisher: string;
  offer: string;
  sku: string;
  version: string;
  resourceID: string;
  type?: "MarketplaceWithPlan" | "MarketplaceNoPlan";
}

export interface AzureOSDisk {
  diskSizeGB: number;
  osType: "Linux" | "Windows";
  managedDisk: {
    storageAccountType: "Premium_LRS" | "StandardSSD_LRS" | "Standard_LRS" | "UltraSSD_LRS";
    securityProfile?: { securityEncryptionType: string };
  };
}

export interface AzureUefiSettings {
  secureBoot?: string;
  virtualizedTrustedPlatformModule?: string;
}

export interface AzureMachineProviderSpec {
  apiVersion: string;
  kind: "AzureMachineProviderSpec";
  credentialsSecret: SecretReference;
  image: AzureImage;
  location: string;
  managedIdentity: string;
  metadata?: Record<string, unknown>;
  networkResourceGroup: string;
  osDisk: AzureOSDisk;
  publicIP: boolean;
  publicLoadBalancer?: string;
  resourceGroup: string;
  subnet: string;
  userDataSecret: SecretReference;
  vmSize: string;
  vnet: string;
  zone?: string;
  acceleratedNetworking?: boolean;
  availabilitySet?: string;
  diagnostics?: {
    boot: { storageAccountType: string; customerManaged?: { storageAccountURI: string } };
  };
  securityProfile?: {
    encryptionAtHost?: boolean;
    settings?: {
      securityType: string;
      trustedLaunch?: { uefiSettings: AzureUefiSettings };
      confidentialVM?: { uefiSettings: AzureUefiSettings };
    };
  };
  spotVMOptions?: { maxPrice?: string };
  tags?: Record<string, string>;
  ultraSSDCapability?: string;
}

export type ProviderSpec = AWSMachineProviderConfig | AzureMachineProviderSpec;
