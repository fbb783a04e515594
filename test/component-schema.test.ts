import * as pulumi from "@pulumi/pulumi";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as library from "../index";
import {
  PACKAGE,
  PackageSchema,
  SCHEMA_PATH,
  schemaText,
  SchemaGenerator,
} from "../scripts/component-schema";
import { PULUMI_METASCHEMA, requireReference } from "./reference";

/**
 * The package schema every other language's SDK is generated from is the TypeScript API: generated
 * from the components' declarations, it is the committed plugin/schema.json (`npm run schema` writes it),
 * it is a valid Pulumi package schema, and it names every component and every property of its Args.
 */
describe("the component package's schema", function () {
  this.timeout(60_000);
  let generator: SchemaGenerator;
  let generated: PackageSchema;
  const committed = JSON.parse(fs.readFileSync(SCHEMA_PATH, "utf8")) as PackageSchema;
  before(() => {
    generator = new SchemaGenerator();
    generated = generator.generate();
  });

  it("is what the TypeScript declarations generate (npm run schema writes it)", () => {
    assert.equal(fs.readFileSync(SCHEMA_PATH, "utf8"), schemaText(generated), "run npm run schema");
  });

  it("validates against Pulumi's package metaschema", function () {
    requireReference(this, PULUMI_METASCHEMA);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(fs.readFileSync(PULUMI_METASCHEMA.dir, "utf8")));
    assert.ok(validate(committed), JSON.stringify(validate.errors, null, 2));
    // The metaschema is what refuses a bad schema: a type token without its module is one.
    const broken = structuredClone(committed) as unknown as Record<string, Record<string, unknown>>;
    broken.resources[`${PACKAGE}::InfraNodePool`] = broken.resources[`${PACKAGE}:index:InfraNodePool`];
    broken.types[`${PACKAGE}:index:Taint`] = { type: "object", properties: { effect: { type: "enum" } } };
    assert.equal(validate(broken), false);
  });

  it("names every component the package exports, with every property of its Args", () => {
    // Components as the SDK's own plugin runner recognizes them: classes whose prototype chain has ComponentResource.
    const exported = Object.entries(library)
      .filter(
        ([, value]) => typeof value === "function" && value.prototype instanceof pulumi.ComponentResource,
      )
      .map(([name]) => name)
      .sort();
    assert.deepEqual(
      Object.keys(committed.resources).map((token) => token.split(":")[2]),
      exported,
    );
    for (const component of generator.components()) {
      const resource = committed.resources[`${PACKAGE}:index:${component.name}`];
      assert.ok(resource.isComponent, component.name);
      assert.deepEqual(
        Object.keys(resource.inputProperties).sort(),
        generator.inputNames(component).sort(),
        component.name,
      );
    }
  });

  it("has the outputs each component exposes, except the waiters TypeScript programs depend on", () => {
    for (const component of generator.components()) {
      const outputs = generator.outputSymbols(component).map((s) => s.name);
      const resource = committed.resources[`${PACKAGE}:index:${component.name}`];
      // Another language depends on the component itself, which the engine expands to its children.
      const handles = outputs.filter((name) => !(name in resource.properties));
      const configuration = ["MachineConfigPool", "MachineConfig", "KubeletConfig", "ContainerRuntimeConfig"];
      const expected = configuration.includes(component.name)
        ? ["rollout"]
        : component.name === "OperatorSubscription"
          ? ["ready", "crdsReady"]
          : [];
      assert.deepEqual(handles, expected, component.name);
    }
    const pool = committed.resources[`${PACKAGE}:index:InfraNodePool`];
    assert.deepEqual(pool.properties.machineSetNames, {
      type: "array",
      items: { type: "string" },
      description: "Names of the pool's MachineSets, one per zone (`<infrastructureId>-<role>-<zone>`).",
    });
    // Outputs that may be undefined in TypeScript (known once waited for, or only with an option) are optional.
    assert.deepEqual(pool.required, [
      "facts",
      "machineAutoscalers",
      "machineConfigPool",
      "machineSetNames",
      "machineSets",
      "placement",
      "role",
    ]);
  });

  it("carries descriptions, enums, secrets, unions and plain values over from the TypeScript types", () => {
    // Every input and output of a component has its doc comment, for every language's SDK.
    for (const [token, resource] of Object.entries(committed.resources)) {
      for (const properties of [resource.inputProperties, resource.properties]) {
        for (const [key, property] of Object.entries(properties)) {
          assert.ok(property.description, `${token}: ${key} has no description`);
        }
      }
    }
    const pool = committed.resources[`${PACKAGE}:index:InfraNodePool`].inputProperties;
    assert.match(String(pool.zones.description), /^Zones, one MachineSet each/);
    assert.deepEqual(pool.zones.items, {
      oneOf: [{ type: "string" }, { $ref: `#/types/${PACKAGE}:index:ZoneSpec` }],
    });
    assert.deepEqual(pool.router.oneOf, [
      { type: "boolean" },
      { $ref: `#/types/${PACKAGE}:index:InfraNodePoolRouter` },
    ]);
    assert.equal(pool.role.plain, true, "role names child resources: a plain string");
    assert.equal(pool.replicas.plain, undefined);
    assert.equal(pool.kubeconfig.secret, true);
    const windows = committed.resources[`${PACKAGE}:index:WindowsNodePool`].inputProperties;
    assert.equal(windows.privateKey.secret, true);
    const approval =
      committed.resources[`${PACKAGE}:index:OperatorSubscription`].inputProperties.installPlanApproval;
    assert.deepEqual(committed.types[String(approval.$ref).replace("#/types/", "")], {
      type: "string",
      enum: [
        { name: "Automatic", value: "Automatic" },
        { name: "Manual", value: "Manual" },
      ],
    });
  });
});
