/**
 * The checks kube-apiserver makes of a CRD's validation rules when the CRD is created or updated
 * (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go,
 * ValidateCustomResourceDefinitionOpenAPISchema and validateSchemaCel): every rule must compile, its
 * estimated worst cost must fit the per-rule limit, and all rules together, each times the number of
 * times it can run (the product of the sizes of the lists and maps above it), the limit for the whole
 * schema; what does not is refused with the server's wording.
 */
import { JSONSchemaProps } from "../crds";
import { fieldError, FieldError } from "../validate";
import { compile, CompileError } from "./compile";
import { estimateCost, MAX_REQUEST_BYTES, minSizeJson, STATIC_CRD_LIMIT, STATIC_RULE_LIMIT } from "./cost";
import { ValidationRule } from "./validator";

/** validation.go, getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown =
    factor > 100 ? "more than 100x" : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

interface RuleCost {
  path: string;
  total: number;
}

/**
 * Walks a schema's nodes with their paths as the server prints them and how many times each can occur:
 * the product of maxItems and maxProperties above it, or, under any list or map without one, as many
 * as fit in a request (compilation.go, maxCardinality).
 */
function walkSchema(
  schema: JSONSchemaProps,
  path: string,
  bounded: number | undefined,
  visit: (node: JSONSchemaProps, path: string, cardinality: number) => void,
): void {
  visit(schema, path, bounded ?? Math.floor(MAX_REQUEST_BYTES / (minSizeJson(schema) + 1)));
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    walkSchema(child, `${path}.properties[${name}]`, bounded, visit);
  }
  const times = (limit: number | undefined) =>
    bounded === undefined || limit === undefined ? undefined : bounded * limit;
  if (schema.items) walkSchema(schema.items, `${path}.items`, times(schema.maxItems), visit);
  if (typeof schema.additionalProperties === "object") {
    walkSchema(
      schema.additionalProperties,
      `${path}.additionalProperties`,
      times(schema.maxProperties),
      visit,
    );
  }
}

/** What the server refuses in one version's schema, at `root` (its openAPIV3Schema). */
function schemaRuleErrors(schema: JSONSchemaProps, root: string): FieldError[] {
  const errors: FieldError[] = [];
  const costs: RuleCost[] = [];
  walkSchema(schema, "", 1, (node, nodePath, cardinality) => {
    const path = `${root}${nodePath}`;
    ((node["x-kubernetes-validations"] ?? []) as ValidationRule[]).forEach((rule, i) => {
      const expressions: Array<[string, string | undefined]> = [
        ["rule", rule.rule],
        ["messageExpression", rule.messageExpression],
      ];
      for (const [part, source] of expressions) {
        if (source === undefined) continue;
        const at = `${path}.x-kubernetes-validations[${i}].${part}`;
        let cost: number;
        try {
          cost = estimateCost(compile(source).expr, node);
        } catch (error) {
          if (!(error instanceof CompileError)) throw error;
          errors.push(fieldError("invalid", at, source, error.message));
          continue;
        }
        if (cost > STATIC_RULE_LIMIT) {
          errors.push(
            fieldError(
              "forbidden",
              at,
              undefined,
              costErrorMessage(`estimated ${part} cost`, cost, STATIC_RULE_LIMIT),
            ),
          );
        }
        costs.push({ path: at, total: cost * cardinality });
      }
    });
  });
  const total = costs.reduce((t, c) => t + c.total, 0);
  if (total > STATIC_CRD_LIMIT) {
    for (const expensive of [...costs].sort((a, b) => b.total - a.total).slice(0, 4)) {
      errors.push(
        fieldError(
          "forbidden",
          expensive.path,
          undefined,
          "contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema",
        ),
      );
    }
    errors.push(
      fieldError(
        "forbidden",
        root,
        undefined,
        costErrorMessage(
          "x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema",
          total,
          STATIC_CRD_LIMIT,
        ),
      ),
    );
  }
  return errors;
}

/**
 * What the server refuses in a CRD's validation rules. The server validates the internal version, in
 * which a schema all versions share is `spec.validation` (the errors' paths say so).
 */
export function definitionRuleErrors(crd: Record<string, unknown>): FieldError[] {
  const versions = ((crd.spec as { versions?: unknown[] } | undefined)?.versions ?? []) as Array<{
    schema?: { openAPIV3Schema?: JSONSchemaProps };
  }>;
  const schemas = versions.map((v) => v.schema?.openAPIV3Schema);
  const shared = schemas.length > 0 && schemas.every((s) => JSON.stringify(s) === JSON.stringify(schemas[0]));
  if (shared) return schemas[0] ? schemaRuleErrors(schemas[0], "spec.validation.openAPIV3Schema") : [];
  return schemas.flatMap((s, i) =>
    s ? schemaRuleErrors(s, `spec.versions[${i}].schema.openAPIV3Schema`) : [],
  );
}
