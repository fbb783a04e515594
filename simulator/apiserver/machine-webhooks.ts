/**
 * machine-api-operator's admission webhooks for Machines and MachineSets, as kube-apiserver calls them
 * after a write passed schema validation (openshift/machine-api-operator pkg/webhooks/machine_webhook.go,
 * machineset_webhook.go; registered for CREATE and UPDATE of `machines` and `machinesets`, not their
 * subresources, in config.go). The defaulting webhook runs first and the validation sees the provider
 * spec as it leaves it (defaultAWS, defaultAzure): a field it fills is never refused as missing. The
 * simulator does not store the defaulter's rewrite of the provider spec (its Go struct marshalled back),
 * which changes no answer. A denial is answered as the API server answers a webhook's (webhook/errors
 * ToStatusErr over controller-runtime's `Denied`): 403 Forbidden, `admission webhook "<name>" denied the
 * request: <the field errors>`.
 */
import { isObject, jsonEqual, Json } from "../../primitives/objects";
import { selectorMatches, LabelSelector } from "../../primitives/selectors";
import { formatValue } from "../schema/validate";
import { KubeObject } from "../store";
import { MemoryStore } from "../store/memory-store";
import { ApiError } from "./status";
import { Target } from "./target";

const GROUP = "machine.openshift.io";

/** A field error as k8s.io/apimachinery's field.Error prints it: `<path>: <type>[: <value>]: <detail>`. */
type FieldErrors = string[];

const required = (path: string, detail: string) => `${path}: Required value: ${detail}`;
const forbidden = (path: string, detail: string) => `${path}: Forbidden: ${detail}`;
/** `field.Invalid`: the value as ErrorBody prints it (pointers followed, strings quoted, structs in Go syntax). */
const invalid = (path: string, value: unknown, detail: string) =>
  `${path}: Invalid value: ${goValue(value)}: ${detail}`;

function goValue(value: unknown): string {
  if (value === undefined) return "map[string]string(nil)";
  if (isObject(value) && Object.values(value).every((v) => typeof v === "string")) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${JSON.stringify(value[k])}`);
    return `map[string]string{${entries.join(", ")}}`;
  }
  return formatValue(value);
}

const str = (value: unknown): string => (typeof value === "string" ? value : "");
const objectAt = (value: unknown): Json => (isObject(value) ? value : {});

/** What the webhooks know of the cluster (admissionConfig): its platform, region, ID and DNS. */
export interface ClusterConfig {
  clusterId: string;
  awsRegion: string;
  /** `dns.Spec.PublicZone == nil`: an Internal publish strategy. */
  dnsDisconnected: boolean;
}

/** defaultAWS: the instance type, region and secrets the defaulting webhook fills in. */
function defaultAWS(spec: Json, config: ClusterConfig): Json {
  const userData = objectAt(spec.userDataSecret);
  return {
    ...spec,
    instanceType: str(spec.instanceType) || "m5.large",
    placement: {
      ...objectAt(spec.placement),
      region: str(objectAt(spec.placement).region) || config.awsRegion,
    },
    userDataSecret: { ...userData, name: str(userData.name) || "worker-user-data" },
    credentialsSecret: isObject(spec.credentialsSecret)
      ? spec.credentialsSecret
      : { name: "aws-cloud-credentials" },
  };
}

const MARKET_TYPES = ["OnDemand", "Spot", "CapacityBlock"];

/** validateAWSInstanceMarketType: the first problem of the market type with spot and a reservation. */
function marketTypeProblem(spec: Json): string | undefined {
  const market = str(spec.marketType);
  const spot = spec.spotMarketOptions !== undefined && spec.spotMarketOptions !== null;
  const reservation = str(spec.capacityReservationId);
  if (market === "CapacityBlock" && spot)
    return "invalid marketType: marketType set to CapacityBlock and spotMarketOptions cannot be used together";
  if (market === "OnDemand" && spot)
    return "invalid marketType: setting marketType to OnDemand and spotMarketOptions cannot be used together";
  if (market === "CapacityBlock" && !reservation)
    return "capacityReservationID is required when CapacityBlock is provided";
  if (market === "Spot" && reservation)
    return "invalid marketType: marketType set to Spot and capacityReservationID may not be used together";
  if (market !== "" && !MARKET_TYPES.includes(market))
    return `invalid marketType: ${market} valid values are: OnDemand, Spot, CapacityBlock and omitted`;
  return undefined;
}

const DEDICATED_HOST_ID = /^h-([0-9a-f]{8}|[0-9a-f]{17})$/;

/** validateDedicatedHost. */
function dedicatedHostErrors(host: Json): FieldErrors {
  const at = "spec.placement.host.dedicatedHost";
  const strategy = str(host.allocationStrategy) || "UserProvided";
  const id = str(host.id);
  const dynamic = host.dynamicHostAllocation;
  if (strategy === "UserProvided") {
    return [
      ...(id === ""
        ? [
            required(
              `${at}.id`,
              "id is required when allocationStrategy is UserProvided and must start with 'h-' followed by 8 or 17 lowercase hexadecimal characters (0-9 and a-f)",
            ),
          ]
        : !DEDICATED_HOST_ID.test(id)
          ? [
              invalid(
                `${at}.id`,
                id,
                "id must start with 'h-' followed by 8 or 17 lowercase hexadecimal characters (0-9 and a-f)",
              ),
            ]
          : []),
      ...(dynamic !== undefined && dynamic !== null
        ? [
            invalid(
              `${at}.dynamicHostAllocation`,
              id,
              "dynamicHostAllocation is only allowed when allocationStrategy is Dynamic",
            ),
          ]
        : []),
    ];
  }
  if (strategy === "Dynamic") {
    const errors = id
      ? [forbidden(`${at}.id`, "id is only allowed when allocationStrategy is Provided")]
      : [];
    if (isObject(dynamic)) {
      const tags = dynamic.tags;
      if (!Array.isArray(tags)) {
        errors.push(
          required(
            `${at}.dynamicHostAllocation.tags`,
            "at least one property must be specified in dynamicHostAllocation",
          ),
        );
      } else if (tags.length < 1) {
        errors.push(
          invalid(`${at}.dynamicHostAllocation.tags`, tags.length, "at least 1 tag must be specified"),
        );
      } else if (tags.length > 50) {
        errors.push(
          invalid(`${at}.dynamicHostAllocation.tags`, tags.length, "maximum 50 tags can be specified"),
        );
      }
    }
    return errors;
  }
  return [
    invalid(
      `${at}.allocationStrategy`,
      host.allocationStrategy,
      "Invalid allocationStrategy, the only allowed options are: UserProvided, Dynamic",
    ),
  ];
}

/** processAWSPlacementTenancy: tenancy and host placement together. */
function tenancyErrors(machine: KubeObject, placement: Json): FieldErrors {
  const tenancy = str(placement.tenancy);
  const host = placement.host;
  if (tenancy === "" || tenancy === "default" || tenancy === "dedicated") {
    return host !== undefined && host !== null
      ? [forbidden("spec.placement.host", "host may only be specified when tenancy is 'host'")]
      : [];
  }
  if (tenancy !== "host") {
    return [
      invalid(
        "providerSpec.tenancy",
        tenancy,
        "Invalid providerSpec.tenancy, the only allowed options are: default, dedicated, host, or omitted",
      ),
    ];
  }
  const labels = machine.metadata.labels ?? {};
  const role = "machine.openshift.io/cluster-api-machine-role";
  const type = "machine.openshift.io/cluster-api-machine-type";
  if (labels[role] === "master" || labels[type] === "master") {
    return [
      forbidden(
        "spec.placement.tenancy",
        "dedicated host tenancy is not supported for control plane machines",
      ),
    ];
  }
  if (!isObject(host)) return [];
  const affinity = host.affinity;
  const dedicated = host.dedicatedHost;
  if (affinity === undefined || affinity === null) {
    return [
      required(
        "spec.placement.host.affinity",
        "affinity is required and must be set to either AnyAvailable or DedicatedHost",
      ),
    ];
  }
  if (affinity === "AnyAvailable") {
    if (!isObject(dedicated)) return [];
    return [
      ...(dedicated.allocationStrategy === "Dynamic"
        ? [
            forbidden(
              "spec.placement.host.affinity",
              "hostAffinity must be DedicatedHost when using dynamic host allocation",
            ),
          ]
        : []),
      ...dedicatedHostErrors(dedicated),
    ];
  }
  if (affinity === "DedicatedHost") {
    return isObject(dedicated)
      ? dedicatedHostErrors(dedicated)
      : [
          required(
            "spec.placement.host.dedicatedHost",
            "dedicatedHost is required when hostAffinity is DedicatedHost, and optional otherwise",
          ),
        ];
  }
  return [
    invalid(
      "spec.placement.host.affinity",
      affinity,
      "hostAffinity must be either AnyAvailable or DedicatedHost",
    ),
  ];
}

/** validateAWS, on the defaulted spec. */
function validateAWS(machine: KubeObject, spec: Json): FieldErrors {
  const errors: FieldErrors = [];
  if (typeof objectAt(spec.ami).id !== "string") {
    errors.push(required("providerSpec.ami", "expected providerSpec.ami.id to be populated"));
  }
  if (!str(objectAt(spec.placement).region)) {
    errors.push(
      required("providerSpec.placement.region", "expected providerSpec.placement.region to be populated"),
    );
  }
  const reservation = str(spec.capacityReservationId);
  if (reservation !== "" && !/^cr-[0-9a-f]{17}$/.test(reservation)) {
    errors.push(
      invalid(
        "providerSpec.capacityReservationId",
        reservation,
        `invalid value for capacityReservationId: ${JSON.stringify(reservation)}, it must start with 'cr-' and be exactly 20 characters long with 17 hexadecimal characters`,
      ),
    );
  }
  const market = str(spec.marketType);
  const marketProblem = market !== "" ? marketTypeProblem(spec) : undefined;
  if (marketProblem) errors.push(invalid("providerSpec.marketType", market, marketProblem));
  if (
    market === "" &&
    spec.spotMarketOptions !== undefined &&
    spec.spotMarketOptions !== null &&
    reservation
  ) {
    errors.push(
      invalid(
        "providerSpec.capacityReservationId",
        reservation,
        "spotMarketOptions and capacityReservationID may not be used together",
      ),
    );
  }
  const devices = Array.isArray(spec.blockDevices) ? spec.blockDevices : [];
  devices.forEach((device, i) => {
    const ebs = objectAt(objectAt(device).ebs);
    if (ebs.volumeType === undefined || ebs.throughputMib === undefined) return;
    const path = `providerSpec.blockDevices[${i}].ebs.throughputMib`;
    const throughput = ebs.throughputMib as number;
    if (ebs.volumeType !== "gp3") errors.push(invalid(path, throughput, "only valid for gp3 volumes"));
    else if (throughput < 125 || throughput > 2000)
      errors.push(invalid(path, throughput, "must be a value between 125 and 2000"));
  });
  errors.push(...tenancyErrors(machine, objectAt(spec.placement)));
  const partition = spec.placementGroupPartition;
  if (typeof partition === "number") {
    if (partition < 1 || partition > 7) {
      errors.push(
        invalid(
          "providerSpec.placementGroupPartition",
          partition,
          "providerSpec.placementGroupPartition must be between 1 and 7",
        ),
      );
    }
    if (!str(spec.placementGroupName)) {
      errors.push(
        invalid(
          "providerSpec.placementGroupPartition",
          partition,
          "providerSpec.placementGroupPartition is set but providerSpec.placementGroupName is empty",
        ),
      );
    }
  }
  const nic = str(spec.networkInterfaceType);
  if (!["", "ENA", "EFA"].includes(nic)) {
    errors.push(invalid("providerSpec.networkInterfaceType", nic, "Valid values are: ENA, EFA and omitted"));
  }
  const authentication = str(objectAt(spec.metadataServiceOptions).authentication);
  if (!["", "Optional", "Required"].includes(authentication)) {
    errors.push(
      invalid(
        "providerSpec.metadataServiceOptions.authentication",
        authentication,
        "Allowed values are either 'Optional' or 'Required'",
      ),
    );
  }
  if (isObject(spec.cpuOptions)) {
    const cpu = spec.cpuOptions;
    if (Object.values(cpu).every((v) => v === undefined || v === null || v === "")) {
      errors.push(
        invalid("providerSpec.CPUOptions", "{}", "At least one field must be set if cpuOptions is provided"),
      );
    }
    const confidential = cpu.confidentialCompute;
    if (
      confidential !== undefined &&
      confidential !== null &&
      !["Disabled", "AMDEncryptedVirtualizationNestedPaging"].includes(str(confidential))
    ) {
      errors.push(
        invalid(
          "providerSpec.CPUOptions.ConfidentialCompute",
          confidential,
          "Allowed values are Disabled, AMDEncryptedVirtualizationNestedPaging and omitted",
        ),
      );
    }
  }
  return errors;
}

/** defaultAzure: the VM size, network, image and secrets the defaulting webhook fills in. */
function defaultAzure(spec: Json, config: ClusterConfig): Json {
  const bare = !str(spec.vnet) && !str(spec.subnet);
  const image = objectAt(spec.image);
  const userData = objectAt(spec.userDataSecret);
  const credentials = objectAt(spec.credentialsSecret);
  return {
    ...spec,
    vmSize: str(spec.vmSize) || "Standard_D4s_V3",
    ...(bare ? { vnet: `${config.clusterId}-vnet`, subnet: `${config.clusterId}-worker-subnet` } : {}),
    image: Object.values(image).some((v) => v !== "" && v !== undefined && v !== null)
      ? image
      : {
          resourceID: `/resourceGroups/${config.clusterId}-rg/providers/Microsoft.Compute/images/${config.clusterId}`,
        },
    userDataSecret: { ...userData, name: str(userData.name) || "worker-user-data" },
    credentialsSecret: {
      ...credentials,
      name: str(credentials.name) || "azure-cloud-credentials",
      namespace: str(credentials.namespace) || "openshift-machine-api",
    },
  };
}

/** validateAzureImage: a resource ID alone, or the four marketplace fields. */
function imageErrors(image: Json): FieldErrors {
  if (str(image.resourceID)) {
    const others = Object.entries(image).some(([k, v]) => k !== "resourceID" && v !== "" && v !== undefined);
    return others
      ? [
          required(
            "providerSpec.image.resourceID",
            "resourceID is already specified, other fields such as [Offer, Publisher, SKU, Version] should not be set",
          ),
        ]
      : [];
  }
  return (
    [
      ["offer", "Offer"],
      ["publisher", "Publisher"],
      ["sku", "SKU"],
      ["version", "Version"],
    ] as const
  )
    .filter(([key]) => !str(image[key]))
    .map(([, name]) => required(`providerSpec.image.${name}`, `${name} must be provided`));
}

/** parseAzureResourceID (with validateAzureCapacityReservationGroupID's prefix): why `id` is not one. */
function azureResourceIdProblem(given: string): string | undefined {
  const id = given.startsWith("azure://") ? given.slice("azure://".length) : given;
  if (id === "") return "invalid resource ID: id cannot be empty";
  if (!id.startsWith("/")) return `invalid resource ID: resource id '${id}' must start with '/'`;
  const bad = `invalid resource ID: ${id}`;
  const parts = id.split("/").filter((p) => p !== "");
  const is = (part: string | undefined, key: string) => part?.toLowerCase() === key;
  if (parts.length < 2 || !(is(parts[0], "subscriptions") || is(parts[0], "providers"))) return bad;
  // appendNextAzureResourceIDValidation: name/value pairs, a provider's namespace skipped over.
  for (let rest = parts; rest.length > 0;) {
    if (rest.length === 1)
      return is(rest[0], "subscriptions") || is(rest[0], "resourcegroups") ? bad : undefined;
    if (is(rest[0], "providers") && (rest.length === 2 || is(rest[2], "providers"))) rest = rest.slice(2);
    else if (rest.length > 3 && is(rest[0], "providers")) rest = rest.slice(4);
    else if (!is(rest[0], "providers")) rest = rest.slice(2);
    else return bad;
  }
  return undefined;
}

/** validateAzureSecurityProfile: the first problem, as it returns at the first. */
function securityProfileErrors(spec: Json): FieldErrors {
  const at = "providerSpec.securityProfile";
  const encryption = str(
    objectAt(objectAt(objectAt(spec.osDisk).managedDisk).securityProfile).securityEncryptionType,
  );
  const profile = spec.securityProfile;
  if (!isObject(profile)) {
    return encryption
      ? [
          required(
            at,
            "securityProfile should be set when osDisk.managedDisk.securityProfile.securityEncryptionType is defined.",
          ),
        ]
      : [];
  }
  const settings = objectAt(profile.settings);
  const type = str(settings.securityType);
  if (type === "ConfidentialVM") {
    if (!encryption) {
      return [
        required(
          "providerSpec.osDisk.managedDisk.securityProfile.securityEncryptionType",
          "securityEncryptionType should be set when securityType is set to ConfidentialVM.",
        ),
      ];
    }
    if (!isObject(settings.confidentialVM)) {
      return [
        required(
          `${at}.settings.confidentialVM`,
          "confidentialVM should be set when securityType is set to ConfidentialVM.",
        ),
      ];
    }
    const uefi = objectAt(settings.confidentialVM.uefiSettings);
    const uefiAt = `${at}.settings.confidentialVM.uefiSettings`;
    if (uefi.virtualizedTrustedPlatformModule !== "Enabled") {
      return [
        invalid(
          `${uefiAt}.virtualizedTrustedPlatformModule`,
          str(uefi.virtualizedTrustedPlatformModule),
          "virtualizedTrustedPlatformModule should be enabled when securityType is set to ConfidentialVM.",
        ),
      ];
    }
    if (encryption === "DiskWithVMGuestState") {
      if (profile.encryptionAtHost === true) {
        return [
          invalid(
            `${at}.encryptionAtHost`,
            true,
            "encryptionAtHost cannot be set to true when securityEncryptionType is set to DiskWithVMGuestState.",
          ),
        ];
      }
      if (uefi.secureBoot !== "Enabled") {
        return [
          invalid(
            `${uefiAt}.secureBoot`,
            str(uefi.secureBoot),
            "secureBoot should be enabled when securityEncryptionType is set to DiskWithVMGuestState.",
          ),
        ];
      }
    }
    return [];
  }
  if (type === "TrustedLaunch") {
    return isObject(settings.trustedLaunch)
      ? []
      : [
          required(
            `${at}.settings.trustedLaunch`,
            "trustedLaunch should be set when securityType is set to TrustedLaunch.",
          ),
        ];
  }
  if (encryption) {
    return [
      invalid(
        `${at}.settings.securityType`,
        type,
        "securityType should be set to ConfidentialVM when securityEncryptionType is defined.",
      ),
    ];
  }
  const trusted = settings.trustedLaunch;
  const uefi = objectAt(objectAt(trusted).uefiSettings);
  if (
    isObject(trusted) &&
    (uefi.secureBoot === "Enabled" || uefi.virtualizedTrustedPlatformModule === "Enabled")
  ) {
    return [
      invalid(
        `${at}.settings.securityType`,
        type,
        "securityType should be set to TrustedLaunch when uefiSettings are enabled.",
      ),
    ];
  }
  return [];
}

const DISK_NAME_SUFFIX = /^[a-zA-Z0-9](?:[\w.-]*[a-zA-Z0-9])?$/;

/** validateAzureDataDisks: each disk's name, size, LUN, deletion policy and caching. */
function dataDiskErrors(machineName: string, disks: unknown): FieldErrors {
  const errors: FieldErrors = [];
  const suffixes = new Set<string>();
  const luns = new Set<number>();
  (Array.isArray(disks) ? disks : []).forEach((given, i) => {
    const disk = objectAt(given);
    const at = `providerSpec.dataDisks[${i}]`;
    const suffix = str(disk.nameSuffix);
    const lun = typeof disk.lun === "number" ? disk.lun : 0;
    if (`${machineName}_${suffix}`.length > 80)
      errors.push(
        invalid(`${at}.nameSuffix`, suffix, "too long, the overall disk name must not exceed 80 chars"),
      );
    if (!DISK_NAME_SUFFIX.test(suffix)) {
      errors.push(
        invalid(
          `${at}.nameSuffix`,
          suffix,
          "nameSuffix must be provided, must start and finish with an alphanumeric character and can only contain letters, numbers, underscores, periods or hyphens",
        ),
      );
    }
    if (suffixes.has(suffix))
      errors.push(invalid(`${at}.nameSuffix`, suffix, "each Data Disk must have a unique nameSuffix"));
    const size = typeof disk.diskSizeGB === "number" ? disk.diskSizeGB : 0;
    if (size < 4)
      errors.push(invalid(`${at}.diskSizeGB`, size, "diskSizeGB must be provided and at least 4GB in size"));
    if (lun < 0 || lun > 63)
      errors.push(invalid(`${at}.lun`, lun, "must be greater than or equal to 0 and less than 64"));
    if (luns.has(lun)) errors.push(invalid(`${at}.lun`, lun, "each Data Disk must have a unique lun"));
    const policy = str(disk.deletionPolicy);
    if (policy === "") {
      errors.push(
        required(
          `${at}.deletionPolicy`,
          "deletionPolicy must be provided and must be either Delete or Detach",
        ),
      );
    } else if (policy !== "Delete" && policy !== "Detach") {
      errors.push(invalid(`${at}.deletionPolicy`, policy, "must be either Delete or Detach"));
    }
    const caching = str(disk.cachingType);
    if (
      str(objectAt(disk.managedDisk).storageAccountType) === "UltraSSD_LRS" &&
      caching !== "None" &&
      caching !== ""
    ) {
      errors.push(
        invalid(
          `${at}.cachingType`,
          caching,
          'must be "None" or omitted when storageAccountType is "UltraSSD_LRS"',
        ),
      );
    }
    luns.add(lun);
    suffixes.add(suffix);
  });
  return errors;
}

/** validateAzureDiagnostics. */
function diagnosticsErrors(diagnostics: unknown): FieldErrors {
  const boot = objectAt(diagnostics).boot;
  if (!isObject(boot)) return [];
  const at = "providerSpec.diagnostics.boot";
  const customer = boot.customerManaged;
  if (boot.storageAccountType === "CustomerManaged") {
    if (!isObject(customer))
      return [required(`${at}.customerManaged`, "customerManaged configuration must be provided")];
    return str(customer.storageAccountURI)
      ? []
      : [required(`${at}.customerManaged.storageAccountURI`, "storageAccountURI must be provided")];
  }
  if (boot.storageAccountType === "AzureManaged") {
    return isObject(customer)
      ? [
          // A struct: printed in Go syntax.
          `${at}.customerManaged: Invalid value: v1beta1.AzureCustomerManagedBootDiagnostics{StorageAccountURI:${JSON.stringify(str(customer.storageAccountURI))}}: customerManaged may not be set when type is AzureManaged`,
        ]
      : [];
  }
  return [
    invalid(
      `${at}.storageAccountType`,
      str(boot.storageAccountType),
      "storageAccountType must be one of: AzureManaged, CustomerManaged",
    ),
  ];
}

/** validateAzure, on the defaulted spec. */
function validateAzure(machine: KubeObject, spec: Json, config: ClusterConfig): FieldErrors {
  const errors: FieldErrors = [];
  if (spec.publicIP === true && config.dnsDisconnected) {
    errors.push(
      forbidden(
        "providerSpec.publicIP",
        "publicIP is not allowed in Azure disconnected installation with publish strategy as internal",
      ),
    );
  }
  if (str(spec.vnet) && !str(spec.subnet))
    errors.push(required("providerSpec.subnet", "must provide a subnet when a virtual network is specified"));
  if (str(spec.subnet) && !str(spec.vnet))
    errors.push(required("providerSpec.vnet", "must provide a virtual network when supplying subnets"));
  errors.push(...imageErrors(objectAt(spec.image)));
  const disk = objectAt(spec.osDisk);
  const size = typeof disk.diskSizeGB === "number" ? disk.diskSizeGB : 0;
  if (size <= 0 || size >= 32768) {
    errors.push(
      invalid(
        "providerSpec.osDisk.diskSizeGB",
        size,
        "diskSizeGB must be greater than zero and less than 32768",
      ),
    );
  }
  const ephemeral = str(objectAt(disk.diskSettings).ephemeralStorageLocation);
  if (ephemeral !== "" && ephemeral !== "Local") {
    errors.push(
      invalid(
        "providerSpec.osDisk.diskSettings.ephemeralStorageLocation",
        ephemeral,
        "osDisk.diskSettings.ephemeralStorageLocation can either be omitted or set to Local",
      ),
    );
  }
  const reservation = str(spec.capacityReservationGroupID);
  const reservationProblem = reservation ? azureResourceIdProblem(reservation) : undefined;
  if (reservationProblem)
    errors.push(invalid("providerSpec.capacityReservationGroupID", reservation, reservationProblem));
  const caching = str(disk.cachingType);
  if (!["None", "ReadOnly", "ReadWrite", ""].includes(caching)) {
    errors.push(
      invalid(
        "providerSpec.osDisk.cachingType",
        caching,
        "osDisk.cachingType can be only None, ReadOnly, ReadWrite or omitted",
      ),
    );
  }
  if (ephemeral === "Local" && caching !== "ReadOnly") {
    errors.push(
      invalid(
        "providerSpec.osDisk.cachingType",
        caching,
        "Instances using an ephemeral OS disk support only Readonly caching",
      ),
    );
  }
  const ultra = str(spec.ultraSSDCapability);
  if (!["Enabled", "Disabled", ""].includes(ultra)) {
    errors.push(
      invalid(
        "providerSpec.ultraSSDCapability",
        ultra,
        "ultraSSDCapability can be only Enabled, Disabled or omitted",
      ),
    );
  }
  errors.push(...securityProfileErrors(spec));
  errors.push(...dataDiskErrors(machine.metadata.name ?? "", spec.dataDisks));
  errors.push(...diagnosticsErrors(spec.diagnostics));
  return errors;
}

/** getMachineValidatorOperation and getMachineDefaulterOperation: by the cluster's platform. */
const PLATFORMS: Record<
  string,
  {
    defaults(spec: Json, config: ClusterConfig): Json;
    validate(machine: KubeObject, spec: Json, config: ClusterConfig): FieldErrors;
  }
> = {
  AWS: { defaults: defaultAWS, validate: validateAWS },
  Azure: { defaults: defaultAzure, validate: validateAzure },
};

/** A Machine of no name, as validateMachineSet makes one of a MachineSet's template. */
const TEMPLATE_MACHINE: KubeObject = {
  apiVersion: `${GROUP}/v1beta1`,
  kind: "Machine",
  metadata: { name: "" },
};

/**
 * What the validating webhook of `platform` (the Infrastructure's type) refuses of a Machine's provider
 * spec, as the defaulting one leaves it: the field errors, printed; nothing on another platform.
 */
export function providerSpecDenials(
  platform: string,
  value: Json,
  config: ClusterConfig = { clusterId: "cluster", awsRegion: "", dnsDisconnected: false },
  machine: KubeObject = TEMPLATE_MACHINE,
): string[] {
  const operations = PLATFORMS[platform];
  return operations ? operations.validate(machine, operations.defaults(value, config), config) : [];
}

/** validateMachineSetSpec: the selector never changes and selects the template. */
function machineSetSpecErrors(machineSet: KubeObject, old: KubeObject | undefined): FieldErrors {
  const spec = objectAt(machineSet.spec);
  const selector = objectAt(spec.selector) as LabelSelector;
  const given = objectAt(objectAt(spec.template).metadata).labels as Record<string, string> | undefined;
  const labels = given ?? {};
  return [
    ...(old && !jsonEqual(objectAt(old.spec).selector ?? {}, spec.selector ?? {})
      ? [forbidden("spec.selector", "selector is immutable")]
      : []),
    ...(!selectorMatches(selector, labels)
      ? [invalid("spec.template.metadata.labels", given, "`selector` does not match template `labels`")]
      : []),
  ];
}

/** The cluster facts the webhook server read when it started (getInfra, getDNS). */
function clusterConfig(store: MemoryStore): { platform: string; config: ClusterConfig } {
  const infra = store.get({ apiVersion: "config.openshift.io/v1", kind: "Infrastructure", name: "cluster" });
  const status = objectAt(infra?.status);
  const platformStatus = objectAt(status.platformStatus);
  const dns = store.get({ apiVersion: "config.openshift.io/v1", kind: "DNS", name: "cluster" });
  return {
    platform: str(platformStatus.type),
    config: {
      clusterId: str(status.infrastructureName),
      awsRegion: str(objectAt(platformStatus.aws).region),
      dnsDisconnected: dns !== undefined && !isObject(objectAt(dns.spec).publicZone),
    },
  };
}

/**
 * Throws the webhooks' denial of a create or update of a Machine or MachineSet (`old`: the object
 * before an update); anything else passes.
 */
export function admitMachineApi(
  store: MemoryStore,
  target: Target,
  object: KubeObject,
  old: KubeObject | undefined,
): void {
  const { group, kind } = target.resource;
  if (group !== GROUP || target.subresource || (kind !== "Machine" && kind !== "MachineSet")) return;
  // Deleting: a Machine's finalizer removal is let through (validateMachine, isFinalizerOnlyRemoval).
  if (kind === "Machine" && object.metadata.deletionTimestamp && old && jsonEqual(old.spec, object.spec))
    return;
  const { platform, config } = clusterConfig(store);
  const machineSpec = objectAt(
    kind === "Machine" ? object.spec : objectAt(objectAt(object.spec).template).spec,
  );
  const errors = kind === "MachineSet" ? machineSetSpecErrors(object, old) : [];
  const value = objectAt(machineSpec.providerSpec).value;
  // getMachineValidatorOperation: other platforms' provider specs are not validated.
  if (platform in PLATFORMS) {
    if (!isObject(value)) errors.push(required("providerSpec.value", "a value must be provided"));
    else
      errors.push(
        ...providerSpecDenials(platform, value, config, kind === "Machine" ? object : TEMPLATE_MACHINE),
      );
  }
  if (errors.length === 0) return;
  // field.ErrorList.ToAggregate: each message once; several bracketed.
  const unique = [...new Set(errors)];
  const message = unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
  const webhook = `validation.${kind.toLowerCase()}.machine.openshift.io`;
  throw new ApiError(
    403,
    "Forbidden",
    `admission webhook ${JSON.stringify(webhook)} denied the request: ${message}`,
  );
}
