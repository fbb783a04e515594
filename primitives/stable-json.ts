/**
 * JSON with object keys in code-unit order, so equal content serializes to equal bytes whatever the key
 * order. Its output is hashed into waiters' `contentHash` (held in deployed stacks' state) and into the
 * simulator's rendered MachineConfig names: the bytes must not change.
 *
 * Unlike `JSON.stringify`: members whose value is undefined are left out but every other value is
 * written, so a function or symbol member is `null`; an undefined value (at the top or in an array) is
 * `null`; `toJSON` is not called (a Date is `{}`); keys are sorted as strings, integer-like ones included.
 */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
