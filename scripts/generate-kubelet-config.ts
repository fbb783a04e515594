import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Generates builders/generated/kubelet-configuration.ts: the TypeScript type of KubeletConfiguration
 * (kubelet.config.k8s.io/v1beta1) with each field's documentation, from the Go types the MCO decodes a
 * KubeletConfig's `kubeletConfig` into, read from a checkout of openshift/machine-config-operator
 * (its vendor/ tree pins k8s.io/kubelet and k8s.io/component-base). The upstream files are read, never
 * kept in this repository. To move to a newer release: check that release out, run
 * `npx ts-node --transpile-only scripts/generate-kubelet-config.ts <checkout>`, set MCO_COMMIT below, and
 * add a check per new field to KUBELET_FIELDS (builders/machineconfiguration/kubelet-fields.ts), which
 * the type checker requires. test/generated-kubelet-config.test.ts compares the module with a fresh
 * render when MCO_SOURCE names such a checkout.
 */

export const KUBELET_MODULE = path.resolve(__dirname, "../builders/generated/kubelet-configuration.ts");

/** The MCO commit the module was generated from (k8s.io/kubelet and component-base v0.36.2). */
export const MCO_COMMIT = "7ff337a4ffac8e7562692181178ede61e4b2eec5";

/** The Go files read, in the order their types are looked up, relative to the MCO checkout. */
const SOURCES = [
  "vendor/k8s.io/kubelet/config/v1beta1/types.go",
  "vendor/k8s.io/component-base/logs/api/v1/types.go",
  "vendor/k8s.io/component-base/tracing/api/v1/types.go",
];

/**
 * Types from packages not copied here, as they are written in JSON: durations as Go duration strings,
 * quantities as strings or numbers, and the core Taint (k8s.io/api/core/v1) with its three effects.
 */
const EXTERNAL: Record<string, string> = {
  "metav1.Duration": "string",
  "metav1.Time": "string",
  "resource.QuantityValue": "string | number",
  "resource.Quantity": "string | number",
  "v1.ResourceList": "Record<string, string | number>",
  "v1.Taint": '{ key: string; value?: string; effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute" }',
  // Written as a duration string or, for compatibility, as nanoseconds (its UnmarshalJSON).
  TimeOrMetaDuration: "string | number",
};

const SCALARS: Record<string, string> = {
  string: "string",
  bool: "boolean",
  int: "number",
  int32: "number",
  int64: "number",
  uint32: "number",
  uint64: "number",
  float32: "number",
  float64: "number",
};

type Field = { json: string; goType: string; doc: string[]; inline: boolean };
type Declaration =
  | { kind: "struct"; name: string; doc: string[]; fields: Field[] }
  | { kind: "alias"; name: string; doc: string[]; goType: string; values: string[] };

/** Comment lines a Go declaration carries, without markers such as `+optional`. */
function docOf(lines: string[]): string[] {
  return lines.map((l) => l.replace(/^\s*\/\/ ?/, "")).filter((l) => !l.trimStart().startsWith("+"));
}

function parse(source: string): Map<string, Declaration> {
  const declarations = new Map<string, Declaration>();
  const lines = source.split("\n");
  let comment: string[] = [];
  const constants: Array<{ type: string; value: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*\/\//.test(line)) {
      comment.push(line);
      continue;
    }
    const struct = /^type (\w+) struct \{$/.exec(line);
    const alias = /^type (\w+) (\S+)$/.exec(line);
    if (struct) {
      const fields: Field[] = [];
      let fieldComment: string[] = [];
      for (i++; lines[i] !== "}"; i++) {
        const body = lines[i];
        if (/^\s*\/\//.test(body)) {
          fieldComment.push(body);
          continue;
        }
        const field = /^\s+(?:(\w+)\s+)?([\w.*[\]]+)\s+`json:"([^"]*)"/.exec(body);
        if (field && !field[3].startsWith("-")) {
          const [json, ...options] = field[3].split(",");
          fields.push({
            json,
            goType: field[2],
            doc: docOf(fieldComment),
            inline: options.includes("inline"),
          });
        }
        fieldComment = [];
      }
      declarations.set(struct[1], { kind: "struct", name: struct[1], doc: docOf(comment), fields });
    } else if (alias) {
      declarations.set(alias[1], {
        kind: "alias",
        name: alias[1],
        doc: docOf(comment),
        goType: alias[2],
        values: [],
      });
    } else {
      const constant = /^\s+\w+\s+(\w+)\s+=\s+"([^"]*)"/.exec(line);
      if (constant) constants.push({ type: constant[1], value: constant[2] });
    }
    comment = [];
  }
  for (const { type, value } of constants) {
    const declaration = declarations.get(type);
    if (declaration?.kind === "alias") declaration.values.push(value);
  }
  return declarations;
}

/** The TypeScript of a Go type, recording the declarations it names so that they are emitted too. */
function tsType(goType: string, known: Map<string, Declaration>, used: Set<string>): string {
  if (goType.startsWith("*")) return tsType(goType.slice(1), known, used);
  if (goType.startsWith("[]")) {
    const item = tsType(goType.slice(2), known, used);
    return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
  }
  const map = /^map\[string\](.+)$/.exec(goType);
  if (map) return `Record<string, ${tsType(map[1], known, used)}>`;
  if (EXTERNAL[goType]) return EXTERNAL[goType];
  if (SCALARS[goType]) return SCALARS[goType];
  const local = goType.replace(/^\w+\./, "");
  if (known.has(local)) {
    used.add(local);
    return local;
  }
  throw new Error(`no TypeScript for the Go type ${goType}`);
}

function comment(doc: string[], indent: string): string {
  const text = doc.map((l) => l.replace(/\*\//g, "*\\/").trimEnd());
  while (text.length > 0 && text[text.length - 1] === "") text.pop();
  if (text.length === 0) return "";
  return `${indent}/**\n${text.map((l) => `${indent} *${l ? ` ${l}` : ""}`).join("\n")}\n${indent} */\n`;
}

/** The members of a struct, inline ones (TypeMeta, shared options) spread into it. */
function members(
  declaration: Extract<Declaration, { kind: "struct" }>,
  known: Map<string, Declaration>,
  used: Set<string>,
): string[] {
  return declaration.fields.flatMap((field) => {
    // Only KubeletConfiguration embeds TypeMeta among the types read.
    if (field.inline && field.goType === "metav1.TypeMeta") {
      return [`  apiVersion?: "kubelet.config.k8s.io/v1beta1";\n`, `  kind?: "${declaration.name}";\n`];
    }
    if (field.inline) {
      const embedded = known.get(field.goType);
      if (embedded?.kind !== "struct") throw new Error(`cannot inline ${field.goType}`);
      return members(embedded, known, used);
    }
    return [`${comment(field.doc, "  ")}  ${field.json}?: ${tsType(field.goType, known, used)};\n`];
  });
}

export function renderKubeletModule(dir: string): string {
  const known = new Map<string, Declaration>();
  for (const file of SOURCES) {
    for (const [name, declaration] of parse(fs.readFileSync(path.join(dir, file), "utf8"))) {
      if (!known.has(name)) known.set(name, declaration);
    }
  }
  const root = known.get("KubeletConfiguration");
  if (root?.kind !== "struct") throw new Error("KubeletConfiguration not found in the upstream types");
  const used = new Set<string>(["KubeletConfiguration"]);
  const emitted: string[] = [];
  const done = new Set<string>();
  // Breadth-first from the root, so the module reads from KubeletConfiguration down.
  for (let queue = ["KubeletConfiguration"]; queue.length > 0;) {
    const name = queue.shift()!;
    if (done.has(name)) continue;
    done.add(name);
    const declaration = known.get(name)!;
    const before = new Set(used);
    if (declaration.kind === "struct") {
      emitted.push(
        `${comment(declaration.doc, "")}export interface ${name} {\n${members(declaration, known, used).join("")}}\n`,
      );
    } else {
      const type =
        declaration.values.length > 0
          ? declaration.values.map((v) => JSON.stringify(v)).join(" | ")
          : tsType(declaration.goType, known, used);
      emitted.push(`${comment(declaration.doc, "")}export type ${name} = ${type};\n`);
    }
    queue.push(...[...used].filter((u) => !before.has(u)));
  }
  const fields = root.fields.flatMap((f) =>
    f.inline ? ['"apiVersion"', '"kind"'] : [JSON.stringify(f.json)],
  );
  return [
    "// Generated by scripts/generate-kubelet-config.ts: do not edit by hand.",
    "// Source: k8s.io/kubelet/config/v1beta1 and k8s.io/component-base (logs, tracing) as vendored by",
    `// openshift/machine-config-operator at ${MCO_COMMIT}.`,
    "",
    ...emitted,
    "/** Every field of KubeletConfiguration, as the kubelet reads them. */",
    `export const KUBELET_CONFIGURATION_FIELDS = [${fields.join(", ")}] as const;`,
    "",
  ].join("\n");
}

if (require.main === module) {
  const checkout = process.argv[2] ?? process.env.MCO_SOURCE;
  if (!checkout)
    throw new Error("usage: generate-kubelet-config.ts <openshift/machine-config-operator checkout>");
  fs.writeFileSync(KUBELET_MODULE, renderKubeletModule(checkout));
  console.log(`wrote ${path.relative(process.cwd(), KUBELET_MODULE)}`);
}
