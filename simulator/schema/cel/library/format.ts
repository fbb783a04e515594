/**
 * The format library (k8s.io/apiserver pkg/cel/library/format.go): `format.dns1123Label()`,
 * `format.dns1123Subdomain()`, `format.dns1035Label()`, `format.qualifiedName()`, the `...Prefix()`
 * variants, `format.labelValue()`, `format.uri()`, `format.uuid()`, `format.byte()`, `format.date()`,
 * `format.datetime()` and `format.named(name)`; `f.validate(s)` is `optional.none()` for a valid value,
 * else the list of apimachinery's validation messages (k8s.io/apimachinery pkg/util/validation,
 * IsDNS1123Label and friends).
 */
import { CelScalar, celFunc, celMethod, CelFunc } from "@bufbuild/cel";
import { opaque, optionalNone, optionalOf, payload } from "../opaque";
import { parseRequestUri } from "./url";

const { STRING, DYN } = CelScalar;

/** apimachinery validation.RegexError. */
function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join("or ")}regex used for validation is '${format}')`;
}

const maxLenError = (n: number) => `must be no more than ${n} characters`;

const DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?";
const QUALIFIED_NAME_PART = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE = `(${QUALIFIED_NAME_PART})?`;

const full = (format: string) => new RegExp(`^${format}$`);

function dns1123Label(value: string): string[] {
  const errs = value.length > 63 ? [maxLenError(63)] : [];
  if (!full(DNS1123_LABEL).test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL,
        "my-name",
        "123-abc",
      ),
    );
  }
  return errs;
}

function dns1123Subdomain(value: string): string[] {
  const errs = value.length > 253 ? [maxLenError(253)] : [];
  if (!full(DNS1123_SUBDOMAIN).test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        "example.com",
      ),
    );
  }
  return errs;
}

function dns1035Label(value: string): string[] {
  const errs = value.length > 63 ? [maxLenError(63)] : [];
  if (!full(DNS1035_LABEL).test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL,
        "my-name",
        "abc-123",
      ),
    );
  }
  return errs;
}

/** validation.IsQualifiedName. */
function qualifiedName(value: string): string[] {
  const parts = value.split("/");
  let name = value;
  const errs: string[] = [];
  if (parts.length === 2) {
    const [prefix] = parts;
    name = parts[1];
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else errs.push(...dns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else if (parts.length !== 1) {
    return [
      "a qualified name " +
        regexError(
          "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          QUALIFIED_NAME_PART,
          "MyName",
          "my.name",
          "123-abc",
        ) +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!full(QUALIFIED_NAME_PART).test(name)) {
    errs.push(
      "name part " +
        regexError(
          "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
          QUALIFIED_NAME_PART,
          "MyName",
          "my.name",
          "123-abc",
        ),
    );
  }
  return errs;
}

function labelValue(value: string): string[] {
  const errs = value.length > 63 ? [maxLenError(63)] : [];
  if (!full(LABEL_VALUE).test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        "MyValue",
        "my_value",
        "12345",
      ),
    );
  }
  return errs;
}

/** The prefix variants allow the trailing `-` a generated name's prefix has (format.go, maskTrailingDash). */
const prefixOf = (check: (v: string) => string[]) => (value: string) =>
  check(value.length > 1 && value.endsWith("-") ? `${value.slice(0, -1)}a` : value);

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const FORMATS: Record<string, (value: string) => string[]> = {
  dns1123Label,
  dns1123Subdomain,
  dns1035Label,
  qualifiedName,
  dns1123LabelPrefix: prefixOf(dns1123Label),
  dns1123SubdomainPrefix: prefixOf(dns1123Subdomain),
  dns1035LabelPrefix: prefixOf(dns1035Label),
  labelValue,
  uri: (value) => (parseRequestUri(value) ? [] : ["invalid URI"]),
  uuid: (value) => (UUID.test(value) ? [] : ["does not match the UUID format"]),
  byte: (value) =>
    /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value) ? [] : ["invalid base64"],
  date: (value) =>
    /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)) ? [] : ["invalid date"],
  datetime: (value) =>
    /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value))
      ? []
      : ["invalid datetime"],
};

const FORMAT = "kubernetes.NamedFormat";
const namedFormat = (name: string) => opaque(FORMAT, FORMATS[name], name);

export const FORMAT_LIBRARY: CelFunc[] = [
  ...Object.keys(FORMATS).map((name) => celFunc(`format.${name}`, [], DYN, () => namedFormat(name))),
  celFunc("format.named", [STRING], DYN, (name) =>
    Object.hasOwn(FORMATS, name) ? optionalOf(namedFormat(name)) : optionalNone(),
  ),
  celMethod("validate", DYN, [STRING], DYN, function (value) {
    const errors = payload<(v: string) => string[]>(this, FORMAT, "validate")(value);
    return errors.length === 0 ? optionalNone() : optionalOf(errors);
  }),
];
