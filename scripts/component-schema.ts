/**
 * `npm run schema`: the Pulumi package schema of the components, generated from their TypeScript
 * declarations with the compiler's type checker, so that the TypeScript API is the one source of truth
 * and every language's SDK (generated from the schema by `pulumi package add`) is the same API. Each
 * component exported from index.ts becomes a component resource whose inputs are its Args' properties
 * and whose outputs are its public properties; descriptions are their doc comments, string literal
 * unions are enums, a `@secret` doc tag marks a secret, and unions of other types (`zones` as names or
 * objects, `true | {...}` switches) are `oneOf`, which every SDK generator maps to its language's union.
 * The result is written to plugin/schema.json, which the component provider serves;
 * test/component-schema.test.ts fails when the two differ.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { buildConfig } from "../harness/installed";

const ROOT = path.resolve(__dirname, "..");
export const SCHEMA_PATH = path.join(ROOT, "plugin", "schema.json");

/** The package's name in type tokens, as the components register themselves (`openshift-topology:index:X`). */
export const PACKAGE = "openshift-topology";
const MODULE = "index";
/** The pulumi-kubernetes schema the kubernetes references point at (the SDK's major version). */
const KUBERNETES_SCHEMA = "/kubernetes/v4.18.0/schema.json";
const ANY = { $ref: "pulumi.json#/Any" };

/**
 * Declarations no Args or output type is made of, read as `any` to spare parsing some 2,000 files: the
 * cloud SDKs, the Kubernetes client, and Kubernetes kinds other than the core and apiextensions ones
 * (a Provider, a CustomResource, a Secret). A type that came from one would be an error type, which
 * `single` refuses.
 */
const STUBBED = new RegExp(
  [
    "node_modules/@pulumi/(aws|azure-native)/",
    "node_modules/@kubernetes/client-node/",
    "node_modules/@grpc/",
    "node_modules/@pulumi/kubernetes/types/",
    "node_modules/@pulumi/kubernetes/(?!index|provider|core/|apiextensions/|utilities|yaml)[^/]+/",
  ].join("|"),
);
const STUB = "declare const stub: any;\nexport = stub;\n";

export type TypeSpec = Record<string, unknown>;
export interface PropertySpec extends TypeSpec {
  description?: string;
  secret?: boolean;
}
export interface ObjectSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}
export interface ResourceSpec {
  isComponent: true;
  description: string;
  inputProperties: Record<string, PropertySpec>;
  requiredInputs?: string[];
  properties: Record<string, PropertySpec>;
  required?: string[];
}
export interface PackageSchema {
  name: string;
  displayName: string;
  version: string;
  description: string;
  keywords: string[];
  license: string;
  types: Record<string, TypeSpec>;
  resources: Record<string, ResourceSpec>;
}

/** An enum case's name in every SDK: `64k-pages` is `64kPages`, `OwnNamespace` stays. */
const enumName = (value: string) =>
  pascal(value.replace(/[^a-zA-Z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? "").toUpperCase()));

const token = (name: string) => `${PACKAGE}:${MODULE}:${name}`;
const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * A resource that is neither this package's component nor a Kubernetes object (a waiter, `pulumi.Resource`):
 * in TypeScript a handle to depend on; another language depends on the component itself, which the
 * engine expands to its children. Such an output is left out of the schema.
 */
class Handle extends Error {}

/** The components of index.ts with their Args, in the order index.ts exports them. */
export interface Component {
  name: string;
  symbol: ts.Symbol;
  instance: ts.Type;
  args: ts.Type;
}

export class SchemaGenerator {
  readonly program: ts.Program;
  readonly checker: ts.TypeChecker;
  private readonly types = new Map<string, TypeSpec>();
  private readonly named = new Map<ts.Type, string>();
  private readonly componentNames = new Set<string>();
  private readonly enums = new Map<string, string>();

  constructor(indexFile = path.join(ROOT, "index.ts")) {
    const config = buildConfig();
    const host = ts.createCompilerHost(config.options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, language, onError, create) =>
      STUBBED.test(fileName)
        ? ts.createSourceFile(fileName, STUB, language)
        : read(fileName, language, onError, create);
    this.program = ts.createProgram([indexFile], config.options, host);
    this.checker = this.program.getTypeChecker();
  }

  /** The exported classes whose instances are component resources, and the type of their second parameter. */
  components(): Component[] {
    const index = this.program.getSourceFile(path.join(ROOT, "index.ts"))!;
    const exports = this.checker.getExportsOfModule(this.checker.getSymbolAtLocation(index)!);
    return exports.flatMap((exported) => {
      const symbol =
        exported.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(exported) : exported;
      if (!(symbol.flags & ts.SymbolFlags.Class)) return [];
      const instance = this.checker.getDeclaredTypeOfSymbol(symbol);
      if (!this.extendsComponent(instance)) return [];
      const constructorType = this.checker.getTypeOfSymbol(symbol);
      const [signature] = constructorType.getConstructSignatures();
      const args = signature.getParameters()[1];
      return [{ name: exported.name, symbol, instance, args: this.declaredType(args) }];
    });
  }

  /** A Pulumi resource: it has the URN and provider every resource has (a waiter's type is an intersection). */
  private isResource(type: ts.Type): boolean {
    const urn = this.checker.getPropertyOfType(type, "urn");
    return (
      urn !== undefined &&
      this.fromSdk(urn) &&
      this.checker.getPropertyOfType(type, "getProvider") !== undefined
    );
  }

  /** Base classes, also of an instantiated generic class. */
  private bases(type: ts.Type): ts.Type[] {
    const target = (type as ts.TypeReference).target ?? type;
    return target.isClassOrInterface() ? this.checker.getBaseTypes(target) : [];
  }

  private extendsComponent(type: ts.Type): boolean {
    for (const base of this.bases(type)) {
      if (base.getSymbol()?.name === "ComponentResource" && this.fromSdk(base.getSymbol()!)) return true;
      if (this.extendsComponent(base)) return true;
    }
    return false;
  }

  private fromSdk(symbol: ts.Symbol): boolean {
    return (symbol.declarations ?? []).some((d) => d.getSourceFile().fileName.includes("node_modules"));
  }

  /** A property's type as written (`pulumi.Input<X>` kept whole), without the `undefined` of `?:`. */
  private declaredType(symbol: ts.Symbol): ts.Type {
    const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
    const node = declaration && (declaration as ts.PropertySignature).type;
    return node ? this.checker.getTypeFromTypeNode(node) : this.checker.getTypeOfSymbol(symbol);
  }

  /** Args properties: what the component's Args type declares, inherited ones included. */
  inputNames(component: Component): string[] {
    return this.checker.getPropertiesOfType(component.args).map((p) => p.name);
  }

  /** Output properties: the public properties the component declares (not ComponentResource's own). */
  outputSymbols(component: Component): ts.Symbol[] {
    return this.checker.getPropertiesOfType(component.instance).filter((p) => {
      if (this.fromSdk(p)) return false;
      const declaration = p.valueDeclaration;
      if (!declaration || !ts.isPropertyDeclaration(declaration)) return false;
      const modifiers = ts.getCombinedModifierFlags(declaration);
      return !(modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected));
    });
  }

  private description(symbol: ts.Symbol): string | undefined {
    const text = ts.displayPartsToString(symbol.getDocumentationComment(this.checker)).trim();
    return text === "" ? undefined : text;
  }

  private secret(symbol: ts.Symbol): boolean {
    return symbol.getJsDocTags(this.checker).some((t) => t.name === "secret");
  }

  /** The members of a union that a user gives: without undefined, and an Input's Promise and Output. */
  private given(type: ts.Type): ts.Type[] {
    const members = type.isUnion() ? type.types : [type];
    return members.flatMap((t) => {
      if (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void)) return [];
      const inner = this.eventual(t);
      return inner === undefined ? [t] : this.given(inner);
    });
  }

  /** What a Promise, an Output (an intersection with its lifted properties) or an Input resolves to. */
  private eventual(type: ts.Type): ts.Type | undefined {
    const alias = type.aliasSymbol?.name;
    if ((alias === "Output" || alias === "Input") && this.fromSdk(type.aliasSymbol!)) {
      return type.aliasTypeArguments?.[0];
    }
    const parts = type.isIntersection() ? type.types : [type];
    for (const part of parts) {
      const name = part.getSymbol()?.name;
      if (name === "Promise" || name === "OutputInstance") {
        return this.checker.getTypeArguments(part as ts.TypeReference)[0];
      }
    }
    return undefined;
  }

  private optional(type: ts.Type): boolean {
    const members = type.isUnion() ? type.types : [type];
    return members.some((t) => {
      if (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return true;
      const inner = this.eventual(t);
      return inner !== undefined && this.optional(inner);
    });
  }

  /** The schema type of a TypeScript type; `context` names an anonymous object or enum type. */
  typeSpec(type: ts.Type, context: string): TypeSpec {
    const alias = type.aliasSymbol?.name;
    if ((alias === "Input" || alias === "Output") && this.fromSdk(type.aliasSymbol!)) {
      return this.typeSpec(type.aliasTypeArguments![0], context);
    }
    const members = this.given(type);
    const booleans = members.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
    const rest = members.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral));
    const specs: TypeSpec[] = booleans.length > 0 ? [{ type: "boolean" }] : [];
    const strings = rest.filter((t) => t.isStringLiteral());
    if (strings.length > 0) specs.push(this.enumSpec(type, strings as ts.StringLiteralType[], context));
    for (const member of rest.filter((t) => !t.isStringLiteral())) specs.push(this.single(member, context));
    const unique = specs.filter(
      (s, i) => specs.findIndex((o) => JSON.stringify(o) === JSON.stringify(s)) === i,
    );
    if (unique.length === 0) throw new Error(`${context}: no type a user can give`);
    // A union with a map or Any is Any to every language: keep the precise members only when all are.
    if (unique.length > 1 && unique.some((s) => s.$ref === ANY.$ref)) return ANY;
    return unique.length === 1 ? unique[0] : { oneOf: unique };
  }

  private enumSpec(whole: ts.Type, literals: ts.StringLiteralType[], context: string): TypeSpec {
    const named = whole.aliasSymbol && !this.fromSdk(whole.aliasSymbol) ? whole.aliasSymbol : undefined;
    const alias = named?.name;
    const values = [...new Set(literals.map((l) => l.value))];
    // One enum per set of values: the platform of every pool is one type in every SDK.
    const name = this.enums.get(values.join("|")) ?? this.uniqueName(alias ?? context, values.join("|"));
    this.enums.set(values.join("|"), name);
    this.types.set(token(name), {
      type: "string",
      enum: values.map((value) => ({ name: enumName(value), value })),
    });
    return { $ref: `#/types/${token(name)}` };
  }

  private single(type: ts.Type, context: string): TypeSpec {
    if (type.flags & ts.TypeFlags.String) return { type: "string" };
    if (type.flags & ts.TypeFlags.Number) return { type: "number" };
    if (type.flags & ts.TypeFlags.Boolean) return { type: "boolean" };
    if ((type as { intrinsicName?: string }).intrinsicName === "error") {
      throw new Error(`${context}: its type comes from a module the generator does not read (STUBBED)`);
    }
    // `never` is the value of `Record<string, never>`, the empty object OpenShift's TLS profiles take.
    if (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any | ts.TypeFlags.Never)) return ANY;
    if (type.isNumberLiteral()) return { type: "number" };
    if (this.checker.isArrayType(type) || this.checker.isTupleType(type)) {
      const [element] = this.checker.getTypeArguments(type as ts.TypeReference);
      return { type: "array", items: this.typeSpec(element, context) };
    }
    const kubernetes = this.kubernetesRef(type);
    if (kubernetes) return kubernetes;
    if (this.isResource(type)) {
      const own = this.extendsComponent(type) && this.componentNames.has(type.getSymbol()!.name);
      if (own) return { $ref: `#/resources/${token(type.getSymbol()!.name)}` };
      throw new Handle(context);
    }
    if (type.getCallSignatures().length > 0) throw new Error(`${context}: a function cannot cross languages`);
    const index = type.getStringIndexType();
    if (index && this.checker.getPropertiesOfType(type).length === 0) {
      const values = this.typeSpec(index, context);
      return values.$ref === ANY.$ref
        ? { type: "object", additionalProperties: ANY }
        : { type: "object", additionalProperties: values };
    }
    if (type.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) return this.objectRef(type, context);
    throw new Error(`${context}: no schema type for ${this.checker.typeToString(type)}`);
  }

  /** A pulumi-kubernetes provider or resource, as a reference into that package's schema. */
  private kubernetesRef(type: ts.Type): TypeSpec | undefined {
    const symbol = type.getSymbol();
    const file = symbol?.declarations?.[0]?.getSourceFile().fileName ?? "";
    if (!file.includes(`${path.sep}@pulumi${path.sep}kubernetes${path.sep}`)) return undefined;
    if (symbol!.name === "Provider") return { $ref: `${KUBERNETES_SCHEMA}#/provider` };
    const relative = file.slice(file.indexOf(`${path.sep}kubernetes${path.sep}`) + "/kubernetes/".length);
    const [group, version] = relative.split(path.sep);
    const module =
      group === "apiextensions"
        ? "apiextensions.k8s.io"
        : version === undefined
          ? group
          : `${group}/${version}`;
    return {
      $ref: `${KUBERNETES_SCHEMA}#/resources/kubernetes:${encodeURIComponent(module)}:${symbol!.name}`,
    };
  }

  private objectRef(type: ts.Type, context: string): TypeSpec {
    const known = this.named.get(type);
    if (known) return { $ref: `#/types/${token(known)}` };
    const symbol = type.aliasSymbol ?? type.getSymbol();
    const own = symbol !== undefined && !symbol.name.startsWith("__") && !this.fromSdk(symbol);
    let preferred = own ? symbol.name : context;
    if (type.aliasSymbol?.name === "Omit" || type.aliasSymbol?.name === "Pick") {
      // The type it narrows, by its name: `Omit<AwsMachineOptions, "ami">` is AwsMachineOptions.
      const base = type.aliasTypeArguments?.[0];
      const named = base?.aliasSymbol ?? base?.getSymbol();
      if (named && !this.fromSdk(named) && !named.name.startsWith("__")) preferred = named.name;
    }
    const properties = this.checker.getPropertiesOfType(type);
    const name = this.uniqueName(preferred, properties.map((p) => p.name).join(","));
    this.named.set(type, name);
    this.types.set(token(name), { type: "object" });
    const spec = this.objectSpec(properties, name);
    const description = own ? this.description(symbol) : undefined;
    this.types.set(token(name), { ...(description ? { description } : {}), ...spec });
    return { $ref: `#/types/${token(name)}` };
  }

  /** A name free in `types`, or the one an identical shape already took. */
  private uniqueName(preferred: string, shape: string): string {
    const shapes = this.shapes;
    for (let n = 1; ; n++) {
      const name = n === 1 ? pascal(preferred) : `${pascal(preferred)}${n}`;
      const taken = shapes.get(name);
      if (taken === undefined || taken === shape) {
        shapes.set(name, shape);
        return name;
      }
    }
  }
  private readonly shapes = new Map<string, string>();

  /** Properties with their types, descriptions and secrecy, and the required ones. */
  objectSpec(properties: readonly ts.Symbol[], owner: string, output = false): ObjectSpec {
    const specs: Record<string, PropertySpec> = {};
    const required: string[] = [];
    for (const property of properties) {
      const type = output ? this.checker.getTypeOfSymbol(property) : this.declaredType(property);
      let spec: PropertySpec;
      try {
        spec = { ...this.typeSpec(type, `${owner}${pascal(property.name)}`) };
      } catch (e) {
        if (output && e instanceof Handle) continue;
        throw e;
      }
      const description = this.description(property);
      if (description) spec.description = description;
      if (this.secret(property)) spec.secret = true;
      specs[property.name] = spec;
      const absent = output ? this.optional(type) : (property.flags & ts.SymbolFlags.Optional) !== 0;
      if (!absent) required.push(property.name);
    }
    return {
      type: "object",
      properties: sorted(specs),
      ...(required.length ? { required: required.sort() } : {}),
    };
  }

  /** A property declared without `pulumi.Input` takes a plain value: an SDK then accepts no Output there. */
  private plain(symbol: ts.Symbol): boolean {
    const type = this.declaredType(symbol);
    const members = type.isUnion() ? type.types : [type];
    return !members.some((t) => this.eventual(t) !== undefined) && this.eventual(type) === undefined;
  }

  resource(component: Component): ResourceSpec {
    const properties = this.checker.getPropertiesOfType(component.args);
    const inputs = this.objectSpec(properties, component.name);
    for (const property of properties) {
      if (this.plain(property))
        inputs.properties[property.name] = { ...inputs.properties[property.name], plain: true };
    }
    const outputs = this.objectSpec(this.outputSymbols(component), component.name, true);
    return {
      isComponent: true,
      description: this.description(component.symbol) ?? component.name,
      inputProperties: inputs.properties,
      ...(inputs.required ? { requiredInputs: inputs.required } : {}),
      properties: outputs.properties,
      ...(outputs.required ? { required: outputs.required } : {}),
    };
  }

  generate(): PackageSchema {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      name: string;
      version: string;
      description: string;
      keywords: string[];
      license: string;
    };
    const resources: Record<string, ResourceSpec> = {};
    const components = this.components();
    for (const component of components) this.componentNames.add(component.name);
    for (const component of components) resources[token(component.name)] = this.resource(component);
    return {
      name: PACKAGE,
      displayName: "OpenShift node topology",
      version: pkg.version,
      description: pkg.description,
      keywords: pkg.keywords,
      license: pkg.license,
      types: sorted(Object.fromEntries(this.types)),
      resources: sorted(resources),
    };
  }
}

/** The schema as written: two-space JSON with a final newline. */
export function schemaText(schema: PackageSchema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (require.main === module) {
  fs.writeFileSync(SCHEMA_PATH, schemaText(new SchemaGenerator().generate()));
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_PATH)}`);
}
