import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { PACKAGE, PackageSchema, SCHEMA_PATH } from "../scripts/component-schema";

const PROGRAM = path.resolve(__dirname, "..", "examples", "aws-infra-windows", "python", "__main__.py");
const schema = JSON.parse(fs.readFileSync(SCHEMA_PATH, "utf8")) as PackageSchema;

/** Python 2 and 3 keywords, which the generator suffixes with `_` (pulumi/pulumi pkg/codegen/python/python.go, Keywords). */
const KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except exec finally for from global if import in is lambda nonlocal not or pass print raise return try while with yield".split(
    " ",
  ),
);

/**
 * A schema name as the Python SDK generator names it (pulumi/pulumi pkg/codegen/python/python.go,
 * PyName): words split where a lower-case letter or digit meets a capital, an acronym ends before the
 * capital that starts the next word, and digits or an `s` after an acronym stay in it.
 */
function pyName(name: string): string {
  const words: string[] = [];
  let word = "";
  let state: "first" | "upper" | "acronym" | "lower" = "first";
  for (const raw of name) {
    const c = /[A-Za-z0-9_]/.test(raw) ? raw : "_";
    const upper = /[A-Z]/.test(c);
    if (state === "first") {
      word = (/[0-9]/.test(c) ? "_" : "") + c.toLowerCase();
      state = upper ? "upper" : "lower";
    } else if (state === "upper") {
      word += c.toLowerCase();
      state = upper ? "acronym" : "lower";
    } else if (state === "acronym") {
      if (upper) word += c.toLowerCase();
      else if (/[0-9s]/.test(c)) [word, state] = [word + c, "lower"];
      else [words[words.length], word, state] = [word.slice(0, -1), word.slice(-1) + c, "lower"];
    } else if (upper) [words[words.length], word, state] = [word, c.toLowerCase(), "upper"];
    else word += c;
  }
  const joined = [...words, word].filter((w) => w !== "").join("_");
  return KEYWORDS.has(joined) ? `${joined}_` : joined;
}

/** A resource's constructor argument (pkg/codegen/python/gen.go, InitParamName): the SDK's own names get `_`. */
const initParamName = (name: string) => {
  const py = pyName(name);
  return py === "resource_name" || py === "opts" ? `${py}_` : py;
};

type Value =
  | { call: string; line: number }
  | { dict: Record<string, Value> }
  | { list: Value[] }
  | { constant: unknown }
  | { expression: string };

interface Spec {
  type?: string;
  $ref?: string;
  oneOf?: Spec[];
  items?: Spec;
  additionalProperties?: Spec;
}

interface Usage {
  module: string[];
  calls: Array<{ class: string; line: number; positional: number; keywords: Record<string, Value> }>;
  reads: Array<{ class: string; attribute: string; line: number }>;
}

/** What a Python program uses of the generated SDK, read with Python's own parser (python3 is on every machine). */
function usage(source: string): Usage {
  const output = execFileSync("python3", [path.join(__dirname, "python-program.py")], { input: source });
  return JSON.parse(output.toString()) as Usage;
}

const types = schema.types as Record<
  string,
  { type?: string; enum?: Array<{ value: unknown }>; properties?: Record<string, Spec> }
>;
const resources = schema.resources as Record<
  string,
  { inputProperties: Record<string, Spec>; properties: Record<string, Spec> }
>;
const token = (name: string) => `${PACKAGE}:index:${name}`;
/** The input type a generated `...Args` class stands for (gen.go, unqualifiedObjectTypeName). */
const argsType = (cls: string) => (cls.endsWith("Args") ? types[token(cls.slice(0, -4))] : undefined);

/** The class or type an alternative of a property's schema takes in Python. */
function taken(spec: Spec): string {
  const ref = spec.$ref?.startsWith("#/types/") ? spec.$ref.slice("#/types/".length) : undefined;
  if (!ref) return spec.type ?? spec.$ref ?? "any";
  return `${ref.split(":")[2]}${types[ref].enum ? "" : "Args"}`;
}

/**
 * Why a value does not fit one alternative of a property's schema: none when it fits, `other` when the
 * value is not of the alternative's kind at all.
 */
function misfit(value: Value, spec: Spec, where: string): string[] | "other" {
  if ("expression" in value || spec.$ref === "pulumi.json#/Any") return [];
  const ref = spec.$ref?.startsWith("#/types/") ? spec.$ref.slice("#/types/".length) : undefined;
  const type = ref ? types[ref] : undefined;
  const kind = type?.enum ? "enum" : type ? "object" : spec.$ref ? "resource" : spec.type;
  if ("call" in value) return kind === "object" && value.call === taken(spec) ? [] : "other";
  if ("dict" in value && kind === "object" && type?.properties) {
    // serialize_property (sdk/python/lib/pulumi/runtime/rpc.py) translates an input type's snake_case
    // keys with the type's names and passes any other key on unchanged.
    const properties = type.properties;
    return Object.entries(value.dict).flatMap(([key, v]) => {
      const name = Object.keys(properties).find((p) => p === key || pyName(p) === key);
      return name === undefined
        ? [`${where}: ${taken(spec)} has no key ${key}`]
        : check(v, properties[name], `${where}.${key}`);
    });
  }
  if ("dict" in value && kind === "object") {
    // A user-defined dict: its keys are the user's, its values what the schema says of each.
    const values = spec.additionalProperties;
    return values ? Object.entries(value.dict).flatMap(([k, v]) => check(v, values, `${where}.${k}`)) : [];
  }
  if ("list" in value && kind === "array") {
    return value.list.flatMap((v, i) => check(v, spec.items!, `${where}[${i}]`));
  }
  if ("constant" in value) {
    const c = value.constant;
    const fits =
      kind === "enum"
        ? type!.enum!.some((e) => e.value === c)
        : kind === "string"
          ? typeof c === "string"
          : kind === "boolean"
            ? typeof c === "boolean"
            : kind === "integer"
              ? Number.isInteger(c)
              : kind === "number" && typeof c === "number";
    if (fits) return [];
  }
  return "other";
}

/** Why a value does not fit a property: none when one of its alternatives (`oneOf`) takes it. */
function check(value: Value, spec: Spec, where: string): string[] {
  const alternatives = spec.oneOf ?? [spec];
  const results = alternatives.map((alternative) => misfit(value, alternative, where));
  if (results.some((r) => r !== "other" && r.length === 0)) return [];
  const inside = results.filter((r): r is string[] => r !== "other");
  if (inside.length > 0) return inside.flat();
  const given = "call" in value ? value.call : JSON.stringify(Object.values(value)[0]);
  return [`${where}: ${given} where the schema takes ${alternatives.map(taken).join(" or ")}`];
}

/** Every keyword argument and attribute read the schema's generated Python SDK would refuse. */
function problems(program: Usage): string[] {
  const found: string[] = [];
  for (const call of program.calls) {
    const at = `line ${call.line}: ${call.class}`;
    const resource = resources[token(call.class)];
    const properties = resource?.inputProperties ?? argsType(call.class)?.properties;
    if (!properties) {
      found.push(`${at}: the SDK has no such class`);
      continue;
    }
    // A resource takes its name and options by position, an input type's properties by keyword only.
    if (call.positional > (resource ? 2 : 0)) found.push(`${at}: ${call.positional} positional arguments`);
    const names = new Map(Object.keys(properties).map((p) => [resource ? initParamName(p) : pyName(p), p]));
    for (const [keyword, value] of Object.entries(call.keywords)) {
      const property = names.get(keyword);
      if (property !== undefined) found.push(...check(value, properties[property], `${at}(${keyword}=)`));
      else if (!(resource && keyword === "opts")) {
        found.push(`${at}: no keyword ${keyword} (takes ${[...names.keys()].join(", ")})`);
      }
    }
  }
  for (const read of program.reads) {
    const outputs = Object.keys(resources[token(read.class)]?.properties ?? {}).map(pyName);
    if (read.attribute !== "urn" && !outputs.includes(read.attribute)) {
      found.push(`line ${read.line}: ${read.class} has no output ${read.attribute} (${outputs.join(", ")})`);
    }
  }
  return found;
}

/**
 * The Python example as the SDK that `pulumi package add` generates from plugin/schema.json takes it:
 * each class it calls exists, each keyword argument is a property of that component or input type under
 * its Python name, each value fits the property's type, and each output it reads is one the component has.
 */
describe("the Python example against the generated schema", () => {
  const source = fs.readFileSync(PROGRAM, "utf8");

  it("names Python properties as the SDK generator does", () => {
    // pulumi/pulumi pkg/codegen/python/python_test.go, pyNameTests (the non-legacy names).
    for (const [name, python] of [
      ["kubeletConfigKey", "kubelet_config_key"],
      ["podCIDR", "pod_cidr"],
      ["podCidr", "pod_cidr"],
      ["podCIDRs", "pod_cidrs"],
      ["podIPs", "pod_ips"],
      ["nonResourceURLs", "non_resource_urls"],
      ["someTHINGsAREWeird", "some_things_are_weird"],
      ["podCIDRSet", "pod_cidr_set"],
      ["Sha256Hash", "sha256_hash"],
      ["SHA256Hash", "sha256_hash"],
      ["proj:config", "proj_config"],
    ]) {
      assert.equal(pyName(name), python, name);
    }
  });

  it("uses only classes, keyword arguments and outputs the schema's Python SDK has", () => {
    const program = usage(source);
    assert.deepEqual(program.module, ["openshift"]);
    assert.deepEqual(
      program.calls.filter((c) => token(c.class) in resources).map((c) => c.class),
      ["InfraNodePool", "MachineConfig", "KubeletConfig", "WindowsNodePool"],
    );
    assert.deepEqual(problems(program), []);
  });

  it("finds a misspelt keyword, a TypeScript name, a wrong input type, a bad dict key and an unknown output", () => {
    const edits: Array<[string, string]> = [
      [
        'aws=openshift.AwsMachineOptionsArgs(instance_type=config.get("infraInstanceType")',
        'aws=openshift.AwsMachineOptionsArgs(instance_types=config.get("infraInstanceType")',
      ],
      ['windows_server="2022"', 'windowsServer="2022"'],
      [
        "router=openshift.InfraNodePoolRouterArgs(replicas=3)",
        "router=openshift.InfraNodePoolMonitoringArgs()",
      ],
      ['kubelet_config={"maxPods": 250}', 'kubelet_config={"maxPod": 250}'],
      ["registry=True", 'registry="yes"'],
      ["infra.machine_set_names", "infra.machine_set_name"],
    ];
    let broken = source;
    for (const [from, to] of edits) {
      assert.ok(broken.includes(from), from);
      broken = broken.replace(from, to);
    }
    const found = problems(usage(broken));
    const expect = (pattern: RegExp) =>
      assert.ok(
        found.some((p) => pattern.test(p)),
        `${pattern} in:\n${found.join("\n")}`,
      );
    expect(/^line 14: AwsMachineOptionsArgs: no keyword instance_types \(takes .*\binstance_type\b/);
    expect(/^line \d+: WindowsNodePool: no keyword windowsServer \(takes .*\bwindows_server\b/);
    expect(
      /^line 10: InfraNodePool\(router=\): InfraNodePoolMonitoringArgs where the schema takes boolean or InfraNodePoolRouterArgs$/,
    );
    expect(/^line \d+: KubeletConfig\(kubelet_config=\): KubeletConfigurationArgs has no key maxPod$/);
    expect(/^line 10: InfraNodePool\(registry=\): "yes" where the schema takes boolean$/);
    expect(/^line \d+: InfraNodePool has no output machine_set_name \(.*\bmachine_set_names\b/);
    assert.equal(found.length, 6, found.join("\n"));
  });
});
