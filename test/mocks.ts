import * as pulumi from "@pulumi/pulumi";
import { AZURE_ZONAL_REGIONS } from "../builders/machineset/azure-regions";

/**
 * The one mocks module every Pulumi test shares: `pulumi.runtime.setMocks` is process-global, so tests
 * reset this object instead of installing their own. It records every registered resource and answers
 * reads of cluster objects and cloud lookups from a small fake cluster that tests can reshape.
 */

export interface RegisteredResource {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  /** Set (non-empty) for `.get` reads of existing objects. */
  id?: string;
  /** Reference (`<urn>::<id>`) of the provider given explicitly, if any. */
  provider?: string;
}

type CallHandler = (inputs: Record<string, unknown>) => Record<string, unknown>;

export interface FakeCloud {
  /** Cluster objects by `<apiVersion>:<kind>:<namespace/name or name>`. */
  objects: Record<string, Record<string, unknown>>;
  /** Invoke tokens to handlers; an invoke without one fails the test loudly. */
  calls: Record<string, CallHandler>;
  /**
   * Azure Resource Manager's answers by path (`/subscriptions/<id>/providers/Microsoft.Compute/skus`), for
   * the lookups no azure-native function wraps; a request without one fails the test loudly.
   */
  arm?: Record<string, (url: URL) => unknown>;
}

/** The fake subscription and the token the fake azure-native provider hands out. */
export const AZURE_SUBSCRIPTION = "00000000-0000-0000-0000-00000000000a";
export const AZURE_TOKEN = "fake-arm-token";

export const AWS_INFRA_ID = "cluster-zbwlg-cbgq7";
export const AWS_AMI = "ami-01af87a6ecc18023d";
export const WINDOWS_2022_AMI = "ami-0w2022containers";
export const AZURE_INFRA_ID = "mycluster-x7k2p";
export const AZURE_IMAGE = {
  offer: "",
  publisher: "",
  resourceID: `/resourceGroups/${AZURE_INFRA_ID}-rg/providers/Microsoft.Compute/galleries/gallery_${AZURE_INFRA_ID.replace("-", "_")}/images/${AZURE_INFRA_ID}-gen2/versions/latest`,
  sku: "",
  version: "",
};

function workerMachineSet(name: string, value: Record<string, unknown>) {
  return {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "MachineSet",
    metadata: { name, namespace: "openshift-machine-api" },
    spec: { template: { spec: { providerSpec: { value } } } },
  };
}

/** An AWS cluster in us-east-2 as seed 001 shows it, with the lookups a pool may make. */
export function awsCloud(): FakeCloud {
  const zones = ["us-east-2a", "us-east-2b", "us-east-2c"];
  const objects: FakeCloud["objects"] = {
    "config.openshift.io/v1:Infrastructure:cluster": {
      apiVersion: "config.openshift.io/v1",
      kind: "Infrastructure",
      metadata: { name: "cluster" },
      status: {
        infrastructureName: AWS_INFRA_ID,
        platform: "AWS",
        platformStatus: { type: "AWS", aws: { region: "us-east-2" } },
      },
    },
  };
  for (const zone of zones) {
    const name = `${AWS_INFRA_ID}-worker-${zone}`;
    objects[`machine.openshift.io/v1beta1:MachineSet:openshift-machine-api/${name}`] = workerMachineSet(
      name,
      {
        ami: { id: AWS_AMI },
        kind: "AWSMachineProviderConfig",
      },
    );
  }
  const filter = (inputs: Record<string, unknown>, name: string) =>
    ((inputs.filters as Array<{ name: string; values: string[] }>) ?? []).find((f) => f.name === name)
      ?.values ?? [];
  return {
    objects,
    calls: {
      "aws:index/getAvailabilityZones:getAvailabilityZones": () => ({
        names: zones,
        zoneIds: zones.map((_, i) => `use2-az${i + 1}`),
      }),
      "aws:ec2/getSubnets:getSubnets": (inputs) => ({
        ids: filter(inputs, "availability-zone").map((z) => `subnet-private-${z}`),
      }),
      "aws:ec2/getSubnet:getSubnet": (inputs) => {
        const id = String(inputs.id);
        const zone = zones.find((z) => id.endsWith(z));
        if (!zone) throw new Error(`InvalidSubnetID.NotFound: The subnet ID '${id}' does not exist`);
        return { id, availabilityZone: zone };
      },
      "aws:ec2/getAmi:getAmi": (inputs) => {
        const name = filter(inputs, "name")[0] ?? "";
        if (!name.startsWith("Windows_Server-2022") && !name.startsWith("Windows_Server-2019")) {
          throw new Error("Your query returned no results");
        }
        return { id: name.startsWith("Windows_Server-2022") ? WINDOWS_2022_AMI : "ami-0w2019", name };
      },
      "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings": (inputs) => {
        // The installer's types everywhere; the g5 GPU type in two zones only, as EC2 offers such types.
        const type = filter(inputs, "instance-type")[0];
        const where = type?.startsWith("g5.")
          ? zones.slice(0, 2)
          : ["m6i.xlarge", "m6i.2xlarge", "m5.xlarge", "m5a.xlarge"].includes(type)
            ? zones
            : [];
        return {
          instanceTypes: where.map(() => type),
          locations: where,
          locationTypes: where.map(() => "availability-zone"),
        };
      },
      "aws:ec2/getSecurityGroups:getSecurityGroups": (inputs) => {
        const ids = filter(inputs, "group-id");
        if (ids.length > 0) return { ids: ids.filter((id) => id.startsWith("sg-worker")) };
        return { ids: ["sg-worker-0a1b"] };
      },
    },
  };
}

/**
 * An Azure cluster in centralus with three zones, or in `location`: a region without zones has one
 * worker MachineSet without a zone, as the installer makes it there.
 */
export function azureCloud(location = "centralus"): FakeCloud {
  const objects: FakeCloud["objects"] = {
    "config.openshift.io/v1:Infrastructure:cluster": {
      apiVersion: "config.openshift.io/v1",
      kind: "Infrastructure",
      metadata: { name: "cluster" },
      status: {
        infrastructureName: AZURE_INFRA_ID,
        platform: "Azure",
        platformStatus: { type: "Azure", azure: { resourceGroupName: `${AZURE_INFRA_ID}-rg` } },
      },
    },
  };
  for (const zone of AZURE_ZONAL_REGIONS.has(location) ? ["1", "2", "3"] : [""]) {
    const name = `${AZURE_INFRA_ID}-worker-${location}${zone}`;
    objects[`machine.openshift.io/v1beta1:MachineSet:openshift-machine-api/${name}`] = workerMachineSet(
      name,
      {
        image: AZURE_IMAGE,
        kind: "AzureMachineProviderSpec",
      },
    );
  }
  return {
    objects,
    calls: {
      "azure-native:resources:getResourceGroup": (inputs) => {
        if (inputs.resourceGroupName !== `${AZURE_INFRA_ID}-rg`) throw new Error("ResourceGroupNotFound");
        return { location, name: inputs.resourceGroupName };
      },
      "azure-native:network:getSubnet": (inputs) => {
        if (inputs.subnetName !== `${AZURE_INFRA_ID}-worker-subnet`) {
          throw new Error(`ResourceNotFound: subnet ${String(inputs.subnetName)}`);
        }
        return { name: inputs.subnetName };
      },
      "azure-native:managedidentity:getUserAssignedIdentity": (inputs) => {
        if (inputs.resourceName !== `${AZURE_INFRA_ID}-identity`)
          throw new Error("ResourceNotFound: identity");
        return { name: inputs.resourceName };
      },
      "azure-native:authorization:getClientConfig": () => ({
        clientId: "client",
        objectId: "object",
        subscriptionId: AZURE_SUBSCRIPTION,
        tenantId: "tenant",
      }),
      "azure-native:authorization:getClientToken": () => ({ token: AZURE_TOKEN }),
    },
    arm: {
      // Subscriptions - List Locations: the logical zones of each location.
      [`/subscriptions/${AZURE_SUBSCRIPTION}/locations`]: () => ({
        value: [location, "eastus"].map((name) => ({
          name,
          availabilityZoneMappings: (AZURE_ZONAL_REGIONS.has(name) ? ["1", "2", "3"] : []).map((z) => ({
            logicalZone: z,
            physicalZone: `${name}-az${z}`,
          })),
        })),
      }),
      [`/subscriptions/${AZURE_SUBSCRIPTION}/providers/Microsoft.Compute/skus`]: (url) => ({
        value: url.searchParams.get("$filter") === `location eq '${location}'` ? azureSkus(location) : [],
      }),
    },
  };
}

/**
 * The VM sizes of a location as the Resource SKUs API lists them: the installer's, one without
 * accelerated networking, a GPU size that lacks zone 3, a confidential size; zones where the region has them.
 */
function azureSkus(location: string): Array<Record<string, unknown>> {
  const zones = AZURE_ZONAL_REGIONS.has(location) ? ["1", "2", "3"] : [];
  const sku = (name: string, capabilities: Record<string, string>, only = zones) => ({
    resourceType: "virtualMachines",
    name,
    locations: [location],
    locationInfo: [
      {
        location,
        zones: only,
        zoneDetails: only.length
          ? [{ name: only, capabilities: [{ name: "UltraSSDAvailable", value: "True" }] }]
          : [],
      },
    ],
    capabilities: Object.entries(capabilities).map(([n, value]) => ({ name: n, value })),
    restrictions: [],
  });
  const standard = { AcceleratedNetworkingEnabled: "True", EncryptionAtHostSupported: "True" };
  return [
    sku("Standard_D4s_v3", standard),
    sku("Standard_D8s_v3", standard),
    sku("Standard_B2s", { AcceleratedNetworkingEnabled: "False" }),
    sku("Standard_NC4as_T4_v3", standard, zones.slice(0, 2)),
    sku("Standard_DC4as_v5", { ...standard, ConfidentialComputingType: "SNP" }),
  ];
}

// The lookups no azure-native function wraps go to Resource Manager with fetch: the fake cloud answers
// them, checking the provider's token; any other request goes out as before.
const realFetch = globalThis.fetch;
globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
  const url = new URL(input instanceof Request ? input.url : input);
  if (url.origin !== "https://management.azure.com") return realFetch(input, init);
  const answer = mocks.cloud.arm?.[url.pathname];
  if (!answer) throw new Error(`no fake answer for ${url.pathname}`);
  const authorized = new Headers(init?.headers).get("authorization") === `Bearer ${AZURE_TOKEN}`;
  return new Response(
    JSON.stringify(authorized ? answer(url) : { error: { code: "AuthenticationFailed" } }),
    {
      status: authorized ? 200 : 401,
      headers: { "content-type": "application/json" },
    },
  );
};

const requireFromString = require("require-from-string") as (code: string) => {
  handler: () => { check(olds: object, news: object): Promise<{ inputs: Record<string, unknown> }> };
};

class SharedMocks implements pulumi.runtime.Mocks {
  resources: RegisteredResource[] = [];
  cloud: FakeCloud = awsCloud();
  preview = false;

  newResource(
    args: pulumi.runtime.MockResourceArgs,
  ): pulumi.runtime.MockResourceResult | Promise<pulumi.runtime.MockResourceResult> {
    this.resources.push({
      type: args.type,
      name: args.name,
      inputs: args.inputs,
      id: args.id,
      provider: args.provider,
    });
    if (args.id !== undefined && args.id !== "" && args.type.startsWith("kubernetes:")) {
      const [, apiVersion, kind] = /^kubernetes:(.+):([^:]+)$/.exec(args.type) ?? [];
      const object = this.cloud.objects[`${apiVersion}:${kind}:${args.id}`];
      if (!object) throw new Error(`${kind} ${args.id} not found in the fake cluster`);
      return { id: args.id, state: object };
    }
    // A preview answers with the provider's checked inputs, as the engine does; of the dynamic
    // providers only RolloutBaseline's check adds to them (its impact), so only it is run here.
    if (this.preview && args.type === "pulumi-nodejs:dynamic:RolloutBaseline") {
      const provider = requireFromString(args.inputs.__provider as string).handler();
      return provider.check({}, args.inputs).then((checked) => ({ id: "", state: checked.inputs }));
    }
    return { id: `${args.name}-id`, state: args.inputs };
  }

  call(args: pulumi.runtime.MockCallArgs): Record<string, unknown> {
    const handler = this.cloud.calls[args.token];
    if (!handler) throw new Error(`no fake answer for invoke ${args.token}`);
    return handler(args.inputs);
  }
}

export const mocks = new SharedMocks();

const CONFIG_AT_LOAD = pulumi.runtime.allConfig();

/**
 * Starts a test with the shared mocks, no recorded resources and the given fake cloud, as an update or
 * (`preview`) as `pulumi preview`, where unknown values stay unknown. Installing the
 * mocks again also resets the runtime's queue of pending registrations, so a test whose program failed
 * leaves nothing behind that the next test would wait for.
 */
export async function resetMocks(
  cloud: FakeCloud = awsCloud(),
  mode: { preview?: boolean } = {},
): Promise<void> {
  // The stack's config is process-wide: what another suite in this worker set (the testing entry's
  // mocks set a program's) is not this test's.
  pulumi.runtime.setAllConfig(CONFIG_AT_LOAD);
  await pulumi.runtime.setMocks(mocks, "topology", "test", mode.preview ?? false);
  mocks.resources = [];
  mocks.cloud = cloud;
  mocks.preview = mode.preview ?? false;
}

// The SDK marks this internal; it is the only way to know every registration has reached the mocks.
const { waitForRPCs } = require("@pulumi/pulumi/runtime/settings") as { waitForRPCs: () => Promise<void> };

/** Waits until every resource the program declared, including those declared inside applies, is registered. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await waitForRPCs();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

// The SDK's leak detector, internal too: what it would report at the process's exit (and clear).
const { leakedPromises } = require("@pulumi/pulumi/runtime/debuggable") as {
  leakedPromises: () => [Set<{ _debugCtx?: string }>, string];
};

/**
 * Once every registration has settled, the SDK's promises still pending: what Pulumi's runtime reports
 * at exit ("promises were still active") and fails a user's test process with. Clears them, so the
 * next test starts from none.
 */
export async function pendingPromises(): Promise<string[]> {
  // Not settle(): the SDK's wait for its RPCs never ends while one is stuck.
  for (let turn = 0; turn < 100; turn++) await new Promise((resolve) => setImmediate(resolve));
  const [leaked] = leakedPromises();
  return [...leaked].map((p) => String(p._debugCtx));
}

/** Resolves an Output's value in a test. */
export function valueOf<T>(output: pulumi.Output<T>): Promise<T> {
  return (output as unknown as { promise(): Promise<T> }).promise();
}

/** `cloud` with an object for each `[type, id]` an adopting program imports, named as its id says. */
export function withObjects(cloud: FakeCloud, objects: Array<[string, string]>): FakeCloud {
  for (const [type, id] of objects) {
    const [, apiVersion, kind] = /^kubernetes:(.+):([^:]+)$/.exec(type)!;
    cloud.objects[`${apiVersion}:${kind}:${id}`] = { metadata: { name: id.split("/").pop() } };
  }
  return cloud;
}

/**
 * `[type, id]` of each resource imported, of the types in `objects`, sorted; not the worker MachineSet
 * a pool reads its image or network from.
 */
export function imported(objects: Array<[string, string]>): Array<[string, string]> {
  return mocks.resources
    .filter(
      (r) => r.id && objects.some(([type]) => type === r.type) && !/-(image|network)-source$/.test(r.name),
    )
    .map((r): [string, string] => [r.type, r.id!])
    .sort();
}

/** The created (not read) resources of a type, in registration order. */
/** The PoolHold steps of an ordered rollout declared so far, as `<name>: <step> <pool> after <pools>`, sorted. */
export function poolHolds(): string[] {
  return created("pulumi-nodejs:dynamic:PoolHold")
    .map((r) => `${r.name}: ${r.inputs.step} ${r.inputs.pool} after ${(r.inputs.after as string[]).join()}`)
    .sort();
}

export function created(type: string | RegExp): RegisteredResource[] {
  return mocks.resources.filter(
    (r) => !r.id && (typeof type === "string" ? r.type === type : type.test(r.type)),
  );
}
