import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import Ajv, { ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { parse } from "yaml";
import { containerRuntimeConfig, kubeletConfig, machineConfig, machineConfigPool } from ".";

/**
 * Smallest possible CRD check, until the simulator's validator and pruner (simulator/schema/) replace it:
 * JSON-schema validation of the served version's openAPIV3Schema with ajv, plus a walk that finds every
 * field the API server would prune because the schema does not declare it.
 */
const CRDS_DIR = process.env.OPENSHIFT_CRDS_DIR ?? path.resolve(__dirname, "../../../shared/crds");

type Schema = Record<string, unknown> & {
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
};

interface Crd {
  spec: {
    group: string;
    names: { kind: string };
    versions: { name: string; served: boolean; schema: { openAPIV3Schema: Schema } }[];
  };
}

// strictTypes off: int-or-string fields carry a string `pattern` beside `anyOf`, as Kubernetes intends.
const ajv = new Ajv({ allErrors: true, strictTypes: false });
addFormats(ajv);
// Kubernetes' schema extensions: they steer the API server (pruning, merging, CEL rules), not validation.
ajv.addVocabulary([
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-int-or-string",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
  "x-kubernetes-embedded-resource",
]);
// Kubernetes-only formats; none of our fields use them, but the schemas mention them.
for (const format of ["ip", "cidr"]) ajv.addFormat(format, true);

const crds: Crd[] = fs
  .readdirSync(CRDS_DIR)
  .filter((f) => f.endsWith(".yaml"))
  .map((f) => parse(fs.readFileSync(path.join(CRDS_DIR, f), "utf8")) as Crd);
const validators = new Map<string, ValidateFunction>();

function servedSchema(apiVersion: string, kind: string): Schema {
  const [group, version] = apiVersion.split("/");
  const crd = crds.find((c) => c.spec.group === group && c.spec.names.kind === kind);
  const served = crd?.spec.versions.find((v) => v.name === version && v.served);
  if (!served) throw new Error(`no served CRD version for ${apiVersion} ${kind} in ${CRDS_DIR}`);
  return served.schema.openAPIV3Schema;
}

/** ObjectMeta is not described by CRD schemas; these are the fields our builders may set. */
const OBJECT_META = ["name", "labels", "annotations"];

/** Paths of fields the API server would drop because no schema declares them. */
function prunedFields(value: unknown, schema: Schema, at: string): string[] {
  if (Array.isArray(value))
    return value.flatMap((v, i) => (schema.items ? prunedFields(v, schema.items, `${at}[${i}]`) : []));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const where = `${at}.${key}`;
    const declared = schema.properties?.[key];
    if (declared) return prunedFields(v, declared, where);
    if (typeof schema.additionalProperties === "object")
      return prunedFields(v, schema.additionalProperties, where);
    if (schema.additionalProperties === true || schema["x-kubernetes-preserve-unknown-fields"]) return [];
    return [where];
  });
}

function assertMatchesCrd(manifest: { apiVersion: string; kind: string; metadata: object }): void {
  const key = `${manifest.apiVersion}/${manifest.kind}`;
  const schema = servedSchema(manifest.apiVersion, manifest.kind);
  if (!validators.has(key)) validators.set(key, ajv.compile(schema));
  const validate = validators.get(key)!;
  assert.ok(validate(manifest), `${key}: ${ajv.errorsText(validate.errors)}`);
  const { metadata, ...rest } = manifest;
  assert.deepEqual(prunedFields(rest, schema, ""), [], `${key} has fields the API server would prune`);
  assert.deepEqual(
    Object.keys(metadata).filter((k) => !OBJECT_META.includes(k)),
    [],
    `${key} has unknown metadata`,
  );
}

/** Every builder at its smallest and with every optional field, so each emitted field meets the schema. */
const MANIFESTS = {
  "minimal pool": () => machineConfigPool({ name: "infra" }),
  "full pool": () =>
    machineConfigPool({
      name: "infra",
      maxUnavailable: "34%",
      paused: true,
      labels: { "example.com/team": "ops" },
    }),
  "pool with an integer maxUnavailable": () => machineConfigPool({ name: "infra", maxUnavailable: 2 }),
  "minimal MachineConfig": () => machineConfig({ name: "99-infra-empty", role: "infra" }),
  "full MachineConfig": () =>
    machineConfig({
      name: "99-infra-all",
      role: "infra",
      ignitionVersion: "3.5.0",
      files: [
        { path: "/etc/a.conf", contents: { text: "a = 1\n" }, mode: "0600", user: "root", group: "root" },
        { path: "/var/b.bin", contents: { base64: "AAECAwQFBgc=" }, overwrite: false },
      ],
      systemd: {
        units: [
          { name: "a.service", enabled: true, contents: "[Service]\nExecStart=/bin/true\n" },
          { name: "b.timer", mask: true },
          { name: "crio.service", dropins: [{ name: "10-a.conf", contents: "[Service]\n" }] },
        ],
      },
      kernelArguments: ["nosmt"],
      kernelType: "64k-pages",
      extensions: ["kerberos"],
      fips: true,
      sshAuthorizedKeys: [
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEA+tJeMH79euQY0M9qNe7AHHTb+bh9E8m/O+GK2Qg3B admin@example.com",
      ],
      osImageURL: "quay.io/openshift/os@sha256:abc",
      labels: { "example.com/team": "ops" },
    }),
  "KubeletConfig with autoSizingReserved only": () =>
    kubeletConfig({ name: "auto", pool: "worker", autoSizingReserved: false }),
  "full KubeletConfig": () =>
    kubeletConfig({
      name: "infra-kubelet",
      pool: "infra",
      kubeletConfig: { maxPods: 250, podPidsLimit: 8192, evictionHard: { "memory.available": "500Mi" } },
      autoSizingReserved: true,
      logLevel: 3,
      tlsSecurityProfile: {
        type: "Custom",
        custom: { ciphers: ["ECDHE-RSA-AES128-GCM-SHA256"], minTLSVersion: "VersionTLS12" },
      },
    }),
  "full ContainerRuntimeConfig": () =>
    containerRuntimeConfig({
      name: "infra-crio",
      pool: "infra",
      containerRuntimeConfig: {
        pidsLimit: 2048,
        logLevel: "info",
        logSizeMax: "1Gi",
        overlaySize: 10737418240,
        defaultRuntime: "runc",
      },
    }),
};

describe("machine configuration manifests against the upstream CRDs", () => {
  for (const [name, build] of Object.entries(MANIFESTS)) {
    it(`${name} is valid and loses no field to pruning`, () => assertMatchesCrd(build()));
  }

  it("notices schema violations and undeclared fields, so the checks are not vacuous", () => {
    const crio = containerRuntimeConfig({
      name: "c",
      pool: "infra",
      containerRuntimeConfig: { pidsLimit: 0 },
    });
    const bad = {
      ...crio,
      spec: { ...crio.spec, containerRuntimeConfig: { defaultRuntime: "kata", logSizeMax: "1 G" } },
    };
    assert.throws(() => assertMatchesCrd(bad), /defaultRuntime.*allowed values|must match pattern/);
    const pool = machineConfigPool({ name: "infra" });
    const schema = servedSchema(pool.apiVersion, pool.kind);
    assert.deepEqual(prunedFields({ spec: { ...pool.spec, surplus: 1 } }, schema, ""), [".spec.surplus"]);
    const kc = kubeletConfig({ name: "k", pool: "infra", kubeletConfig: { anything: { goes: 1 } } });
    assert.deepEqual(prunedFields({ spec: kc.spec }, servedSchema(kc.apiVersion, kc.kind), ""), []);
  });
});
