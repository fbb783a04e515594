import { strict as assert } from "node:assert";
import { InputError } from "../errors";
import { machineSpecChange, requireMachineReplacement } from "./replacement";

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
  const template = { kind: "AWSMachineProviderConfig", instanceType: "m6i.2xlarge", ami: { id: "ami-1" } };
  const old = { ...template, instanceType: "m6i.xlarge" };

  it("says which machines keep which type when nothing replaces them", () => {
    assert.equal(
      machineSpecChange("infra-a", template, [old, old, old], undefined),
      "MachineSet infra-a: 3 machines keep m6i.xlarge; only new machines get m6i.2xlarge (machineReplacement replaces them)",
    );
  });

  it("says how a policy replaces them, surging or deleting first", () => {
    assert.equal(
      machineSpecChange("infra-a", template, [old, template], { maxSurge: 1, maxUnavailable: 0 }),
      "MachineSet infra-a: 1 machine on m6i.xlarge replaced by machines with m6i.2xlarge, 1 new first, an old one deleted (drained) as each new one is Ready, none unavailable",
    );
    assert.equal(
      machineSpecChange("infra-a", template, [old], { maxSurge: 0, maxUnavailable: 1 }),
      "MachineSet infra-a: 1 machine on m6i.xlarge replaced by machines with m6i.2xlarge, 1 at a time deleted (drained) first, each replaced from the template",
    );
  });

  it("names the other fields that changed, and the image alone when the size stays", () => {
    const oldImage = { ...old, ami: { id: "ami-0" } };
    assert.equal(
      machineSpecChange("infra-a", template, [oldImage], undefined),
      "MachineSet infra-a: 1 machine keeps m6i.xlarge; only new machines get m6i.2xlarge (also ami) (machineReplacement replaces them)",
    );
    assert.equal(
      machineSpecChange("infra-a", template, [{ ...template, ami: { id: "ami-0" } }], undefined),
      "MachineSet infra-a: 1 machine keeps the previous ami; only new machines get the new ami (machineReplacement replaces them)",
    );
  });

  it("says nothing when the machines differ only by what the program does not declare (API defaults)", () => {
    assert.equal(
      machineSpecChange("infra-a", template, [{ ...template, credentialsSecret: { name: "x" } }], undefined),
      undefined,
    );
  });
});
