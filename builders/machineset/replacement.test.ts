import { strict as assert } from "node:assert";
import { InputError } from "../errors";
import {
  describeMachineSetChange,
  machineSetChange,
  MachineReplacementPolicy,
  MachineTemplate,
  requireMachineReplacement,
} from "./replacement";

/** What a preview says of the MachineSet, per machineSetChange. */
const machineSpecChange = (
  name: string,
  template: MachineTemplate,
  machines: MachineTemplate[],
  policy: MachineReplacementPolicy | undefined,
) => {
  const change = machineSetChange(name, template, machines, policy);
  return change && describeMachineSetChange(change);
};

describe("machineReplacement: defaults and what the autoscaler allows", () => {
  it("surges one machine and keeps every replica available by default", () => {
    assert.deepEqual(requireMachineReplacement({ strategy: "rolling" }, false), {
      maxSurge: 1,
      maxUnavailable: 0,
    });
  });

  it("replaces an autoscaled pool one machine down at a time by default, never surging", () => {
    assert.deepEqual(requireMachineReplacement({ strategy: "rolling" }, true), {
      maxSurge: 0,
      maxUnavailable: 1,
    });
    assert.deepEqual(
      requireMachineReplacement({ strategy: "rolling", maxSurge: 0, maxUnavailable: 2 }, true),
      {
        maxSurge: 0,
        maxUnavailable: 2,
      },
    );
  });

  it("takes percentages of each MachineSet's replicas, as a Deployment's validation does, naming the property of a bad one", () => {
    assert.deepEqual(
      requireMachineReplacement({ strategy: "rolling", maxSurge: "25%", maxUnavailable: "0%" }, false),
      { maxSurge: "25%", maxUnavailable: "0%" },
    );
    // kubernetes pkg/apis/apps/validation: ValidatePositiveIntOrPercent, IsNotMoreThan100Percent for
    // maxUnavailable only, and not both zero (0 and 0% alike).
    const rejects = (args: object, autoscaled: boolean, path: string, reason: RegExp) =>
      assert.throws(
        () => requireMachineReplacement({ strategy: "rolling", ...args }, autoscaled),
        (e: InputError & { errors?: InputError[] }) => {
          const error = e.errors?.[0] ?? e;
          assert.equal(error.propertyPath, path);
          assert.match(error.message, reason);
          return true;
        },
      );
    rejects({ maxSurge: "25" }, false, "maxSurge", /"25" is neither a whole number nor a percentage/);
    rejects({ maxSurge: "1.5%" }, false, "maxSurge", /neither a whole number nor a percentage/);
    rejects({ maxUnavailable: "150%" }, false, "maxUnavailable", /150% is more than 100%/);
    rejects({ maxSurge: "0%", maxUnavailable: 0 }, false, "maxUnavailable", /0 replaces nothing/);
    rejects({ maxSurge: "10%" }, true, "maxSurge", /belong to the cluster autoscaler/);
    rejects({ maxUnavailable: "0%" }, true, "maxUnavailable", /0 replaces nothing/);
    assert.deepEqual(requireMachineReplacement({ strategy: "rolling", maxSurge: "200%" }, false), {
      maxSurge: "200%",
      maxUnavailable: 0,
    });
  });

  it("allows maxUnavailable up to 100%, names a field it does not know, and needs the pool to wait", () => {
    assert.deepEqual(requireMachineReplacement({ strategy: "rolling", maxUnavailable: "100%" }, false), {
      maxSurge: 1,
      maxUnavailable: "100%",
    });
    assert.throws(
      () => requireMachineReplacement({ strategy: "rolling", maxSurg: 2 } as never, false),
      (e: InputError & { errors?: InputError[] }) => {
        const error = e.errors?.[0] ?? e;
        assert.deepEqual(
          [error.propertyPath, error.reason],
          ["maxSurg", "is not a machineReplacement field: did you mean maxSurge?"],
        );
        return true;
      },
    );
    assert.throws(
      () => requireMachineReplacement({ strategy: "rolling" }, false, false),
      (e: InputError) =>
        e.propertyPath === "" &&
        e.reason === "the pool's waiter replaces the machines, and wait is false: leave wait on",
    );
  });

  it("reports every bad count at once", () => {
    assert.throws(
      () => requireMachineReplacement({ strategy: "rolling", maxSurge: 1.5, maxUnavailable: -1 }, false),
      (e: Error & { errors?: InputError[] }) =>
        JSON.stringify(e.errors?.map((x) => x.propertyPath)) ===
        JSON.stringify(["maxSurge", "maxUnavailable"]),
    );
  });
});

describe("machineSpecChange: what a preview says of machines on another spec", () => {
  const labels = { "machine.openshift.io/cluster-api-machine-role": "infra" };
  const spec = { kind: "AWSMachineProviderConfig", instanceType: "m6i.2xlarge", ami: { id: "ami-1" } };
  const template = { providerSpec: spec, labels };
  const machine = (providerSpec: Record<string, unknown>, extra: Record<string, string> = {}) => ({
    providerSpec,
    labels: { ...labels, "machine.openshift.io/zone": "us-east-2a", ...extra },
  });
  const old = machine({ ...spec, instanceType: "m6i.xlarge" });

  it("says which machines keep which type when nothing replaces them", () => {
    assert.equal(
      machineSpecChange("infra-a", template, [old, old, old], undefined),
      "MachineSet infra-a: 3 machines keep m6i.xlarge; only new machines get m6i.2xlarge (machineReplacement replaces them)",
    );
  });

  it("says how a policy replaces them, surging or deleting first", () => {
    assert.equal(
      machineSpecChange("infra-a", template, [old, machine(spec)], { maxSurge: 1, maxUnavailable: 0 }),
      "MachineSet infra-a: 1 machine on m6i.xlarge replaced by machines with m6i.2xlarge, 1 new first, an old one deleted (drained) as each new one is Ready, none unavailable",
    );
    assert.equal(
      machineSpecChange("infra-a", template, [old, old, old], { maxSurge: 0, maxUnavailable: 1 }),
      "MachineSet infra-a: 3 machines on m6i.xlarge replaced by machines with m6i.2xlarge, 1 at a time deleted (drained) first, each replaced from the template",
    );
    // Percentages of the declared replicas: the surge rounds up, the unavailable down.
    assert.match(
      machineSpecChange("infra-a", template, [old, old, old, old], {
        maxSurge: "10%",
        maxUnavailable: "50%",
        replicas: { "infra-a": 4 },
      })!,
      /, 1 new first, .*, at most 2 unavailable$/,
    );
  });

  it("names every size and field some machine differs in, each once and sorted", () => {
    const ordered = { instanceType: "m6i.2xlarge", userDataSecret: { name: "b" }, ami: { id: "ami-1" } };
    const on = (instanceType: string, more: Record<string, unknown> = {}) =>
      machine({ ...ordered, instanceType, ...more });
    assert.equal(
      machineSpecChange(
        "infra-a",
        { providerSpec: ordered, labels },
        [
          on("m6i.xlarge"),
          on("m6i.large", { ami: { id: "ami-0" } }),
          on("m6i.4xlarge", { userDataSecret: { name: "a" } }),
        ],
        undefined,
      ),
      "MachineSet infra-a: 3 machines keep m6i.4xlarge, m6i.large, m6i.xlarge; only new machines get m6i.2xlarge (also ami, userDataSecret) (machineReplacement replaces them)",
    );
    assert.equal(
      machineSpecChange(
        "infra-a",
        { providerSpec: ordered, labels },
        [on("m6i.2xlarge", { ami: { id: "ami-0" }, userDataSecret: { name: "a" } })],
        undefined,
      ),
      "MachineSet infra-a: 1 machine keeps the previous ami, userDataSecret; only new machines get the new ami, userDataSecret (machineReplacement replaces them)",
    );
  });

  it("takes a percentage of the replicas declared, which the live machines need not number yet", () => {
    const change = machineSetChange("infra-a", template, [old, old], {
      maxSurge: 0,
      maxUnavailable: "50%",
      replicas: { "infra-a": 6 },
    });
    assert.deepEqual(change?.replacement, { surge: 0, unavailable: 3 });
  });

  it("names the other fields that changed, and the image alone when the size stays", () => {
    const oldImage = machine({ ...spec, instanceType: "m6i.xlarge", ami: { id: "ami-0" } });
    assert.equal(
      machineSpecChange("infra-a", template, [oldImage], undefined),
      "MachineSet infra-a: 1 machine keeps m6i.xlarge; only new machines get m6i.2xlarge (also ami) (machineReplacement replaces them)",
    );
    assert.equal(
      machineSpecChange("infra-a", template, [machine({ ...spec, ami: { id: "ami-0" } })], undefined),
      "MachineSet infra-a: 1 machine keeps the previous ami; only new machines get the new ami (machineReplacement replaces them)",
    );
  });

  it("says which machines keep their machine labels, which no replacement changes", () => {
    const relabelled = { ...template, labels: { ...labels, "machine.openshift.io/tier": "gold" } };
    const policy = { maxSurge: 1, maxUnavailable: 0 };
    assert.equal(
      machineSpecChange(
        "infra-a",
        relabelled,
        [machine(spec), machine(spec, { "machine.openshift.io/tier": "gold" })],
        policy,
      ),
      "MachineSet infra-a: 1 machine keeps its machine labels; only new machines get machine.openshift.io/tier=gold",
    );
    // A machine replaced for its provider spec is made anew with the template's labels.
    assert.equal(
      machineSpecChange("infra-a", relabelled, [old, machine(spec)], undefined),
      "MachineSet infra-a: 1 machine keeps m6i.xlarge; only new machines get m6i.2xlarge (machineReplacement replaces them); 2 machines keep their machine labels; only new machines get machine.openshift.io/tier=gold",
    );
    assert.deepEqual(machineSetChange("infra-a", relabelled, [old, machine(spec)], policy), {
      machineSet: "infra-a",
      machines: 1,
      size: { from: ["m6i.xlarge"], to: "m6i.2xlarge" },
      fields: [],
      replacement: { surge: 1, unavailable: 0 },
      machineLabels: { machines: 1, labels: ["machine.openshift.io/tier=gold"] },
    });
    // Each machine lacking another label: every label some machine lacks, sorted.
    const twoLabels = {
      ...template,
      labels: { ...labels, "machine.openshift.io/zone-group": "b", "machine.openshift.io/tier": "gold" },
    };
    assert.equal(
      machineSpecChange(
        "infra-a",
        twoLabels,
        [
          machine(spec, { "machine.openshift.io/tier": "gold" }),
          machine(spec, { "machine.openshift.io/zone-group": "b" }),
        ],
        undefined,
      ),
      "MachineSet infra-a: 2 machines keep their machine labels; only new machines get machine.openshift.io/tier=gold, machine.openshift.io/zone-group=b",
    );
    // Only labels differ: nothing to replace, whatever the policy.
    assert.equal(machineSetChange("infra-a", relabelled, [machine(spec)], policy)?.replacement, undefined);
  });

  it("says nothing when the machines differ only by what the program does not declare (API defaults, labels the machine-api adds)", () => {
    assert.equal(
      machineSpecChange(
        "infra-a",
        template,
        [machine({ ...spec, credentialsSecret: { name: "x" } })],
        undefined,
      ),
      undefined,
    );
  });
});
