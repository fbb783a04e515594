/**
 * Validation ratcheting of OpenAPI schema errors (KEP-4008; k8s.io/apiextensions-apiserver
 * pkg/apiserver/validation/ratcheting.go, ratchetingValueValidator.Validate): on an update, the errors a
 * schema node finds are dropped when the node's value correlates with an old value and equals it, so
 * that an object stored under an older, looser schema can still be updated in its other fields.
 * Values correlate through object fields, map-list items by their keys and set items by value
 * (apiserver pkg/cel/common, CorrelatedObject Key and Index); items of atomic lists correlate with
 * nothing, so their errors stand.
 */
import { jsonEqual } from "../../primitives/objects";
import { JSONSchemaProps } from "./crds";

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** Whether the value at a JSON pointer of `object` correlates with an equal value of `old`. */
export function unchangedAt(
  schema: JSONSchemaProps,
  object: unknown,
  old: unknown,
  pointer: string,
): boolean {
  let node: JSONSchemaProps | undefined = schema;
  let value = object;
  let previous = old;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(value)) {
      const item = value[Number(key)];
      const type = node?.["x-kubernetes-list-type"];
      if (!Array.isArray(previous)) return false;
      if (type === "map") {
        const keys = node?.["x-kubernetes-list-map-keys"] ?? [];
        previous = previous.find(
          (o) => isRecord(o) && isRecord(item) && keys.every((k) => jsonEqual(o[k], item[k])),
        );
      } else if (type === "set") {
        previous = previous.find((o) => jsonEqual(o, item));
      } else {
        return false;
      }
      if (previous === undefined) return false;
      value = item;
      node = node?.items;
      continue;
    }
    if (!isRecord(value) || !isRecord(previous) || !(key in previous)) return false;
    value = value[key];
    previous = previous[key];
    node =
      node?.properties?.[key] ??
      (isRecord(node?.additionalProperties) ? (node.additionalProperties as JSONSchemaProps) : undefined);
  }
  return jsonEqual(value, previous);
}
