/**
 * A Pulumi project as the CLI sees it: `Pulumi.yaml` (name, main) and a stack's `Pulumi.<stack>.yaml`
 * config, turned into the `PULUMI_CONFIG` map the language host would hand the program.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { parse, parseDocument } from "yaml";

export interface Project {
  /** Directory holding Pulumi.yaml. */
  dir: string;
  name: string;
  stack: string;
  /** `nodejs` (a TypeScript program) or `yaml` (a Pulumi YAML program, whose resources are in Pulumi.yaml). */
  runtime: "nodejs" | "yaml";
  /** Absolute path of the program's entry module (Pulumi.yaml itself for a YAML program). */
  main: string;
  /** Directories of the component packages the project names (`packages:`, as `pulumi package add` writes them). */
  packages: Record<string, string>;
  /** `project:key` -> value as the language host passes it (structured values as JSON). */
  config: Record<string, string>;
}

/** Directory of the `main` module: examples keep their fixtures next to their program. */
export function programDir(project: Project): string {
  return path.dirname(project.main);
}

function configValue(key: string, value: unknown, file: string): string {
  if (value !== null && typeof value === "object" && "secure" in (value as object)) {
    throw new Error(
      `${file}: ${key} is an encrypted (secure) value; the harness has no secrets provider, set it with --config instead`,
    );
  }
  return typeof value === "string" ? value : JSON.stringify(value);
}

function qualified(projectName: string, key: string): string {
  return key.includes(":") ? key : `${projectName}:${key}`;
}

/**
 * A package's directory as `packages:` names it: a path from the project, where one under `node_modules/`
 * is found as Node finds a package (in the nearest node_modules above the project that has it).
 */
function packageDir(projectDir: string, source: string): string {
  const direct = path.resolve(projectDir, source);
  const inModules = /^(?:\.\/)?node_modules\/(.+)$/.exec(source);
  if (fs.existsSync(direct) || !inModules) return direct;
  try {
    // As from a module of the project: a require of this module would resolve this package's own name
    // to itself (Node's self-reference through `exports`), wherever the project's copy is.
    const fromProject = createRequire(path.join(projectDir, "Pulumi.yaml"));
    return path.dirname(fromProject.resolve(`${inModules[1]}/PulumiPlugin.yaml`));
  } catch {
    return direct;
  }
}

/**
 * Loads the project in `location` (a directory or its Pulumi.yaml) with the stack's config file, if
 * any, and `overrides` (`key=value`, as `pulumi config set key value`) on top.
 */
export function loadProject(location: string, stack = "dev", overrides: string[] = []): Project {
  const file = location.endsWith(".yaml") ? path.resolve(location) : path.resolve(location, "Pulumi.yaml");
  if (!fs.existsSync(file)) throw new Error(`no Pulumi project: ${file} does not exist`);
  const dir = path.dirname(file);
  const doc = (parse(fs.readFileSync(file, "utf8")) ?? {}) as {
    name?: string;
    main?: string;
    runtime?: string | { name?: string };
    packages?: Record<string, string>;
  };
  if (!doc.name) throw new Error(`${file} has no project name`);
  const runtime = typeof doc.runtime === "string" ? doc.runtime : doc.runtime?.name;
  if (runtime !== undefined && runtime !== "nodejs" && runtime !== "yaml") {
    throw new Error(`${file}: runtime ${runtime}: the harness runs nodejs and yaml programs`);
  }
  const mainPath = path.resolve(dir, doc.main ?? (runtime === "yaml" ? "Pulumi.yaml" : "index.ts"));
  const main =
    fs.existsSync(mainPath) && fs.statSync(mainPath).isDirectory()
      ? path.join(mainPath, "index.ts")
      : mainPath;
  if (!fs.existsSync(main)) throw new Error(`${file}: the program ${main} does not exist`);
  const packages = Object.fromEntries(
    Object.entries(doc.packages ?? {}).map(([name, source]) => [name, packageDir(dir, source)]),
  );

  const config: Record<string, string> = {};
  const stackFile = path.join(dir, `Pulumi.${stack}.yaml`);
  if (fs.existsSync(stackFile)) {
    const stackDoc = (parse(fs.readFileSync(stackFile, "utf8")) ?? {}) as {
      config?: Record<string, unknown>;
    };
    for (const [key, value] of Object.entries(stackDoc.config ?? {})) {
      config[qualified(doc.name, key)] = configValue(key, value, stackFile);
    }
  }
  for (const override of overrides) {
    const at = override.indexOf("=");
    if (at <= 0) throw new Error(`config override ${JSON.stringify(override)} must be key=value`);
    config[qualified(doc.name, override.slice(0, at))] = override.slice(at + 1);
  }
  return { dir, name: doc.name, stack, runtime: runtime ?? "nodejs", main, packages, config };
}

/**
 * `pulumi config set <key> <value>`: writes the value into the stack's `Pulumi.<stack>.yaml` under the
 * project-qualified key, as the CLI does, keeping the rest of the file (comments included). Returns the
 * file written.
 */
export function setConfig(location: string, stack: string, key: string, value: string): string {
  const project = loadProject(location, stack);
  const file = path.join(project.dir, `Pulumi.${stack}.yaml`);
  const doc = parseDocument(fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "config: {}\n");
  if (!doc.has("config")) doc.set("config", doc.createNode({}));
  doc.setIn(["config", qualified(project.name, key)], value);
  fs.writeFileSync(file, doc.toString());
  return file;
}
