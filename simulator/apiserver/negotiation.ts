/**
 * Content negotiation: request bodies decoded from JSON, YAML or protobuf; objects answered as JSON,
 * as a Table (`as=Table`, kubectl get) or as metadata only (`as=PartialObjectMetadata`); the OpenAPI v2
 * document as protobuf for client-go.
 */
import { parse as parseYaml } from "yaml";
import { KubeObject } from "../store";
import { KUBERNETES_VERSION } from "./discovery";
import { decodeProtobuf, openApiV2Protobuf, ProtobufError } from "./protobuf";
import { ResourceType } from "./resources";
import { errors } from "./status";
import { toTable } from "./table";
import { isObject } from "../../primitives/objects";
import { Json } from "./target";
import { Request, send } from "./transport";

const PROTOBUF = "application/vnd.kubernetes.protobuf";
// The Accept value clients send has an "@", which Go cannot parse back; servers answer with ".v1.0".
const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
/** Deeper bodies are refused before any recursive processing could exhaust the stack. */
const MAX_NESTING = 1000;

function contentTypeOf(request: Request, fallback: string): string {
  return (request.req.headers["content-type"] ?? fallback).split(";")[0].trim().toLowerCase();
}

/** The patch type a PATCH request declares. */
export function patchContentType(request: Request): string {
  return contentTypeOf(request, "");
}

/** The request body as a JSON value, whichever encoding it came in. */
export function decode(request: Request): unknown {
  const body = request.body ?? Buffer.alloc(0);
  if (body.length === 0) throw errors.badRequest("the request body is empty");
  const contentType = contentTypeOf(request, "application/json");
  if (contentType === PROTOBUF) {
    try {
      return decodeProtobuf(body);
    } catch (error) {
      if (error instanceof ProtobufError && error.unsupported) {
        throw errors.unsupportedMediaType(contentType, ["application/json", "application/yaml"]);
      }
      throw errors.badRequest(
        `error decoding protobuf: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const text = body.toString("utf8");
  const yaml = contentType.includes("yaml");
  // The yaml parser's lexer runs out of memory on a few hundred thousand open brackets: bound first.
  if (yaml && yamlNestingBound(text) > MAX_NESTING) throw tooDeep();
  let value: unknown;
  try {
    value = yaml ? parseYamlBody(text) : JSON.parse(text);
  } catch (error) {
    const what = contentType.includes("yaml") ? "yaml" : "json";
    throw errors.badRequest(
      `error decoding ${what}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
    );
  }
  if (nestingDepth(value) > MAX_NESTING) throw tooDeep();
  return value;
}

/**
 * JSON is YAML, and clients send most YAML bodies as JSON text: those take the linear JSON parser. The
 * yaml parser's duplicate-key check is quadratic in a mapping's size, so duplicates are left to last-wins.
 */
function parseYamlBody(text: string): unknown {
  if (/^\s*[{[]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // Flow YAML that is not JSON.
    }
  }
  return parseYaml(text, { maxAliasCount: 100, uniqueKeys: false });
}

function tooDeep(): Error {
  return errors.badRequest(`the request body nests deeper than ${MAX_NESTING} levels`);
}

/** Where a quoted scalar may start: at a node's beginning, after indentation or an indicator. */
const NODE_START = new Set(["[", "{", ",", "-", "?", ":"]);

/**
 * An upper bound of a YAML text's nesting, in one pass without parsing: on each line, twice the
 * indentation and compact block indicators (`- - -`; a sequence may sit at its key's indentation), plus
 * the open flow brackets. Quoted scalars closed on their line
 * are skipped; a quote anywhere else counts its brackets too, so the bound may exceed the real depth of
 * odd documents but never falls short of it.
 */
export function yamlNestingBound(text: string): number {
  // The document's root collection is one level before any indentation.
  let deepest = 1;
  let flow = 0;
  let block = 0;
  let leading = true;
  let previous = "\n";
  const unclosed: Record<string, number> = { "'": -1, '"': -1 };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") {
      leading = true;
      block = 0;
      previous = c;
      continue;
    }
    if (leading && (c === " " || ((c === "-" || c === "?" || c === ":") && text[i + 1] === " "))) {
      block++;
      deepest = Math.max(deepest, 1 + 2 * block + flow);
      continue;
    }
    leading = false;
    if (c === "#" && (text[i - 1] === " " || text[i - 1] === "\t")) {
      const end = text.indexOf("\n", i);
      i = (end < 0 ? text.length : end) - 1;
      continue;
    }
    // Once a quote finds no close on its line, no later one of its kind does: each line is read once.
    if (
      (c === "'" || c === '"') &&
      unclosed[c] < i &&
      (previous === "\n" || previous === " " || NODE_START.has(previous))
    ) {
      const close = closingQuote(text, i);
      if (close > 0) {
        i = close;
        previous = c;
        continue;
      }
      const end = text.indexOf("\n", i);
      unclosed[c] = end < 0 ? text.length : end;
    }
    if (c === "[" || c === "{") deepest = Math.max(deepest, 1 + 2 * block + ++flow);
    else if ((c === "]" || c === "}") && flow > 0) flow--;
    if (c !== " " && c !== "\t") previous = c;
  }
  return deepest;
}

/** The index of the quote closing the one at `start` on the same line, or -1. */
function closingQuote(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") return -1;
    if (quote === '"' && c === "\\") i++;
    else if (c === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return -1;
}

/** The body of a create or update: an object in one of the media types objects are accepted in. */
export function decodeObject(request: Request): Json {
  const contentType = contentTypeOf(request, "application/json");
  if (
    !["application/json", "application/yaml", "application/x-yaml", "text/yaml", "*/*", PROTOBUF].includes(
      contentType,
    )
  ) {
    throw errors.unsupportedMediaType(contentType, ["application/json", "application/yaml"]);
  }
  const value = decode(request);
  if (!isObject(value)) throw errors.badRequest("the request body must be a JSON object");
  return value;
}

/** How deeply objects and arrays nest, computed without recursion. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > MAX_NESTING) return deepest;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return deepest;
}

export function wantsTable(request: Request): boolean {
  return /as=Table/.test(request.req.headers.accept ?? "");
}

/** Metadata-only answers (`as=PartialObjectMetadata[List]`), which client-go's metadata client asks for. */
export function wantsMetadata(request: Request): boolean {
  return /as=PartialObjectMetadata/.test(request.req.headers.accept ?? "");
}

export function partialMetadata(object: KubeObject): unknown {
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: object.metadata };
}

/** Answers with one object in the form the client accepts. */
export function sendObject(
  request: Request,
  resource: ResourceType,
  code: number,
  object: KubeObject,
  now: Date,
): void {
  if (wantsTable(request)) return send(request, code, toTable(resource, [object], now));
  if (wantsMetadata(request)) return send(request, code, partialMetadata(object));
  send(request, code, object);
}

/** Answers with a list in the form the client accepts. */
export function sendList(
  request: Request,
  resource: ResourceType,
  apiVersion: string,
  items: KubeObject[],
  resourceVersion: string,
  now: Date,
): void {
  if (wantsTable(request)) return send(request, 200, toTable(resource, items, now, resourceVersion));
  if (wantsMetadata(request)) {
    return send(request, 200, {
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion },
      items: items.map(partialMetadata),
    });
  }
  send(request, 200, { kind: resource.listKind, apiVersion, metadata: { resourceVersion }, items });
}

/** Protobuf for client-go (which asks for it), JSON otherwise; see `openApiV2Protobuf`. */
export function sendOpenApiV2(request: Request): void {
  const { res } = request;
  if (/protobuf/.test(request.req.headers.accept ?? "")) {
    const body = openApiV2Protobuf(KUBERNETES_VERSION.gitVersion);
    res.writeHead(200, { "Content-Type": OPENAPI_V2_PROTOBUF, "Content-Length": body.length });
    res.end(body);
    return;
  }
  send(request, 200, {
    swagger: "2.0",
    info: { title: "Kubernetes", version: KUBERNETES_VERSION.gitVersion },
    paths: {},
    definitions: {},
  });
}
