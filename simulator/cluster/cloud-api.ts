/**
 * What the simulated clouds answer when the machine-api asks for an instance in a zone or of a size
 * they lack, worded as the real APIs answer and as the real actuators wrap it into the Machine's
 * `status.errorMessage` (each a terminal InvalidConfiguration error: the machine controller sets phase
 * Failed, machine-api-operator pkg/controller/machine/controller.go `isInvalidMachineConfigurationError`).
 */
import { Json, field } from "../../primitives/objects";
import { hexHash } from "../controllers/util";

/** A size the simulated cloud offers. */
export interface CloudSize {
  cpu: string;
  memory: string;
  arch: "amd64" | "arm64";
  /** Zones of the region (as a provider spec names them) that do not offer it. */
  notIn?: string[];
  /** Azure: whether its network interfaces can use accelerated networking (the SKU's capability). */
  acceleratedNetworking?: boolean;
}

/** The regions and sizes of a simulated cloud. */
export interface CloudCatalog {
  /** Zones by region, as a provider spec names them (AWS `us-east-2a`, Azure `"1"`); [] for a region without zones. */
  regions: Readonly<Record<string, readonly string[]>>;
  sizes: Readonly<Record<string, CloudSize>>;
}

/** The AWS request id of a failed call: deterministic, so that the same machine fails the same way. */
function requestId(machine: string): string {
  const h = hexHash(`request/${machine}`, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * AWS, in the order machine-api-provider-aws pkg/actuators/machine/instances.go `launchInstance` meets
 * them: `getSubnetIDs` describes the zone of a subnet given by filters (DescribeAvailabilityZones:
 * InvalidParameterValue for a zone the region lacks), then RunInstances refuses a type EC2 does not
 * have (InvalidParameterValue) or does not offer in the zone (Unsupported), a 4xx that launchInstance
 * returns as `error launching instance: <message>`. A region the simulation does not model is
 * taken to have what is asked for.
 */
export function awsLaunchProblem(cloud: CloudCatalog, machine: string, spec: Json): string | undefined {
  const region = field<string>(spec, "placement", "region") ?? "";
  const zone = field<string>(spec, "placement", "availabilityZone") ?? "";
  const type = field<string>(spec, "instanceType") ?? "";
  const zones = cloud.regions[region];
  if (zones === undefined) return undefined;
  if (zone !== "" && !zones.includes(zone)) {
    const reason = `Invalid availability zone: [${zone}]`;
    return field(spec, "subnet", "id") !== undefined
      ? `error launching instance: ${reason}`
      : `error getting subnet IDs: error describing availability zones: InvalidParameterValue: ${reason}\n\tstatus code: 400, request id: ${requestId(machine)}`;
  }
  const size = cloud.sizes[type];
  if (!size) return `error launching instance: Invalid value '${type}' for InstanceType.`;
  if (zone !== "" && size.notIn?.includes(zone)) {
    const others = zones.filter((z) => !size.notIn!.includes(z));
    return `error launching instance: Your requested instance type (${type}) is not supported in your requested Availability Zone (${zone}). Please retry your request by not specifying an Availability Zone or choosing ${others.join(", ")}.`;
  }
  return undefined;
}

/** The simulated subscription every Azure resource ID names. */
export const AZURE_SUBSCRIPTION = "53b8f551-f0fc-4bea-8cba-6d1fefd54c8a";

const RULE = "-".repeat(80);

/** An ARM error as azcore's ResponseError prints it (method and URL, status, code, the body). */
function armError(url: string, status: string, code: string, message: string): string {
  const body = JSON.stringify({ error: { code, message } }, null, 2);
  return `PUT ${url}\n${RULE}\nRESPONSE ${status}\nERROR CODE: ${code}\n${RULE}\n${body}\n${RULE}\n`;
}

/**
 * Azure, in the order machine-api-provider-azure pkg/cloud/azure/actuators/machine/reconciler.go
 * `CreateMachine` meets them: with accelerated networking, `createOrUpdateNetworkInterface` reads the
 * size's SKU (resourceskus cache.go `Get`: not found) and its capability; then the VM's PUT, which ARM
 * refuses for a size it does not have (400 InvalidParameter) or does not offer in the location or zone
 * (409 SkuNotAvailable, which is also its answer for a zone the location lacks). The actuator's
 * `Create` makes any 4xx an InvalidConfiguration error: `failed to reconcile machine "<name>": ...`.
 */
export function azureLaunchProblem(cloud: CloudCatalog, machine: string, spec: Json): string | undefined {
  const location = field<string>(spec, "location") ?? "";
  const zone = field<string>(spec, "zone") ?? "";
  const vmSize = field<string>(spec, "vmSize") ?? "";
  const zones = cloud.regions[location];
  if (zones === undefined) return undefined;
  const failed = (why: string) => `failed to reconcile machine ${JSON.stringify(machine)}: ${why}`;
  const name = Object.keys(cloud.sizes).find((s) => s.toLowerCase() === vmSize.toLowerCase());
  const size = name === undefined ? undefined : cloud.sizes[name];
  if (field(spec, "acceleratedNetworking") === true) {
    const nic = `failed to create nic ${machine}-nic for machine ${machine}`;
    if (!size) {
      const valid = Object.keys(cloud.sizes)
        .map((s) => JSON.stringify(s))
        .join(" ");
      return failed(
        `${nic}: failed to obtain instance type information for VMSize '${vmSize}' from Azure: resource SKU with name '${vmSize}' and category 'virtualMachines' not found in location '${location}': resource not found: The valid virtualMachines in the current region are: [${valid}]. Find out more on the valid resources in each region at https://aka.ms/azure-regionservices`,
      );
    }
    if (size.acceleratedNetworking === false) {
      return failed(`${nic}: accelerated networking not supported on instance type: ${vmSize}`);
    }
  }
  const group = field<string>(spec, "resourceGroup") ?? "";
  const id = `/subscriptions/${AZURE_SUBSCRIPTION}/resourceGroups/${group}/providers/Microsoft.Compute/virtualMachines/${machine}`;
  const vm = (status: string, code: string, message: string) =>
    failed(
      `failed to create vm ${machine}: failed to create VM: cannot create vm: ${armError(`https://management.azure.com${id}`, status, code, message)}`,
    );
  if (!size) {
    return vm(
      "400: 400 Bad Request",
      "InvalidParameter",
      `The value ${vmSize} provided for the VM size is not valid. The valid sizes in the current region are: ${Object.keys(cloud.sizes).join(",")}.`,
    );
  }
  if ((zone !== "" && !zones.includes(zone)) || size.notIn?.includes(zone)) {
    return vm(
      "409: 409 Conflict",
      "SkuNotAvailable",
      `The requested size for resource '${id}' is currently not available in location '${location}' zones '${zone}' for subscription '${AZURE_SUBSCRIPTION}'. Please try another size or deploy to a different location or zones. See https://aka.ms/azureskunotavailable for details.`,
    );
  }
  return undefined;
}
