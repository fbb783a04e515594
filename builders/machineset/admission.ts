import { InputError, InputErrors } from "../errors";
import { AWSMachineProviderConfig, AzureMachineProviderSpec, ProviderSpec } from "./provider-spec";

/** A property of the platform's options (the path a user reads) and why its value is refused. */
export interface Refusal {
  path: string;
  reason: string;
}

/**
 * One thing the machine-api webhook, the installer's machine-pool validation or the cloud refuses in a
 * provider spec. `properties` are the options it concerns; a refusal is reported at the first and its
 * reason names the others. `upstream` says whose rule it is (repository, file, function).
 */
export interface AdmissionRule<S> {
  upstream: string;
  properties: readonly string[];
  /** Why, naming the other properties (a refusal may add the values at hand). */
  reason: string;
  refusals(spec: S): Refusal[];
}

const WEBHOOK = "openshift/machine-api-operator pkg/webhooks/machine_webhook.go";
const INSTALLER_AWS = "openshift/installer pkg/types/aws/validation/machinepool.go";
const INSTALLER_AZURE = "openshift/installer pkg/types/azure/validation/machinepool.go";

/** A rule refusing at `path` when `refused(spec)`. */
function rule<S>(
  upstream: string,
  properties: readonly string[],
  refused: (spec: S) => boolean,
  reason: string,
): AdmissionRule<S> {
  return {
    upstream,
    properties,
    reason,
    refusals: (spec) => (refused(spec) ? [{ path: properties[0], reason }] : []),
  };
}

const GP3_DEFAULT_IOPS = 3000;

/** AWSMachineProviderConfig as the machine-api admits it and EC2 launches it. */
export const AWS_ADMISSION: ReadonlyArray<AdmissionRule<AWSMachineProviderConfig>> = [
  rule(`${WEBHOOK} validateAWS`, ["ami"], (s) => !s.ami.id, "an AMI id is required (ami.id)"),
  rule(`${WEBHOOK} validateAWS`, ["region"], (s) => !s.placement.region, "a region is required"),
  rule(`${WEBHOOK} validateAWS`, ["instanceType"], (s) => !s.instanceType, "an instance type is required"),
  rule(
    `${WEBHOOK} validateAWS`,
    ["userDataSecret.name"],
    (s) => !s.userDataSecret?.name,
    "the user data secret needs a name",
  ),
  rule(
    `${WEBHOOK} validateAWS`,
    ["credentialsSecret.name"],
    (s) => !s.credentialsSecret?.name,
    "the credentials secret needs a name",
  ),
  rule(
    `${WEBHOOK} validateAWS`,
    ["capacityReservationId", "spotMarketOptions"],
    (s) => s.spotMarketOptions !== undefined && !!s.capacityReservationId,
    "cannot be used with spotMarketOptions: a capacity reservation holds on-demand instances only (drop one of them)",
  ),
  rule(
    "EC2 RunInstances, as machine-api-provider-aws pkg/actuators/machine/instances.go launchInstance sends it",
    ["dedicatedHostId", "spotMarketOptions"],
    (s) => s.spotMarketOptions !== undefined && s.placement.tenancy === "host",
    "cannot be used with spotMarketOptions: EC2 does not run spot instances on a dedicated host (drop one of them)",
  ),
  rule(
    `${WEBHOOK} processAWSPlacementTenancy`,
    ["dedicatedHostId"],
    (s) => s.placement.host !== undefined && s.placement.tenancy !== "host",
    "a host placement needs tenancy host",
  ),
  rule(
    `${WEBHOOK} validateAWS`,
    ["placementGroupPartition", "placementGroupName"],
    (s) => s.placementGroupPartition !== undefined && !s.placementGroupName,
    "needs placementGroupName: a partition is one of a partition placement group's",
  ),
  {
    upstream: `${WEBHOOK} validateAWS; ${INSTALLER_AWS} validateThroughput`,
    properties: ["blockDevices[].ebs.throughputMib", "blockDevices[].ebs.volumeType"],
    reason: "applies to volumeType gp3 only",
    refusals: (s) =>
      s.blockDevices.flatMap((d, i) =>
        d.ebs.throughputMib !== undefined && d.ebs.volumeType !== "gp3"
          ? [
              {
                path: `blockDevices[${i}].ebs.throughputMib`,
                reason: `applies to gp3 volumes only, not to volumeType ${d.ebs.volumeType}`,
              },
            ]
          : [],
      ),
  },
  {
    upstream: `${INSTALLER_AWS} validateThroughput`,
    properties: ["blockDevices[].ebs.throughputMib", "blockDevices[].ebs.iops"],
    reason: "needs 4 iops per MiB/s at least (gp3)",
    refusals: (s) =>
      s.blockDevices.flatMap((d, i) => {
        const iops = d.ebs.iops || GP3_DEFAULT_IOPS;
        const throughput = d.ebs.throughputMib;
        if (d.ebs.volumeType !== "gp3" || throughput === undefined || throughput * 4 <= iops) return [];
        return [
          {
            path: `blockDevices[${i}].ebs.throughputMib`,
            reason: `${throughput} MiB/s needs iops of at least ${Math.max(Math.ceil((throughput * 4) / 100) * 100, GP3_DEFAULT_IOPS)} (gp3 allows 0.25 MiB/s per IOPS; iops is ${d.ebs.iops || `the default ${GP3_DEFAULT_IOPS}`})`,
          },
        ];
      }),
  },
  {
    upstream: `${INSTALLER_AWS} validateIOPS`,
    properties: ["blockDevices[].ebs.iops", "blockDevices[].ebs.volumeType"],
    reason: "is not supported with volumeType gp2, st1, sc1 or standard",
    refusals: (s) =>
      s.blockDevices.flatMap((d, i) =>
        ["gp2", "st1", "sc1", "standard"].includes(d.ebs.volumeType) && (d.ebs.iops ?? 0) !== 0
          ? [
              {
                path: `blockDevices[${i}].ebs.iops`,
                reason: `is not supported with volumeType ${d.ebs.volumeType}: leave it out or use 0`,
              },
            ]
          : [],
      ),
  },
  {
    upstream: "openshift/installer pkg/asset/machines/aws/machines.go tagsFromUserTags",
    properties: ["tags"],
    reason: "is the cluster ownership tag the installer sets: user tags may not replace it",
    refusals: (s) => {
      const owners = s.tags.filter((t) => t.name.startsWith("kubernetes.io/cluster/"));
      const clobbered = owners.filter((t, i) => owners.findIndex((o) => o.name === t.name) !== i);
      return clobbered.map((t) => ({
        path: `tags["${t.name}"]`,
        reason:
          "is the cluster ownership tag the installer sets: user tags may not replace it (the cloud provider finds the cluster's instances by it)",
      }));
    },
  },
  rule(
    `${INSTALLER_AWS} validateSecurityGroups`,
    ["additionalSecurityGroups"],
    (s) => s.securityGroups.filter((g) => g.id !== undefined).length > 10,
    "at most 10 security groups may be given by id",
  ),
];

const INSTALLER_OS_DISK_TYPES = ["Premium_LRS", "StandardSSD_LRS", "Standard_LRS"];

/** AzureMachineProviderSpec as the machine-api admits it and Azure creates the VM. */
export const AZURE_ADMISSION: ReadonlyArray<AdmissionRule<AzureMachineProviderSpec>> = [
  rule(`${WEBHOOK} validateAzure`, ["vmSize"], (s) => !s.vmSize, "a VM size is required"),
  rule(
    `${WEBHOOK} validateAzure`,
    ["subnet", "vnet"],
    (s) => !!s.vnet && !s.subnet,
    "is required with vnet: a virtual network is given with its subnet",
  ),
  rule(
    `${WEBHOOK} validateAzure`,
    ["vnet", "subnet"],
    (s) => !!s.subnet && !s.vnet,
    "is required with subnet: a subnet is given with its virtual network",
  ),
  rule(
    `${WEBHOOK} validateAzureImage`,
    ["image.resourceID", "image.publisher"],
    (s) => !!s.image.resourceID && !!(s.image.publisher || s.image.offer || s.image.sku || s.image.version),
    "cannot be used with image.publisher, offer, sku or version: give a resource ID or a marketplace image",
  ),
  rule(
    `${WEBHOOK} validateAzure`,
    ["userDataSecret.name"],
    (s) => !s.userDataSecret?.name,
    "the user data secret needs a name",
  ),
  rule(
    `${WEBHOOK} validateAzure`,
    ["credentialsSecret.namespace"],
    (s) => !s.credentialsSecret?.name || !s.credentialsSecret.namespace,
    "the credentials secret needs a name and a namespace",
  ),
  rule(
    `${WEBHOOK} validateAzure`,
    ["osDisk.diskSizeGB"],
    (s) => !(s.osDisk.diskSizeGB > 0 && s.osDisk.diskSizeGB < 32768),
    "must be greater than 0 and less than 32768",
  ),
  rule(
    `${INSTALLER_AZURE} ValidateMachinePool`,
    ["osDisk.managedDisk.storageAccountType"],
    (s) => !INSTALLER_OS_DISK_TYPES.includes(s.osDisk.managedDisk.storageAccountType),
    `is not a type the installer allows for an OS disk: use ${INSTALLER_OS_DISK_TYPES.join(", ")} (UltraSSD_LRS is for data disks, with ultraSSDCapability)`,
  ),
  rule(
    "machine-api-provider-azure pkg/cloud/azure/actuators/machine/reconciler.go getOrCreateAvailabilitySet; Azure refuses spot VMs in an availability set",
    ["availabilitySet", "spotVMOptions"],
    (s) => !!s.availabilitySet && s.spotVMOptions !== undefined,
    "cannot be used with spotVMOptions: Azure does not place spot VMs in an availability set (the machine-api makes none for them)",
  ),
  rule(
    "machine-api-provider-azure pkg/cloud/azure/actuators/machine/reconciler.go getOrCreateAvailabilitySet; Azure refuses a VM with both",
    ["availabilitySet", "zones"],
    (s) => !!s.availabilitySet && !!s.zone,
    "cannot be used with zones: a VM is in an availability zone or in an availability set, not both (availability sets are for regions without zones, zones: [])",
  ),
  rule(
    `${WEBHOOK} validateAzureSecurityProfile`,
    ["security.virtualizedTrustedPlatformModule", "security.type"],
    (s) =>
      s.securityProfile?.settings?.securityType === "ConfidentialVM" &&
      s.securityProfile.settings.confidentialVM?.uefiSettings.virtualizedTrustedPlatformModule !== "Enabled",
    "must be Enabled with security.type ConfidentialVM",
  ),
  rule(
    `${WEBHOOK} validateAzureSecurityProfile`,
    ["encryptionAtHost", "security.confidentialDiskEncryption"],
    (s) =>
      s.osDisk.managedDisk.securityProfile?.securityEncryptionType === "DiskWithVMGuestState" &&
      s.securityProfile?.encryptionAtHost === true,
    "cannot be true with security.confidentialDiskEncryption DiskWithVMGuestState",
  ),
  rule(
    `${WEBHOOK} validateAzureSecurityProfile`,
    ["security.secureBoot", "security.confidentialDiskEncryption"],
    (s) =>
      s.osDisk.managedDisk.securityProfile?.securityEncryptionType === "DiskWithVMGuestState" &&
      s.securityProfile?.settings?.confidentialVM?.uefiSettings.secureBoot !== "Enabled",
    "must be Enabled with security.confidentialDiskEncryption DiskWithVMGuestState",
  ),
  rule(
    // The webhook's default case (no security type); with TrustedLaunch it is Azure that refuses it.
    `${WEBHOOK} validateAzureSecurityProfile; Azure's VM API`,
    ["security.type", "security.confidentialDiskEncryption"],
    (s) =>
      !!s.osDisk.managedDisk.securityProfile?.securityEncryptionType &&
      s.securityProfile?.settings?.securityType !== "ConfidentialVM",
    "must be ConfidentialVM with security.confidentialDiskEncryption",
  ),
  rule(
    `${WEBHOOK} validateAzureDiagnostics`,
    ["bootDiagnostics"],
    (s) => {
      const boot = s.diagnostics?.boot;
      if (!boot) return false;
      if (boot.storageAccountType === "CustomerManaged") return !boot.customerManaged?.storageAccountURI;
      return boot.storageAccountType !== "AzureManaged" || boot.customerManaged !== undefined;
    },
    'use "AzureManaged", or { storageAccountURI } for a storage account of your own',
  ),
  {
    upstream:
      "openshift/installer pkg/asset/machines/azure/machines.go: the cluster's tags are the installer's",
    properties: ["tags"],
    reason: "is the cluster ownership tag the installer sets: user tags may not replace it",
    refusals: (s) =>
      Object.keys(s.tags ?? {})
        .filter((name) => name.startsWith("kubernetes.io_cluster."))
        .map((name) => ({
          path: `tags["${name}"]`,
          reason: "is the cluster ownership tag the installer sets: user tags may not replace it",
        })),
  },
];

/** Every refusal of a provider spec, by the table of its kind. */
export function admissionRefusals(spec: ProviderSpec): Refusal[] {
  const rules = (spec.kind === "AWSMachineProviderConfig" ? AWS_ADMISSION : AZURE_ADMISSION) as ReadonlyArray<
    AdmissionRule<ProviderSpec>
  >;
  return rules.flatMap((r) => r.refusals(spec));
}

/** `spec` when the tables admit it; else every refusal, each at its property. */
export function admitted<S extends ProviderSpec>(spec: S): S {
  InputErrors.throwIfAny(admissionRefusals(spec).map((r) => new InputError(r.path, r.reason)));
  return spec;
}
