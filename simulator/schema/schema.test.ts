import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CrdDefinition, CrdSchemas, defaultCrdDir, formatInvalidMessage, JSONSchemaProps } from ".";
import { goRegExp } from "./validate";
import { CRDS, requireReference } from "../../test/reference";
import { CRD_PRINTER_COLUMNS } from "../apiserver/resources";

const MS_API = "machine.openshift.io/v1beta1";

function machineSet(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  return {
    apiVersion: MS_API,
    kind: "MachineSet",
    metadata: { name: "x", namespace: "openshift-machine-api", ...metadata },
    spec,
  };
}

describe("CRD schemas", function () {
  let schemas: CrdSchemas;

  before(function () {
    requireReference(this, CRDS);
    schemas = CrdSchemas.load();
  });

  it("has the simulator serve each CRD's printer columns without it, as its storage version declares them", () => {
    for (const crd of schemas.definitions) {
      const storage = crd.versions.find((v) => v.storage)!;
      assert.deepEqual(CRD_PRINTER_COLUMNS[crd.kind] ?? [], storage.additionalPrinterColumns, crd.kind);
    }
  });

  it("reads the served versions, names, columns and subresources of every CRD", () => {
    const mcp = schemas.definition("machineconfiguration.openshift.io", "MachineConfigPool")!;
    assert.equal(mcp.scope, "Cluster");
    assert.deepEqual(mcp.shortNames, ["mcp"]);
    assert.deepEqual(
      mcp.versions[0].additionalPrinterColumns.map((c) => c.name),
      [
        "Config",
        "Updated",
        "Updating",
        "Degraded",
        "MachineCount",
        "ReadyMachineCount",
        "UpdatedMachineCount",
        "DegradedMachineCount",
        "Age",
      ],
    );
    const ms = schemas.version(MS_API, "MachineSet")!;
    assert.equal(ms.version.subresources.scale?.specReplicasPath, ".spec.replicas");
    assert.ok(
      schemas.version("operators.coreos.com/v1alpha2", "OperatorGroup"),
      "non-storage served versions count",
    );
    assert.equal(schemas.version("machine.openshift.io/v1", "MachineSet"), undefined);
  });

  it("words type errors as the API server does", () => {
    const result = schemas.validate(machineSet({ replicas: "string" }));
    assert.deepEqual(result.errors, [
      {
        field: "spec.replicas",
        message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        reason: "FieldValueTypeInvalid",
      },
    ]);
    assert.equal(
      formatInvalidMessage("MachineSet", "machine.openshift.io", "x", result.errors),
      'MachineSet.machine.openshift.io "x" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    );
  });

  it("reports enum, required and list-index paths like the server", () => {
    const taints = schemas.validate(
      machineSet({
        template: { spec: { taints: [{ key: "a", effect: "NoSchedule" }, { effect: "NoExecute" }] } },
      }),
    );
    assert.deepEqual(taints.errors, [
      { field: "spec.template.spec.taints[1].key", message: "Required value", reason: "FieldValueRequired" },
    ]);
    const registry = schemas.validate({
      apiVersion: "imageregistry.operator.openshift.io/v1",
      kind: "Config",
      metadata: { name: "cluster" },
      spec: { managementState: "Managed", replicas: 1, logLevel: "Loud" },
    });
    assert.deepEqual(registry.errors, [
      {
        field: "spec.logLevel",
        message: 'Unsupported value: "Loud": supported values: "", "Normal", "Debug", "Trace", "TraceAll"',
        reason: "FieldValueNotSupported",
      },
      {
        field: "<nil>",
        message:
          'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
        reason: "FieldValueInvalid",
      },
    ]);
  });

  it("prunes unknown fields, keeps preserved ones and cuts metadata to ObjectMeta", () => {
    const result = schemas.validate(
      machineSet(
        {
          replicas: 1,
          bogus: true,
          template: {
            metadata: { labels: { a: "b" }, creationTimestamp: "x" },
            spec: {
              providerSpec: { value: { anything: { goes: 1 } } },
              taints: [{ key: "k", effect: "NoSchedule", extra: 1 }],
            },
          },
        },
        { labels: { a: "b" }, surprise: 1 },
      ),
    );
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.pruned.sort(), [
      "metadata.surprise",
      "spec.bogus",
      "spec.template.metadata.creationTimestamp",
      "spec.template.spec.taints[0].extra",
    ]);
    const spec = result.object.spec as { template: { spec: { providerSpec: unknown } } };
    assert.deepEqual(spec.template.spec.providerSpec, { value: { anything: { goes: 1 } } });
    assert.deepEqual(result.object.metadata, {
      name: "x",
      namespace: "openshift-machine-api",
      labels: { a: "b" },
    });
  });

  it("drops nulls of non-nullable fields without calling them unknown", () => {
    const result = schemas.validate(
      machineSet({ replicas: null, minReadySeconds: null, template: { spec: { taints: null } } }),
    );
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.pruned, []);
    assert.deepEqual(
      result.object.spec,
      { replicas: 1, template: { spec: {} } },
      "replicas has a default of 1",
    );
  });

  it("applies schema defaults", () => {
    const result = schemas.validate({
      apiVersion: "imageregistry.operator.openshift.io/v1",
      kind: "Config",
      metadata: { name: "cluster" },
      spec: { managementState: "Managed", replicas: 1 },
    });
    assert.deepEqual(result.errors, []);
    assert.equal((result.object.spec as Record<string, unknown>).logLevel, "Normal");
  });

  it("accepts integers and strings for int-or-string fields and rejects the rest", () => {
    const pool = (maxUnavailable: unknown) => ({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigPool",
      metadata: { name: "infra" },
      spec: { maxUnavailable },
    });
    assert.deepEqual(schemas.validate(pool(1)).errors, []);
    assert.deepEqual(schemas.validate(pool("10%")).errors, []);
    const [error] = schemas.validate(pool(true)).errors;
    assert.equal(error.field, "spec.maxUnavailable");
    assert.match(error.message, /must be of type integer,string: "boolean"/);
  });

  it("rejects duplicate keys in map lists", () => {
    const condition = (status: string) => ({
      type: "Ready",
      status,
      lastTransitionTime: "2026-01-01T00:00:00Z",
    });
    const result = schemas.validate({
      ...machineSet({ replicas: 1 }),
      status: { replicas: 1, conditions: [condition("True"), condition("False")] },
    });
    assert.deepEqual(result.errors, [
      {
        field: "status.conditions[1]",
        message: 'Duplicate value: map[string]interface {}{"type":"Ready"}',
        reason: "FieldValueDuplicate",
      },
    ]);
  });

  it("validates formats Kubernetes checks, such as date-time", () => {
    const result = schemas.validate({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigPool",
      metadata: { name: "p" },
      spec: {},
      status: { conditions: [{ type: "Updated", status: "True", lastTransitionTime: "yesterday" }] },
    });
    const error = result.errors.find((e) => e.field === "status.conditions[0].lastTransitionTime");
    assert.equal(
      error?.message,
      'Invalid value: "yesterday": status.conditions[0].lastTransitionTime in body must be of type date-time: "yesterday"',
    );
  });

  it("says when no CRD covers an object", () => {
    const result = schemas.validate({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c" },
      data: { a: "b" },
    });
    assert.equal(result.known, false);
    assert.deepEqual(result.errors, []);
  });

  it("translates Go regular expressions", () => {
    assert.equal(goRegExp("(?i)^abc$", "").test("ABC"), true);
    assert.equal(goRegExp("^[^][ ]+$", "").test("a]b"), false);
    assert.equal(goRegExp("^[]a]+$", "").test("]a"), true);
  });

  it("reads another directory when told to", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "crds-"));
    try {
      fs.copyFileSync(
        path.join(defaultCrdDir(), "machinesets.machine.openshift.io.yaml"),
        path.join(dir, "ms.yaml"),
      );
      const previous = process.env.OPENSHIFT_CRDS_DIR;
      process.env.OPENSHIFT_CRDS_DIR = dir;
      try {
        assert.equal(defaultCrdDir(), dir);
        assert.deepEqual(
          CrdSchemas.load().definitions.map((d) => d.kind),
          ["MachineSet"],
        );
      } finally {
        if (previous === undefined) delete process.env.OPENSHIFT_CRDS_DIR;
        else process.env.OPENSHIFT_CRDS_DIR = previous;
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("CRD schema extensions", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        "x-kubernetes-validations": [
          {
            rule: "!has(self.optional) || self.optional != 'forbidden'",
            message: "optional may not be forbidden",
          },
        ],
        properties: {
          template: {
            type: "object",
            "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true,
          },
          loose: {
            type: "object",
            "x-kubernetes-preserve-unknown-fields": true,
            properties: { known: { type: "object", properties: { a: { type: "string" } } } },
          },
          optional: { type: "string", nullable: true },
          tags: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
        },
      },
    },
  };
  const crd: CrdDefinition = {
    name: "widgets.example.com",
    group: "example.com",
    kind: "Widget",
    listKind: "WidgetList",
    plural: "widgets",
    singular: "widget",
    shortNames: [],
    categories: [],
    scope: "Cluster",
    versions: [
      { name: "v1", served: true, storage: true, schema, additionalPrinterColumns: [], subresources: {} },
    ],
    file: "inline",
    object: {},
  };
  const schemas = new CrdSchemas([crd]);
  const widget = (spec: Record<string, unknown>) => ({
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w" },
    spec,
  });

  it("keeps apiVersion, kind and ObjectMeta in embedded resources and requires the first two", () => {
    const result = schemas.validate(
      widget({ template: { metadata: { name: "x", bogus: 1 }, extra: { kept: true } } }),
    );
    assert.deepEqual(result.pruned, ["spec.template.metadata.bogus"]);
    assert.deepEqual((result.object.spec as Record<string, unknown>).template, {
      metadata: { name: "x" },
      extra: { kept: true },
    });
    assert.deepEqual(
      result.errors.map((e) => `${e.field}: ${e.message}`),
      [
        "spec.template.apiVersion: Required value: must not be empty",
        "spec.template.kind: Required value: must not be empty",
        // Required values keep the server from evaluating rules (customresource strategy, hasBlockingErr).
        '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      ],
    );
    assert.deepEqual(schemas.validate(widget({ template: { apiVersion: "v1", kind: "Pod" } })).errors, []);
  });

  it("prunes inside known properties of preserved objects only", () => {
    const result = schemas.validate(widget({ loose: { anything: 1, known: { a: "b", dropped: 2 } } }));
    assert.deepEqual(result.pruned, ["spec.loose.known.dropped"]);
    assert.deepEqual((result.object.spec as Record<string, unknown>).loose, {
      anything: 1,
      known: { a: "b" },
    });
  });

  it("accepts null for nullable fields, evaluates validation rules and checks set uniqueness", () => {
    const result = schemas.validate(widget({ optional: null, tags: ["a", "b", "a"] }));
    assert.equal((result.object.spec as Record<string, unknown>).optional, null);
    assert.deepEqual(result.errors, [
      { field: "spec.tags[2]", message: 'Duplicate value: "a"', reason: "FieldValueDuplicate" },
    ]);
    assert.deepEqual(schemas.validate(widget({ optional: "forbidden" })).errors, [
      {
        field: "spec",
        message: 'Invalid value: "object": optional may not be forbidden',
        reason: "FieldValueInvalid",
      },
    ]);
  });
});
