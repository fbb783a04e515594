import * as assert from "node:assert/strict";
import { JSONSchemaProps } from "../crds";
import { compile } from "./compile";
import { PER_CALL_LIMIT } from "./cost";
import { definitionRuleErrors } from "./definition";
import { validateCel, ValidationRule } from "./validator";
import { toCelValue } from "./values";

/** Evaluates an expression with `self` as a value of `schema` (untyped JSON when none). */
function run(expression: string, self: unknown = null, schema?: JSONSchemaProps): unknown {
  return compile(expression).eval(toCelValue(self, schema));
}

const fails = (expression: string, pattern: RegExp, self: unknown = null) =>
  assert.throws(() => run(expression, self), pattern);

/** A root schema with one rule-bearing property `spec` of `spec`'s schema. */
const rooted = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: "object", properties: { spec } });
const withRules = (schema: JSONSchemaProps, ...rules: ValidationRule[]): JSONSchemaProps => ({
  ...schema,
  "x-kubernetes-validations": rules,
});
const messages = (schema: JSONSchemaProps, object: unknown, old?: unknown) =>
  validateCel(schema, object, old, 10_000_000).errors.map((e) => `${e.field}: ${e.message}`);

describe("CEL validation rules: the Kubernetes libraries (k8s.io/apiserver pkg/cel/library)", () => {
  it("ip.go: isIP, ip().family() and the address predicates, refusing zones, IPv4-mapped IPv6 and leading zeros as netip does", () => {
    assert.equal(
      run("isIP('10.0.0.1') && isIP('fd00::1') && !isIP('10.0.0.01') && !isIP('::ffff:1.2.3.4')"),
      true,
    );
    assert.equal(run("!isIP('fe80::1%eth0') && !isIP('1.2.3') && !isIP('1:2:3:4:5:6:7:8:9')"), true);
    assert.equal(run("ip('10.0.0.1').family()"), 4n);
    assert.equal(run("ip('2001:db8::1').family()"), 6n);
    assert.equal(
      run("ip('127.0.0.1').isLoopback() && ip('::').isUnspecified() && ip('fe80::1').isLinkLocalUnicast()"),
      true,
    );
    assert.equal(run("ip('224.0.0.1').isLinkLocalMulticast() && ip('8.8.8.8').isGlobalUnicast()"), true);
    assert.equal(
      run("string(ip('2001:0db8:0:0:0:0:0:1')) == '2001:db8::1' && ip.isCanonical('2001:db8::1')"),
      true,
    );
    assert.equal(run("ip('::ffff:0:0:1') == ip('::ffff:0:0:0001')"), true);
    fails("ip('fe80::1%eth0')", /IP address "fe80::1%eth0" with zone value is not allowed/);
    fails("ip('::ffff:1.2.3.4')", /IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed/);
  });

  it("cidr.go: isCIDR, containsIP, containsCIDR, masked, prefixLength", () => {
    assert.equal(
      run("isCIDR('10.0.0.0/8') && isCIDR('10.0.0.1/8') && !isCIDR('10.0.0.0/33') && !isCIDR('10.0.0.0')"),
      true,
    );
    assert.equal(
      run("cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))"),
      true,
    );
    assert.equal(
      run(
        "cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && !cidr('10.1.0.0/16').containsCIDR('10.0.0.0/8')",
      ),
      true,
    );
    assert.equal(
      run("string(cidr('10.1.2.3/8').masked()) == '10.0.0.0/8' && cidr('fd00::/64').prefixLength() == 64"),
      true,
    );
    assert.equal(run("cidr('10.1.2.3/8').ip() == ip('10.1.2.3')"), true);
  });

  it("quantity.go: quantities compare by value whatever their suffix", () => {
    assert.equal(
      run("quantity('1') == quantity('1000m') && quantity('1Gi').isGreaterThan(quantity('1G'))"),
      true,
    );
    assert.equal(run("quantity('1.5Gi').asInteger()"), 1610612736n);
    assert.equal(run("quantity('500m').isInteger()"), false);
    assert.equal(run("quantity('2k').add(3).compareTo(quantity('2003'))"), 0n);
    assert.equal(run("quantity('1e3').sub(quantity('1k')).sign()"), 0n);
    assert.equal(run("isQuantity('1Gi') && !isQuantity('1Gb') && !isQuantity('one')"), true);
    fails("quantity('500m').asInteger()", /cannot convert value to integer/);
  });

  it("format.go: a named format validates to none, or to apimachinery's messages", () => {
    assert.equal(run("!format.dns1123Subdomain().validate('worker.example').hasValue()"), true);
    assert.deepEqual(
      [...(run("format.dns1123Label().validate('Worker').value()") as Iterable<unknown>)],
      [
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    );
    assert.equal(run("format.named('labelValue').value().validate('a_b').hasValue()"), false);
    assert.equal(run("format.named('nope').hasValue()"), false);
    assert.equal(run("format.dns1123LabelPrefix().validate('node-').hasValue()"), false);
  });

  it("urls.go: isURL and the parts of a request URI", () => {
    assert.equal(
      run("isURL('https://example.com:8443/a?b=c') && isURL('/path') && !isURL('example.com')"),
      true,
    );
    assert.equal(run("url('https://user@example.com:8443/a%20b?x=1&x=2').getHostname()"), "example.com");
    assert.equal(run("url('https://example.com:8443/a').getPort()"), "8443");
    assert.equal(run("url('https://[::1]:80/').getHostname()"), "::1");
    assert.equal(run("url('https://example.com/a?x=1&x=2').getQuery()['x'][1]"), "2");
  });

  it("lists.go and regex.go; cel-go's strings, sets and optional types", () => {
    assert.equal(run("[1, 2, 2].isSorted() && ![2, 1].isSorted() && [1, 2, 3].sum() == 6"), true);
    assert.equal(
      run("[3, 1, 2].min() == 1 && ['b', 'a'].max() == 'b' && [1, 2, 1].lastIndexOf(1) == 2"),
      true,
    );
    assert.equal(
      run("'abc 123 def 456'.find('[0-9]+') == '123' && 'abc 123 def 456'.findAll('[0-9]+', 1) == ['123']"),
      true,
    );
    assert.equal(run("'AbC'.lowerAscii() == 'abc' && 'a-b-c'.split('-', 2)[1] == 'b-c'"), true);
    assert.equal(
      run("sets.contains([1, 2, 3], [2]) && sets.equivalent([1, 2], [2, 1]) && !sets.intersects([1], [2])"),
      true,
    );
    assert.equal(run("self.?a.b.orValue('none')", { a: { b: "x" } }), "x");
    assert.equal(run("self.?a.b.orValue('none')", { c: 1 }), "none");
    assert.equal(run("self.?a.hasValue() || optional.none().hasValue()", {}), false);
    assert.equal(
      run("'x'.matches('^[^[:cntrl:]]+$') && !'\\u0001'.matches('^[^[:cntrl:]]+$')"),
      true,
      "RE2 classes",
    );
  });

  it("values.go: integers, set lists compared without order, root metadata cut to name and generateName", () => {
    const set: JSONSchemaProps = {
      type: "array",
      items: { type: "string" },
      "x-kubernetes-list-type": "set",
    };
    assert.equal(
      compile("self == oldSelf").eval(toCelValue(["a", "b"], set), toCelValue(["b", "a"], set)),
      true,
    );
    const atomic: JSONSchemaProps = { type: "array", items: { type: "string" } };
    assert.equal(
      compile("self == oldSelf").eval(toCelValue(["a", "b"], atomic), toCelValue(["b", "a"], atomic)),
      false,
    );
    assert.equal(
      run(
        "self.n == 2 && type(self.n) == int && type(self.d) == double",
        { n: 2, d: 2 },
        {
          type: "object",
          properties: { n: { type: "integer" }, d: { type: "number" } },
        },
      ),
      true,
    );
    const root = toCelValue({ metadata: { name: "a", labels: { x: "y" } } }, { type: "object" }, true);
    assert.equal(compile("self.metadata.name == 'a' && !has(self.metadata.labels)").eval(root), true);
  });
});

describe("CEL validation rules: evaluation as kube-apiserver does (apiextensions-apiserver schema/cel/validation.go)", () => {
  const immutable = withRules({ type: "string" }, { rule: "self == oldSelf", message: "name is immutable" });
  const schema = rooted({ type: "object", properties: { name: immutable, size: { type: "integer" } } });

  it("runs transition rules only on an update, where an old value correlates", () => {
    assert.deepEqual(messages(schema, { spec: { name: "a" } }), []);
    assert.deepEqual(messages(schema, { spec: { name: "b" } }, { spec: { name: "a" } }), [
      'spec.name: Invalid value: "string": name is immutable',
    ]);
    assert.deepEqual(messages(schema, { spec: { name: "b" } }, { spec: {} }), [], "nothing to compare with");
  });

  it("optionalOldSelf rules also run without an old value, with oldSelf an optional", () => {
    const rule = {
      rule: "!oldSelf.hasValue() || self >= oldSelf.value()",
      message: "may only grow",
      optionalOldSelf: true,
    };
    const growing = rooted({ type: "object", properties: { size: withRules({ type: "integer" }, rule) } });
    assert.deepEqual(messages(growing, { spec: { size: 1 } }), []);
    assert.deepEqual(messages(growing, { spec: { size: 1 } }, { spec: { size: 2 } }), [
      'spec.size: Invalid value: "integer": may only grow',
    ]);
  });

  it("words a false rule by messageExpression, message or the rule, types it by reason and places it at fieldPath", () => {
    const spec = withRules(
      { type: "object", properties: { a: { type: "string" }, b: { type: "string" } } },
      { rule: "self.a != 'x'", messageExpression: "'a may not be ' + self.a" },
      { rule: "self.a != 'y'" },
      {
        rule: "self.?b.orValue('') != 'z'",
        message: "b may not be z",
        reason: "FieldValueForbidden",
        fieldPath: ".b",
      },
      { rule: "self.?b.orValue('') != 'r'", message: "b is required", reason: "FieldValueRequired" },
      { rule: "self.?b.orValue('') != 'd'", reason: "FieldValueDuplicate" },
    );
    assert.deepEqual(messages(rooted(spec), { spec: { a: "x" } }), [
      'spec: Invalid value: "object": a may not be x',
    ]);
    assert.deepEqual(messages(rooted(spec), { spec: { a: "y" } }), [
      "spec: Invalid value: \"object\": failed rule: self.a != 'y'",
    ]);
    assert.deepEqual(messages(rooted(spec), { spec: { a: "", b: "z" } }), [
      "spec.b: Forbidden: b may not be z",
    ]);
    assert.deepEqual(messages(rooted(spec), { spec: { a: "", b: "r" } }), [
      "spec: Required value: b is required",
    ]);
    assert.deepEqual(messages(rooted(spec), { spec: { a: "", b: "d" } }), [
      'spec: Duplicate value: "object"',
    ]);
  });

  it("reports evaluation errors with the rule, and a rule of the root at the server's <nil> path", () => {
    const spec = withRules({ type: "object" }, { rule: "self.missing == 1" });
    assert.deepEqual(messages(rooted(spec), { spec: {} }), [
      'spec: Invalid value: "object": no such key: missing evaluating rule: self.missing == 1',
    ]);
    const root = withRules(
      { type: "object", properties: { spec: { type: "object" } } },
      { rule: "has(self.spec)", message: "spec is required" },
    );
    assert.deepEqual(messages(root, {}), ['<nil>: Invalid value: "object": spec is required']);
  });

  it("correlates map-list items by key for transition rules, and runs item rules on every item", () => {
    const items = withRules(
      { type: "object", properties: { name: { type: "string" }, value: { type: "integer" } } },
      { rule: "self.value >= oldSelf.value", message: "value must not decrease" },
      { rule: "self.value >= 0", message: "value must not be negative" },
    );
    const list = rooted({
      type: "array",
      items,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
    });
    const old = {
      spec: [
        { name: "a", value: 2 },
        { name: "b", value: 1 },
      ],
    };
    assert.deepEqual(
      messages(
        list,
        {
          spec: [
            { name: "b", value: 0 },
            { name: "a", value: 3 },
            { name: "c", value: -1 },
          ],
        },
        old,
      ),
      [
        'spec[0]: Invalid value: "object": value must not decrease',
        'spec[2]: Invalid value: "object": value must not be negative',
      ],
    );
  });

  it("ratchets errors of rules that do not read oldSelf where the value is unchanged (KEP-4008)", () => {
    const spec = rooted(
      withRules(
        { type: "object", properties: { a: { type: "string" }, b: { type: "string" } } },
        { rule: "self.a != 'bad'", message: "a is bad" },
      ),
    );
    const stored = { spec: { a: "bad", b: "1" } };
    assert.deepEqual(messages(spec, { spec: { a: "bad", b: "1" } }, stored), []);
    assert.deepEqual(validateCel(spec, { spec: { a: "bad", b: "1" } }, stored, 10_000_000).warnings, [
      'spec: Invalid value: "object": a is bad',
    ]);
    assert.deepEqual(messages(spec, { spec: { a: "bad", b: "2" } }, stored), [
      'spec: Invalid value: "object": a is bad',
    ]);
  });

  it("stops at the per-call cost limit and at the request's budget, in the server's words", () => {
    // 3 x 3 searches of 1,500,000-character strings: 9 traversals at 150,000 each.
    const rule = "self.all(x, self.all(y, !x.contains(y + 'q')))";
    const big = rooted(withRules({ type: "array", items: { type: "string" } }, { rule }));
    const spec = Array.from({ length: 3 }, (_, i) => String(i).padEnd(1_500_000, "x"));
    assert.ok(9 * 150_000 > PER_CALL_LIMIT);
    assert.deepEqual(messages(big, { spec }), [
      `spec: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`,
    ]);
    const cheap = rooted(
      withRules({ type: "array", items: { type: "integer" } }, { rule: "self.all(x, x >= 0)" }),
    );
    const items = Array.from({ length: 20 }, (_, i) => i);
    assert.deepEqual(
      validateCel(cheap, { spec: items }, undefined, 50).errors.map((e) => e.message),
      [
        'Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run',
      ],
    );
  });
});

describe("CEL validation rules of a CRD (apiextensions validation.go, validateSchemaCel)", () => {
  const crd = (spec: JSONSchemaProps) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: { versions: [{ name: "v1", schema: { openAPIV3Schema: rooted(spec) } }] },
  });

  it("refuses a rule whose estimated cost exceeds the per-rule budget, and accepts it once its list and strings are bounded", () => {
    const rule = { rule: "self.all(x, self.exists_one(y, x == y))" };
    const errors = definitionRuleErrors(crd(withRules({ type: "array", items: { type: "string" } }, rule)));
    assert.deepEqual(errors.map((e) => `${e.field}: ${e.message}`).slice(0, 1), [
      "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
    ]);
    const bounded = withRules(
      { type: "array", maxItems: 20, items: { type: "string", maxLength: 63 } },
      rule,
    );
    assert.deepEqual(definitionRuleErrors(crd(bounded)), []);
  });

  it("refuses a rule that does not compile", () => {
    const errors = definitionRuleErrors(crd(withRules({ type: "string" }, { rule: "self ==" })));
    assert.equal(errors.length, 1);
    assert.match(errors[0].message, /^Invalid value: "self ==": compilation failed: /);
  });
});
